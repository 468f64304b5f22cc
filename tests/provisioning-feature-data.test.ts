import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { EdgeProviderLocal, FeatureRecords, Jobs, LocalEdge, ProvisioningMigrations, Worker } from "@core/provisioning"
import { FeatureJobsLive, Platforms, RegistryMigrations } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TestCallers } from "./support/testCallers.js"
import { RegistryPorts, runtimeTools } from "./support/registryPorts.js"
import { eventually } from "./support/poll.js"

/**
 * A feature's data at the local edge (decision 0313): its activation makes a schema, a directory
 * and a kv table; `feature.deactivate` keeps them by default (`deleteData: false`) and removes
 * them with `deleteData: true`. Real jobs on a real worker, real local resources looked at.
 */
const makeLayer = (driver: "pglite" | "pg", root: string) => {
  const worker = Worker.layer({ pollMs: 30, backoffBaseMs: 20 }).pipe(
    Layer.provide(FeatureJobsLive),
    Layer.provide(EdgeProviderLocal.layer({ root, port: 8787 }))
  )
  return worker.pipe(
    Layer.provideMerge(RegistryPorts),
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations, ProvisioningMigrations], { driver }))
  )
}

for (const driver of TestDatabase.drivers) {
  describe(`feature deactivation's deleteData on the local edge (${driver})`, () => {
    const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "core-feature-data-"))
    let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof makeLayer>>, unknown>
    let platformId: string
    let entityId: string
    const { run, query } = runtimeTools(() => runtime)
    const finished = async (jobId: string) => {
      const [job] = await eventually(
        () => query<{ status: string; error: string | null }>(`SELECT status, error FROM provisioning.jobs WHERE id = $1`, [jobId]),
        ([found]) => found?.status === "COMPLETED" || found?.status === "FAILED",
        { message: `job ${jobId} to finish`, timeout: 20_000, interval: 30 }
      )
      return job!
    }
    const enqueue = (type: string, payload: Record<string, unknown>) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => Jobs.enqueue(sql, { type, platformId, organizationId: "org_a", payload })))
    /** Activate `featureId` as the direct route does, and wait for its job. */
    const activate = async (featureId: string) => {
      const target = { platformId, entityId, featureId, featureVersion: "1.0.0", environment: "prod" }
      const activationId = await run(Effect.flatMap(FeatureRecords, (records) => records.activate(target)))
      expect(await finished((await enqueue("feature.activate", { ...target, activationId })).jobId)).toMatchObject({ status: "COMPLETED", error: null })
    }
    const deactivate = async (featureId: string, deleteData?: boolean) => {
      const target = { platformId, entityId, featureId, environment: "prod" }
      const found = await run(Effect.flatMap(FeatureRecords, (records) => records.deactivate(target)))
      const payload = { ...target, ...found, ...(deleteData === undefined ? {} : { deleteData }) }
      expect(await finished((await enqueue("feature.deactivate", payload)).jobId)).toMatchObject({ status: "COMPLETED", error: null })
    }
    /** What exists of the feature's data: its schema, its directory, its kv table. */
    const data = async (featureId: string) => {
      const name = LocalEdge.featureDataName({ platformId, entityId, featureId, environment: "prod" })
      const schema = await query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [LocalEdge.databaseSchema(name)])
      const [table] = await query<{ kv: string | null }>(`SELECT to_regclass($1)::text AS kv`, [`${LocalEdge.EDGE_SCHEMA}."${LocalEdge.resourceTable("kv", name)}"`])
      return { schema: schema.length === 1, directory: Fs.existsSync(LocalEdge.objectsDir(root, name)), kv: table!.kv !== null, name }
    }

    beforeAll(async () => {
      runtime = ManagedRuntime.make(makeLayer(driver, root))
      platformId = (await run(Effect.flatMap(Platforms, (p) => p.create({ name: "Data", slug: `feature-data-${driver}`, organizationId: "org_a" })))).id
      entityId = (await query<{ id: string }>(`SELECT id FROM registry.entities WHERE platform_id = $1 AND slug = 'default'`, [platformId]))[0]!.id
    }, 60_000)
    afterAll(async () => {
      await runtime?.dispose()
      Fs.rmSync(root, { recursive: true, force: true })
    })

    it("activation makes the feature's schema, directory and kv table; deactivation keeps them by default and with their content", async () => {
      await activate("analytics")
      const made = await data("analytics")
      expect(made).toMatchObject({ schema: true, directory: true, kv: true })
      expect(made.name).toMatch(/^feature-analytics-prod-[0-9a-f]{10}$/)
      const kv = `${LocalEdge.EDGE_SCHEMA}."${LocalEdge.resourceTable("kv", made.name)}"`
      await query(`INSERT INTO ${kv} (key, value) VALUES ('visits', '42')`)
      await query(`CREATE TABLE "${LocalEdge.databaseSchema(made.name)}".events (id int)`)
      Fs.writeFileSync(Path.join(LocalEdge.objectsDir(root, made.name), "report.csv"), "a,b\n")

      await deactivate("analytics")
      expect(await data("analytics")).toMatchObject({ schema: true, directory: true, kv: true })
      expect(await query(`SELECT value FROM ${kv}`)).toEqual([{ value: "42" }])
      expect(Fs.readFileSync(Path.join(LocalEdge.objectsDir(root, made.name), "report.csv"), "utf8")).toBe("a,b\n")
      expect(await query(`SELECT 1 FROM provisioning.local_features WHERE platform_id = $1 AND feature_id = 'analytics'`, [platformId])).toEqual([])

      // Activated again, it finds its data as it was.
      await activate("analytics")
      expect(await query(`SELECT value FROM ${kv}`)).toEqual([{ value: "42" }])
    })

    it("deleteData: true removes the feature's data; another feature's stays", async () => {
      await activate("search")
      await deactivate("analytics", true)
      expect(await data("analytics")).toMatchObject({ schema: false, directory: false, kv: false })
      expect(await data("search")).toMatchObject({ schema: true, directory: true, kv: true })
      await deactivate("search", false)
      expect(await data("search")).toMatchObject({ schema: true, directory: true, kv: true })
    })
  })
}
