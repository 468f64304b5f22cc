import { Events } from "@core/contracts"
import { Ids, Rows } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { until } from "@core/kernel/testing/poll"
import { JobControls, JobFailed, type JobHandler, JobHandlers, Jobs, ProvisioningMigrations, Worker } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventsConfig, EventsMigrations, EventsRepo, OutboxLive, Relay, WEBHOOK_DELIVER } from "../src/index.js"

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
  "test.quick": { run: () => Effect.void },
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

/**
 * On PostgreSQL, with real concurrency: 1,000 jobs of an organization completed by eight worker
 * slots give 1,000 `job.succeeded` events, one per job; two relays draining at once fan each out
 * exactly once (one delivery job per event for the organization's endpoint).
 */
describe.skipIf(TestDatabase.url === undefined)("job events under concurrency on pg", () => {
  // Built in beforeAll: on PGlite the describe is skipped, and a PostgreSQL layer cannot be made there.
  const makeLayer = () => Layer.mergeAll(
    Worker.layer({ concurrency: 8, pollMs: 30, leaseMs: 5_000 }).pipe(Layer.provide(JobHandlers.layer(handlers))),
    Relay.Default
  ).pipe(
    Layer.provideMerge(OutboxLive.pipe(Layer.provide(EventsRepo.Default))),
    Layer.provideMerge(Layer.mergeAll(Ids.layer, EventsConfig.layer({}))),
    Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations, EventsMigrations], { driver: "pg" })),
    Layer.orDie
  )
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof makeLayer>>, never>
  beforeAll(() => {
    runtime = ManagedRuntime.make(makeLayer())
  })
  afterAll(() => runtime?.dispose())
  const count = (text: string) =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<{ n: unknown }>(text))).then((rows) => Number(rows[0].n))

  it("1,000 concurrent completions record 1,000 events, none lost or doubled, each dispatched once", async () => {
    await runtime.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO events.endpoints (id, organization_id, platform_id, url, description, event_types, enabled, secret, created_at, updated_at)
        VALUES ('whe_bulk', 'org_bulk', NULL, 'https://93.184.215.14/bulk', '', '["job.succeeded"]'::jsonb, true, 'enc.v1.unused', now(), now())`
      yield* sql`INSERT INTO provisioning.jobs (id, type, platform_id, organization_id, payload, status, max_attempts, run_at, created_at, updated_at)
        SELECT 'job_bulk_' || lpad(n::text, 6, '0'), 'test.quick', 'plt_bulk', 'org_bulk', '{}'::jsonb, 'QUEUED', 5, now(), now(), now()
        FROM generate_series(1, 1000) AS n`
      yield* sql`SELECT pg_notify('core_provisioning_jobs', 'bulk')`
    }))
    await until(() => count(`SELECT count(*) AS n FROM provisioning.jobs WHERE id LIKE 'job_bulk_%' AND status = 'COMPLETED'`), (n) => n === 1_000, 60_000)
    expect(await count(`SELECT count(*) AS n FROM events.outbox WHERE organization_id = 'org_bulk' AND type = 'job.succeeded'`)).toBe(1_000)
    expect(await count(`SELECT count(DISTINCT data->>'jobId') AS n FROM events.outbox WHERE organization_id = 'org_bulk'`)).toBe(1_000)
    const drained = await runtime.runPromise(Effect.flatMap(Relay, (relay) => Effect.all([relay.drain(), relay.drain()], { concurrency: 2 })))
    expect(drained[0] + drained[1]).toBeGreaterThanOrEqual(1_000)
    expect(await count(`SELECT count(*) AS n FROM events.outbox WHERE organization_id = 'org_bulk' AND dispatched_seq IS NULL`)).toBe(0)
    expect(await count(`SELECT count(*) AS n FROM provisioning.jobs WHERE type = '${WEBHOOK_DELIVER}' AND payload->>'endpointId' = 'whe_bulk'`)).toBe(1_000)
    expect(await count(`SELECT count(DISTINCT payload->>'eventId') AS n FROM provisioning.jobs WHERE type = '${WEBHOOK_DELIVER}' AND payload->>'endpointId' = 'whe_bulk'`)).toBe(1_000)
  }, 120_000)
})
