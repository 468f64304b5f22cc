import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Events } from "@core/contracts"
import { BuildReporter, DEPLOY_SITE, DeployJobs, DeployMigrations, DeploymentsRepo, toRecord } from "@core/deploy"
import { EventsMigrations, EventsRepo, OutboxLive } from "@core/events"
import { CoreConfig, Ids, Rows } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { EdgeProvider, type JobContext, JobFailed, JobHandlers, type JobRow } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/**
 * The deployment job's end records its event in the transaction of its final write, with the real
 * outbox, on PGlite and PostgreSQL: an edge that refuses the site ends the deployment `failure`
 * with `deployment.failed` (the deployment as the API answers it, live pointer included); a job of
 * no organization records none. (`deployment.ready` and `deployment.rolled_back` through a real
 * server: tests/events-domains-gateway.test.ts.)
 */
const refusingEdge = Layer.succeed(EdgeProvider, {
  name: "refusing",
  createResource: () => Effect.fail(new JobFailed({ message: "the edge refused the project" }))
} as unknown as EdgeProvider["Type"])

const context: JobContext = { step: (_name, work) => work, progress: () => Effect.void }

const dataDir = mkdtempSync(join(tmpdir(), "core-deploy-events-"))

const layerOn = (driver: "pglite" | "pg") =>
  Layer.mergeAll(DeployJobs, DeploymentsRepo.Default).pipe(
    Layer.provideMerge(Layer.mergeAll(refusingEdge, BuildReporter.none, OutboxLive.pipe(Layer.provide(EventsRepo.Default)))),
    Layer.provideMerge(Layer.mergeAll(Ids.layer, CoreConfig.layer({ CORE_SECRET: "deploy-events-secret-0123456789abcdef", NODE_ENV: "test", CORE_DATA_DIR: dataDir }))),
    Layer.provideMerge(TestDatabase.layer([DeployMigrations, EventsMigrations], { driver })),
    Layer.orDie
  )

const jobOf = (deploymentId: string, organizationId: string | null): JobRow => {
  const now = new Date()
  return {
    id: `job_${deploymentId}`, type: DEPLOY_SITE, platformId: "plt_dep", organizationId, payload: { deploymentId },
    status: "RUNNING", attempts: 1, maxAttempts: 3, runAt: now, leaseUntil: null, lockedBy: "w", progress: 0, steps: [], result: null,
    error: null, startedAt: now, finishedAt: null, createdAt: now, updatedAt: now
  }
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe.each(TestDatabase.drivers)("deployment events on %s", (driver) => {
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof layerOn>>, never>
  beforeAll(() => {
    runtime = ManagedRuntime.make(layerOn(driver))
  })
  afterAll(() => runtime?.dispose())

  const deployment = (id: string) =>
    runtime.runPromise(Effect.flatMap(DeploymentsRepo, (repo) =>
      repo.insert({
        id, platformId: "plt_dep", projectName: `site-${id.slice(-6).toLowerCase()}`, branch: "main", environment: "production", status: "queued",
        source: "upload", manifest: {}, fileCount: 0, uploadBytes: 0, userId: null, edgeDeploymentId: null, url: null, errorMessage: null,
        jobId: `job_${id}`, startedAt: null, completedAt: null, createdAt: Date.now()
      })))
  const runJob = (deploymentId: string, organizationId: string | null) =>
    runtime.runPromise(Effect.flatMap(JobHandlers, (handlers) => handlers.get(DEPLOY_SITE)!.run(jobOf(deploymentId, organizationId), context)))
  const toldOf = (deploymentId: string) =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<Record<string, unknown>>`SELECT type, organization_id, platform_id, data FROM events.outbox WHERE data->>'deploymentId' = ${deploymentId} ORDER BY seq`))
      .then((rows) => rows.map((row) => ({ type: row.type, organizationId: row.organization_id, platformId: row.platform_id, data: Rows.jsonObject(row.data) })))
  const recordOf = (deploymentId: string) =>
    runtime.runPromise(Effect.flatMap(DeploymentsRepo, (repo) =>
      Effect.flatMap(repo.findById(deploymentId), (row) => Effect.map(repo.liveOf("plt_dep"), (live) => toRecord(Option.getOrThrow(row), live)))))

  it("a deployment the edge refuses ends `failure` with deployment.failed; one of no organization records none", async () => {
    const id = `dep_FAIL${driver.toUpperCase()}${Date.now()}`
    await deployment(id)
    expect(await runJob(id, "org_dep")).toEqual({ status: "failure", deploymentId: id })
    const told = await toldOf(id)
    expect(told).toEqual([{ type: "deployment.failed", organizationId: "org_dep", platformId: "plt_dep", data: await recordOf(id) }])
    expect(told[0].data).toMatchObject({ deploymentId: id, status: "failure", errorMessage: "the edge refused the project", live: false })
    expect(Events.EVENT_CATALOGUE["deployment.failed"].data.safeParse(told[0].data).success).toBe(true)

    const internal = `dep_NONE${driver.toUpperCase()}${Date.now()}`
    await deployment(internal)
    expect(await runJob(internal, null)).toEqual({ status: "failure", deploymentId: internal })
    expect(await toldOf(internal)).toEqual([])
  }, 30_000)
})
