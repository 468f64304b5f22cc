import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Caller } from "@core/kernel"
import { Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { EdgeProviderLocal, FeatureRecords, JobControls, Jobs, ProvisioningMigrations } from "@core/provisioning"
import { Platforms, RegistryJobs, RegistryMigrations, ResourceRecords } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TestCallers } from "./support/testCallers.js"
import { RegistryPorts, runtimeTools } from "./support/registryPorts.js"

/**
 * An operator's cancel and force-complete move what the job owns (decision 0312), on the real
 * registry tables: a feature activation's activation (`failed` / `active`), a deactivation's
 * (`active` again / `deactivated`), the registry resources a resource job left unfinished
 * (`failed` / `active`), and its custom domain. The registry's job handlers settle its records, as
 * the server merges them. No worker runs: the jobs stay where the test puts them.
 */
const operator: Caller = { kind: "service" }

const makeLayer = (driver: "pglite" | "pg") => {
  return JobControls.Default.pipe(
    Layer.provide(RegistryJobs.pipe(Layer.provide(EdgeProviderLocal.layer({ root: Fs.mkdtempSync(Path.join(Os.tmpdir(), "core-settle-")) })))),
    Layer.provideMerge(RegistryPorts),
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations, ProvisioningMigrations], { driver }))
  )
}

