import { Ids, Route } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { AuthJobsLive, authWorkerName, EdgeProviderLocal, JobCreation, JobCreationHandlers, JobHandlers, ProvisioningMigrations, Worker } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FeatureJobsLive, FeatureRecordsLive, Features, Platforms, PlatformDirectoryLive, RegistryMigrations } from "../src/index.js"
import { TestCallers } from "./Callers.js"
import { until as poll } from "@core/kernel/testing/poll"

const makeLayer = (driver: "pglite" | "pg", root: string) => {
  const services = Layer.mergeAll(JobCreation.Default.pipe(Layer.provide(PlatformDirectoryLive)), FeatureRecordsLive, Features.DefaultWithoutDependencies).pipe(
    Layer.provideMerge(Platforms.Default),
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations, ProvisioningMigrations], { driver }))
  )
  const worker = Worker.layer({ pollMs: 20, concurrency: 3 }).pipe(
    Layer.provide(JobHandlers.merge(FeatureJobsLive, AuthJobsLive)),
    Layer.provide(EdgeProviderLocal.layer({ root }))
  )
  return worker.pipe(Layer.provideMerge(services))
}

/** Read until `holds` (every 25 ms, at most 10 s); the last value read, so that the test's `expect` shows it. */
const until = <A>(read: () => Promise<A>, holds: (a: A) => boolean): Promise<A> => poll(read, holds, 10_000)

/** The job-creating routes with a worker running their jobs: the jobs move the registry, in order per target. */
for (const driver of TestDatabase.drivers) {
  describe(`provisioning's job-creating routes with a worker on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    let root: string
    let platform: string
    let tenant: string
    const query = <T extends object = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown> = []) =>
      h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)))
    const post = (path: string, json: unknown, token = "usr_owner") =>
      h.fetch(`/api/v1/provision/${path}`, { method: "POST", json, token }).then(async (r) => ({ status: r.status, body: await r.json() }))
    const job = (id: string) =>
      query<{ status: string; started_at: Date | null; finished_at: Date | null; result: unknown }>(
        `SELECT status, started_at, finished_at, result FROM provisioning.jobs WHERE id = $1`, [id]).then((rows) => rows[0]!)

    beforeAll(async () => {
      root = await Fs.mkdtemp(Path.join(Os.tmpdir(), "core-p1b-"))
      h = await makeHttpHarness(Route.router(JobCreationHandlers, { base: "/api/v1/provision" }), makeLayer(driver, root))
      platform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "W", slug: `prov-w-${driver}`, organizationId: "org_a" })))).id
      tenant = (await query<{ id: string }>(`SELECT id FROM registry.entities WHERE platform_id = $1 AND slug = 'default'`, [platform]))[0]!.id
    }, 60_000)
    afterAll(async () => {
      await h.dispose()
      await Fs.rm(root, { recursive: true, force: true })
    })

    it("a direct feature/activate's job makes the activation active; a deactivation sent at once waits for it and ends deactivated", async () => {
      const target = { platformId: platform, entityId: tenant, featureId: "payments", environment: "prod" }
      const on = await post("feature/activate", { ...target, featureVersion: "2.0.0" })
      const off = await post("feature/deactivate", target)
      expect([on.status, off.status]).toEqual([202, 202])
      const [first, second] = await Promise.all([
        until(() => job(on.body.jobId), (j) => j.status === "COMPLETED"),
        until(() => job(off.body.jobId), (j) => j.status === "COMPLETED")
      ])
      expect(first.status).toBe("COMPLETED")
      expect(second.status).toBe("COMPLETED")
      // The deactivation started only once the activation had finished.
      expect(new Date(second.started_at!).getTime()).toBeGreaterThanOrEqual(new Date(first.finished_at!).getTime())
      expect(await query(`SELECT status, feature_version, provision_job_id FROM registry.feature_activations WHERE entity_id = $1 AND feature_id = 'payments'`, [tenant]))
        .toEqual([{ status: "deactivated", feature_version: "2.0.0", provision_job_id: off.body.jobId }])
      expect(await query(`SELECT 1 FROM provisioning.local_features WHERE entity_id = $1 AND feature_id = 'payments'`, [tenant])).toEqual([])

      const again = await post("feature/activate", { ...target, featureVersion: "2.1.0" })
      await until(() => job(again.body.jobId), (j) => j.status === "COMPLETED")
      expect(await query(`SELECT status, feature_version FROM registry.feature_activations WHERE entity_id = $1 AND feature_id = 'payments' ORDER BY created_at`, [tenant]))
        .toEqual([{ status: "deactivated", feature_version: "2.0.0" }, { status: "active", feature_version: "2.1.0" }])
      expect(await query(`SELECT feature_version FROM provisioning.local_features WHERE entity_id = $1 AND feature_id = 'payments'`, [tenant]))
        .toEqual([{ feature_version: "2.1.0" }])
    }, 30_000)

    it("auth/upgrade's job deploys the platform's auth worker on the edge (steps deploy, verify); a second upgrade replaces it", async () => {
      const first = await post("auth/upgrade", { platformId: platform }, "usr_operator")
      expect(first).toEqual({ status: 202, body: { jobId: expect.stringMatching(/^job_/), platformId: platform } })
      const done = await until(() => job(first.body.jobId), (j) => j.status === "COMPLETED")
      const name = authWorkerName(platform)
      expect(done.result).toEqual({ platformId: platform, worker: name, edgeId: `local:worker:${name}`, version: "1.0.0", provider: "local" })
      const second = await post("auth/upgrade", { platformId: platform }, "static")
      await until(() => job(second.body.jobId), (j) => j.status === "COMPLETED")
      const workers = await query<{ edge_name: string; script: string }>(
        `SELECT edge_name, script FROM provisioning.edge_resources WHERE platform_id = $1 AND resource_type = 'worker'`, [platform])
      expect(workers).toEqual([{ edge_name: name, script: expect.stringContaining(`x-core-platform-id", "${platform}"`) }])
      const [steps] = await query<{ steps: Array<{ name: string; status: string }> }>(`SELECT steps FROM provisioning.jobs WHERE id = $1`, [second.body.jobId])
      expect(steps!.steps.map((s) => [s.name, s.status])).toEqual([["deploy", "completed"], ["verify", "completed"]])
    }, 30_000)
  })
}
