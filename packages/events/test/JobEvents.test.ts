import { Events } from "@core/contracts"
import { Ids, Rows } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { until } from "@core/kernel/testing/poll"
import { JobControls, JobFailed, type JobHandler, JobHandlers, Jobs, ProvisioningMigrations, Worker } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventsMigrations, EventsRepo, OutboxLive, WEBHOOK_DELIVER } from "../src/index.js"

/**
 * The provisioning queue's final-state writes record their events with the real outbox, on PGlite
 * and PostgreSQL: a job of an organization tells `job.succeeded`, `job.failed` (an attempt to be
 * retried, or an operator's cancel) and `job.dead_lettered`, each with the job as
 * `GET /api/v1/provision/jobs/{jobId}` answers it after the write; internal jobs (no organization,
 * the webhook deliveries) and refused controls record nothing.
 */
const handlers: Record<string, JobHandler> = {
  "test.ok": { run: (_job, context) => Effect.as(context.step("work", Effect.void), { done: true }) },
  "test.boom": { retryDelayMs: () => 0, run: () => Effect.fail(new JobFailed({ message: "boom" })) },
  "test.block": { run: () => Effect.never },
  [WEBHOOK_DELIVER]: { run: () => Effect.succeed({ outcome: "delivered" }) }
}

const layerOn = (driver: "pglite" | "pg") =>
  Layer.mergeAll(
    Worker.layer({ pollMs: 30, backoffBaseMs: 10, leaseMs: 1_500 }).pipe(Layer.provide(JobHandlers.layer(handlers))),
    JobControls.Default
  ).pipe(
    Layer.provideMerge(OutboxLive.pipe(Layer.provide(EventsRepo.Default))),
    Layer.provideMerge(Ids.layer),
    Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations, EventsMigrations], { driver })),
    Layer.orDie
  )

interface Told {
  readonly type: string
  readonly organizationId: string
  readonly platformId: string | null
  readonly version: number
  readonly data: Record<string, unknown>
}

describe.each(TestDatabase.drivers)("job events on %s", (driver) => {
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof layerOn>>, never>
  const run = <A>(effect: Effect.Effect<A, unknown, Layer.Layer.Success<ReturnType<typeof layerOn>>>) => runtime.runPromise(effect as Effect.Effect<A, never, any>)
  const enqueue = (type: string, organizationId: string | null, maxAttempts?: number) =>
    run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Jobs.enqueue(sql, { type, platformId: organizationId === null ? null : "plt_jobs", organizationId, payload: { n: 1 }, ...(maxAttempts === undefined ? {} : { maxAttempts }) })))
      .then((job) => job.jobId)
  const jobOf = (id: string) => run(Effect.flatMap(SqlClient.SqlClient, (sql) => Jobs.find(sql, id))).then(Option.getOrThrow)
  const settled = (id: string, status: string) => until(() => jobOf(id), (job) => job.status === status, 15_000)
  const toldOf = (jobId: string) =>
    run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<Record<string, unknown>>`SELECT type, organization_id, platform_id, version, data FROM events.outbox
        WHERE data->>'jobId' = ${jobId} ORDER BY seq`)).then((rows) =>
      rows.map((row): Told => ({
        type: row.type as string,
        organizationId: row.organization_id as string,
        platformId: (row.platform_id as string | null) ?? null,
        version: Number(row.version),
        data: Rows.jsonObject(row.data) ?? {}
      })))
  /** The job as the API answers it now, through JSON as an event carries it. */
  const recordOf = async (id: string) => JSON.parse(JSON.stringify(Jobs.toJobRecord(await jobOf(id)))) as Record<string, unknown>

  beforeAll(() => {
    runtime = ManagedRuntime.make(layerOn(driver))
  })
  afterAll(() => runtime?.dispose())

  it("a completed job of an organization records job.succeeded with the job after the write; internal jobs record none", async () => {
    const told = await enqueue("test.ok", "org_jobs")
    const internal = await enqueue("test.ok", null)
    const delivery = await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Jobs.enqueue(sql, { type: WEBHOOK_DELIVER, platformId: null, organizationId: null, payload: { endpointId: "whe_x", eventId: "evt_x" } }))).then((job) => job.jobId)
    for (const id of [told, internal, delivery]) await settled(id, "COMPLETED")

    const events = await until(() => toldOf(told), (found) => found.length > 0, 5_000)
    expect(events).toEqual([{ type: "job.succeeded", organizationId: "org_jobs", platformId: "plt_jobs", version: 1, data: await recordOf(told) }])
    expect(events[0].data).toMatchObject({ jobId: told, type: "test.ok", status: "COMPLETED", progress: 1, result: { done: true }, error: null })
    expect(Events.EVENT_CATALOGUE["job.succeeded"].data.safeParse(events[0].data).success).toBe(true)
    expect(await toldOf(internal)).toEqual([])
    expect(await toldOf(delivery)).toEqual([])
    const deliveries = await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ n: unknown }>`SELECT count(*) AS n FROM events.outbox WHERE type LIKE 'job.%' AND data->>'type' = ${WEBHOOK_DELIVER}`))
    expect(Number(deliveries[0].n)).toBe(0)
  }, 30_000)

  it("a failed attempt records job.failed (queued again, its error), the last one job.dead_lettered (FAILED)", async () => {
    const id = await enqueue("test.boom", "org_jobs", 2)
    await settled(id, "FAILED")
    const events = await until(() => toldOf(id), (found) => found.length >= 2, 5_000)
    expect(events.map((event) => [event.type, event.data.status, event.data.attempts, event.data.error])).toEqual([
      ["job.failed", "QUEUED", 1, "boom"],
      ["job.dead_lettered", "FAILED", 2, "boom"]
    ])
    expect(events[1].data).toEqual(await recordOf(id))
    const dead = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: unknown }>`SELECT count(*) AS n FROM provisioning.dead_letters WHERE job_id = ${id}`))
    expect(Number(dead[0].n)).toBe(1)
  }, 30_000)

  it("an operator's cancel records job.failed and a force-complete job.succeeded, in their transactions; a refused control records none", async () => {
    const id = await enqueue("test.block", "org_jobs")
    await settled(id, "RUNNING")
    await run(Effect.flatMap(JobControls, (controls) => controls.cancel({ kind: "service" }, id, "not today")))
    await settled(id, "FAILED")
    await run(Effect.flatMap(JobControls, (controls) => controls.forceComplete({ kind: "service" }, id)))
    const events = await toldOf(id)
    expect(events.map((event) => [event.type, event.data.status, event.data.error])).toEqual([
      ["job.failed", "FAILED", "not today"],
      ["job.succeeded", "COMPLETED", "not today"]
    ])
    expect(events[1].data).toEqual(await recordOf(id))
    expect(events[1].data.result).toEqual({ forced: true })
    // COMPLETED cannot be cancelled: the control fails, its transaction records nothing.
    const refused = await run(Effect.either(Effect.flatMap(JobControls, (controls) => controls.cancel({ kind: "service" }, id))))
    expect(refused._tag).toBe("Left")
    expect(await toldOf(id)).toHaveLength(2)
  }, 30_000)
})