for (const driver of TestDatabase.drivers) {
  describe(`cancel and force-complete settle what the job owns (${driver})`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof makeLayer>>, unknown>
    let platformId: string
    let entityId: string
    const { run, query } = runtimeTools(() => runtime)
    const enqueue = (type: string, payload: Record<string, unknown>) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => Jobs.enqueue(sql, { type, platformId, organizationId: "org_a", payload })))
    const activation = async (id: string) =>
      (await query<{ status: string }>(`SELECT status FROM registry.feature_activations WHERE id = $1`, [id]))[0]?.status
    const cancel = (jobId: string) => run(Effect.flatMap(JobControls, (c) => c.cancel(operator, jobId, "not needed")))
    const force = (jobId: string) => run(Effect.flatMap(JobControls, (c) => c.forceComplete(operator, jobId, "done by hand")))
    /** A pending activation of `featureId` and its queued feature.activate job, as the direct route makes them. */
    const activationJob = async (featureId: string) => {
      const target = { platformId, entityId, featureId, featureVersion: "1.0.0", environment: "prod" }
      const activationId = await run(Effect.flatMap(FeatureRecords, (records) => records.activate(target)))
      const { jobId } = await enqueue("feature.activate", { ...target, activationId })
      return { activationId, jobId }
    }
    /** Resources recorded by a queued app.create job (as its `record` step does), one moved `provisioning`. */
    const resourceJob = async (app: string) => {
      const { jobId } = await enqueue("app.create", { platformId, stackId: "apps", appName: app, appType: "fullstack" })
      const ids: Array<string> = []
      for (const [type, name] of [["pages", app], ["worker", `${app}-api`]] as const) {
        const view = await run(Effect.flatMap(ResourceRecords, (records) =>
          records.record({
            platformId, entityId, stackId: "apps", resourceType: type, serviceName: name, environment: "prod",
            edgeName: `settle-${driver}-prod-${name}`, config: {}, jobId
          })))
        ids.push(view.id)
      }
      await run(Effect.flatMap(ResourceRecords, (records) => records.move(ids[1]!, "provisioning", { jobId })))
      return { jobId, ids }
    }
    const statuses = async (ids: ReadonlyArray<string>) =>
      (await query<{ status: string }>(`SELECT status FROM registry.resources WHERE id = ANY($1) ORDER BY service_name`, [ids])).map((r) => r.status)

    beforeAll(async () => {
      runtime = ManagedRuntime.make(makeLayer(driver))
      const platform = await run(Effect.flatMap(Platforms, (p) => p.create({ name: "Settle", slug: `settle-${driver}`, organizationId: "org_a" })))
      platformId = platform.id
      entityId = (await query<{ id: string }>(`SELECT id FROM registry.entities WHERE platform_id = $1 AND slug = 'default'`, [platformId]))[0]!.id
    }, 60_000)
    afterAll(async () => {
      await runtime?.dispose()
    })

    it("a cancelled feature activation job leaves its activation failed; a force-completed one active", async () => {
      const cancelled = await activationJob("analytics")
      expect(await activation(cancelled.activationId)).toBe("pending")
      expect(await cancel(cancelled.jobId)).toEqual({ jobId: cancelled.jobId, status: "FAILED", reason: "not needed" })
      expect(await activation(cancelled.activationId)).toBe("failed")

      const forced = await activationJob("search")
      expect(await force(forced.jobId)).toEqual({ jobId: forced.jobId, status: "COMPLETED" })
      const [row] = await query<{ status: string; activated_at: unknown }>(`SELECT status, activated_at FROM registry.feature_activations WHERE id = $1`, [forced.activationId])
      expect(row!.status).toBe("active")
      expect(row!.activated_at).not.toBeNull()

      // The cancelled one's job, force-completed afterwards (FAILED → COMPLETED), makes it active too.
      await force(cancelled.jobId)
      expect(await activation(cancelled.activationId)).toBe("active")
    })

    it("a failed activation's job force-completed after a new activation of the feature leaves the old one failed", async () => {
      const old = await activationJob("reports")
      await cancel(old.jobId)
      const renewed = await activationJob("reports")
      expect(renewed.activationId).not.toBe(old.activationId)
      expect(await force(old.jobId)).toEqual({ jobId: old.jobId, status: "COMPLETED" })
      expect(await activation(old.activationId)).toBe("failed")
      expect(await activation(renewed.activationId)).toBe("pending")
    })

    it("a cancelled deactivation leaves the feature active as it was; a force-completed one deactivated", async () => {
      const kept = await activationJob("billing")
      await force(kept.jobId)
      const deactivate = async (featureId: string) => {
        const found = await run(Effect.flatMap(FeatureRecords, (records) => records.deactivate({ platformId, entityId, featureId, environment: "prod" })))
        const { jobId } = await enqueue("feature.deactivate", { platformId, entityId, featureId, environment: "prod", ...found })
        return jobId
      }
      const cancelledJob = await deactivate("billing")
      expect(await activation(kept.activationId)).toBe("deactivating")
      await cancel(cancelledJob)
      expect(await activation(kept.activationId)).toBe("active")

      const forcedJob = await deactivate("billing")
      await force(forcedJob)
      const [row] = await query<{ status: string; deactivated_at: unknown }>(`SELECT status, deactivated_at FROM registry.feature_activations WHERE id = $1`, [kept.activationId])
      expect(row!.status).toBe("deactivated")
      expect(row!.deactivated_at).not.toBeNull()
    })

    it("a cancelled resource job's unfinished resources are failed, a force-completed one's active; others' untouched", async () => {
      const cancelled = await resourceJob("shop")
      const forced = await resourceJob("blog")
      const bystander = await resourceJob("wiki")
      expect(await statuses(cancelled.ids)).toEqual(["pending", "provisioning"])
      await cancel(cancelled.jobId)
      expect(await statuses(cancelled.ids)).toEqual(["failed", "failed"])
      await force(forced.jobId)
      expect(await statuses(forced.ids)).toEqual(["active", "active"])
      expect(await statuses(bystander.ids)).toEqual(["pending", "provisioning"])
      // Each change bumped the resource's version (its ETag).
      expect((await query<{ version: number }>(`SELECT version FROM registry.resources WHERE id = $1`, [cancelled.ids[0]]))[0]!.version).toBe(2)
      // The cancelled job force-completed afterwards: its failed resources become active.
      await force(cancelled.jobId)
      expect(await statuses(cancelled.ids)).toEqual(["active", "active"])
    })

    it("a cancelled domain.add leaves its domain failed; a force-completed one active", async () => {
      const domain = async (hostname: string) => {
        const { jobId } = await enqueue("domain.add", { platformId, customHostname: hostname, targetDnsRecordId: "dns_x" })
        await query(`INSERT INTO provisioning.domains (id, platform_id, organization_id, hostname, target_dns_record_id, target, status,
            verification_status, job_id, created_at, updated_at) VALUES ($1, $2, 'org_a', $3, 'dns_x', 'x.example.net', 'pending', 'pending', $4, now(), now())`,
          [`dom_${hostname.split(".")[0]}_${driver}`, platformId, hostname, jobId])
        return jobId
      }
      const one = await domain(`one-${driver}.example.com`)
      const two = await domain(`two-${driver}.example.com`)
      await cancel(one)
      await force(two)
      const rows = await query<{ hostname: string; status: string; verification_status: string }>(
        `SELECT hostname, status, verification_status FROM provisioning.domains WHERE platform_id = $1 ORDER BY hostname`, [platformId])
      expect(rows).toEqual([
        { hostname: `one-${driver}.example.com`, status: "failed", verification_status: "failed" },
        { hostname: `two-${driver}.example.com`, status: "active", verification_status: "pending" }
      ])
    })

    it("retry and a 409 move nothing", async () => {
      const job = await activationJob("mail")
      await expect(run(Effect.flatMap(JobControls, (c) => c.retry(operator, job.jobId)))).rejects.toThrow(/cannot become/)
      expect(await activation(job.activationId)).toBe("pending")
      await force(job.jobId)
      await expect(cancel(job.jobId)).rejects.toThrow(/cannot become/)
      expect(await activation(job.activationId)).toBe("active")
    })
  })
}
