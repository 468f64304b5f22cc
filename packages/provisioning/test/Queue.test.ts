import { Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Scope } from "effect"
import { JobFailed, type JobHandler, JobHandlers, Jobs, ProvisioningMigrations, Worker } from "../src/index.js"

const waitFor = <A, E, R>(check: Effect.Effect<A, E, R>, holds: (a: A) => boolean, ms = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    for (;;) {
      const value = yield* check
      if (holds(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out; last: ${JSON.stringify(value)}`))
      yield* Effect.sleep(Duration.millis(25))
    }
  })

const statusOf = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: string; attempts: number }>`SELECT status, attempts FROM provisioning.jobs WHERE id = ${id}`).pipe(
    Effect.map((rows) => ({ status: rows[0]?.status, attempts: Number(rows[0]?.attempts) }))
  )

/** Run a worker with `handlers` for the duration of `body`. */
const withWorker = <A, E, R>(
  handlers: Record<string, JobHandler>,
  options: Worker.WorkerOptions,
  body: Effect.Effect<A, E, R>
) =>
  Effect.scoped(Effect.gen(function*() {
    const scope = yield* Scope.Scope
    yield* Layer.buildWithScope(Worker.layer(options).pipe(Layer.provide(JobHandlers.layer(handlers))), scope)
    return yield* body
  }))

for (const driver of TestDatabase.drivers) {
  describe(`the job queue on ${driver}`, () => {
    const live = Layer.mergeAll(Ids.layer, TestDatabase.layer([ProvisioningMigrations], { driver }))

    layer(live, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("enqueue inside a rolled-back transaction leaves no job; a committed one is QUEUED", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          let rolledBack = ""
          const failed = yield* sql.withTransaction(Effect.gen(function*() {
            rolledBack = (yield* Jobs.enqueue(sql, { type: "noop", platformId: "plt_x", payload: { a: 1 } })).jobId
            return yield* Effect.fail("abort" as const)
          })).pipe(Effect.flip)
          expect(failed).toBe("abort")
          expect(yield* sql`SELECT id FROM provisioning.jobs WHERE id = ${rolledBack}`).toEqual([])
          const committed = yield* sql.withTransaction(Jobs.enqueue(sql, { type: "noop", platformId: "plt_x", organizationId: "org_a", payload: { a: 1 } }))
          expect(committed).toEqual({ jobId: expect.stringMatching(/^job_[0-9A-Z]{26}$/), status: "QUEUED" })
          const rows = yield* sql`SELECT type, platform_id, organization_id, status, attempts, max_attempts FROM provisioning.jobs WHERE id = ${committed.jobId}`
          expect(rows).toEqual([{ type: "noop", platform_id: "plt_x", organization_id: "org_a", status: "QUEUED", attempts: 0, max_attempts: 5 }])
          yield* sql`DELETE FROM provisioning.jobs`
        }), 30_000)

      it.effect("a worker runs a job to COMPLETED with its steps, progress and result", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const { jobId } = yield* Jobs.enqueue(sql, { type: "greet", platformId: null, payload: { name: "Ada" } })
          const handler: JobHandler = {
            run: (job, context) =>
              Effect.gen(function*() {
                yield* context.step("say", Effect.void)
                yield* context.progress(0.5)
                return { greeting: `hello ${String(job.payload.name)}` }
              })
          }
          yield* withWorker({ greet: handler }, { pollMs: 50 }, waitFor(statusOf(jobId), (s) => s.status === "COMPLETED"))
          const job = Option_get(yield* Jobs.find(sql, jobId))
          expect(job).toMatchObject({ status: "COMPLETED", attempts: 1, progress: 1, result: { greeting: "hello Ada" }, error: null, leaseUntil: null })
          expect(job.steps).toEqual([{ name: "say", status: "completed", startedAt: expect.any(String), finishedAt: expect.any(String), error: null }])
          expect(job.finishedAt).not.toBeNull()
        }), 30_000)

      it.effect("NOTIFY wakes an idle worker at once, long before its next poll", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const quick: JobHandler = { run: () => Effect.succeed({ ok: true }) }
          const elapsed = yield* withWorker({ quick }, { pollMs: 20_000 }, Effect.gen(function*() {
            yield* Effect.sleep(Duration.millis(300))
            const started = Date.now()
            const { jobId } = yield* sql.withTransaction(Jobs.enqueue(sql, { type: "quick", platformId: null, payload: {} }))
            yield* waitFor(statusOf(jobId), (s) => s.status === "COMPLETED", 5_000)
            return Date.now() - started
          }))
          expect(elapsed).toBeLessThan(2_000)
        }), 30_000)

      it.effect("jobs enqueued outside a transaction, many at once, wake idle workers through the shared wake-up (decision 0336)", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const quick: JobHandler = { run: () => Effect.succeed({ ok: true }) }
          const elapsed = yield* withWorker({ quick }, { pollMs: 20_000, concurrency: 2 }, Effect.gen(function*() {
            yield* Effect.sleep(Duration.millis(300))
            const started = Date.now()
            for (let round = 0; round < 3; round++) {
              const jobs = yield* Effect.forEach(Array.from({ length: 10 }), () => Jobs.enqueue(sql, { type: "quick", platformId: null, payload: {} }), {
                concurrency: 10
              })
              for (const { jobId } of jobs) yield* waitFor(statusOf(jobId), (s) => s.status === "COMPLETED", 5_000)
            }
            return Date.now() - started
          }))
          expect(elapsed).toBeLessThan(5_000)
          yield* sql`DELETE FROM provisioning.jobs`
        }), 30_000)

      it.effect("retries a failing job with backoff, and fails it for good once its attempts are spent", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          let flakyRuns = 0
          const flaky: JobHandler = {
            run: () => Effect.suspend(() => (++flakyRuns < 2 ? Effect.fail(new JobFailed({ message: "edge busy" })) : Effect.succeed({ ok: true })))
          }
          const broken: JobHandler = { maxAttempts: 3, run: () => Effect.fail(new JobFailed({ message: "always broken" })) }
          const a = yield* Jobs.enqueue(sql, { type: "flaky", platformId: null, payload: {} })
          const b = yield* Jobs.enqueue(sql, { type: "broken", platformId: null, payload: {} })
          const c = yield* Jobs.enqueue(sql, { type: "unknown", platformId: null, payload: {} })
          yield* withWorker({ flaky, broken }, { pollMs: 20, backoffBaseMs: 50 }, Effect.all([
            waitFor(statusOf(a.jobId), (s) => s.status === "COMPLETED"),
            waitFor(statusOf(b.jobId), (s) => s.status === "FAILED"),
            waitFor(statusOf(c.jobId), (s) => s.status === "FAILED")
          ]))
          expect(yield* statusOf(a.jobId)).toEqual({ status: "COMPLETED", attempts: 2 })
          expect(Option_get(yield* Jobs.find(sql, b.jobId))).toMatchObject({ status: "FAILED", attempts: 3, error: "always broken" })
          expect(Option_get(yield* Jobs.find(sql, c.jobId))).toMatchObject({ status: "FAILED", attempts: 1, error: "No handler for job type unknown" })
        }), 30_000)

      it.effect("a crashed worker's job is taken again once its lease ends, its finished steps not repeated", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const { jobId } = yield* Jobs.enqueue(sql, { type: "two-steps", platformId: null, payload: {} })
          // A worker took it, finished step one, and died: its lease ends in 300 ms.
          yield* sql`UPDATE provisioning.jobs SET status = 'RUNNING', attempts = 1, locked_by = 'dead-worker',
            lease_until = now() + interval '300 milliseconds',
            steps = ${JSON.stringify([{ name: "one", status: "completed", startedAt: "2026-01-01T00:00:00.000Z", finishedAt: "2026-01-01T00:00:01.000Z", error: null }])}::jsonb
            WHERE id = ${jobId}`
          const ran: Array<string> = []
          const handler: JobHandler = {
            run: (_job, context) =>
              Effect.gen(function*() {
                yield* context.step("one", Effect.sync(() => void ran.push("one")))
                yield* context.step("two", Effect.sync(() => void ran.push("two")))
              })
          }
          const started = Date.now()
          yield* withWorker({ "two-steps": handler }, { pollMs: 20, leaseMs: 1_000 }, waitFor(statusOf(jobId), (s) => s.status === "COMPLETED"))
          expect(Date.now() - started).toBeGreaterThanOrEqual(200)
          expect(ran).toEqual(["two"])
          const job = Option_get(yield* Jobs.find(sql, jobId))
          expect(job).toMatchObject({ status: "COMPLETED", attempts: 2 })
          expect(job.lockedBy).not.toBe("dead-worker")
          expect(job.steps.map((s) => [s.name, s.status])).toEqual([["one", "completed"], ["two", "completed"]])
        }), 30_000)

      it.effect("two workers never run one job: 60 jobs, each run exactly once", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const runs = new Map<string, number>()
          const count: JobHandler = {
            run: (job) => Effect.sync(() => void runs.set(job.id, (runs.get(job.id) ?? 0) + 1)).pipe(Effect.zipRight(Effect.sleep(Duration.millis(2))))
          }
          const ids = yield* Effect.forEach(Array.from({ length: 60 }), () =>
            Effect.map(Jobs.enqueue(sql, { type: "count", platformId: null, payload: {} }), (j) => j.jobId))
          const done = sql<{ n: unknown }>`SELECT count(*) AS n FROM provisioning.jobs WHERE type = 'count' AND status = 'COMPLETED'`.pipe(
            Effect.map((rows) => Number(rows[0]?.n))
          )
          yield* withWorker({ count }, { workerId: "w1", pollMs: 10, concurrency: 3 },
            withWorker({ count }, { workerId: "w2", pollMs: 10, concurrency: 3 }, waitFor(done, (n) => n === 60, 30_000)))
          expect(ids.map((id) => runs.get(id))).toEqual(ids.map(() => 1))
          const by = yield* sql<{ lockedBy: string }>`SELECT DISTINCT locked_by AS "lockedBy" FROM provisioning.jobs WHERE type = 'count'`
          expect(by.length).toBeGreaterThanOrEqual(1)
        }), 30_000)
    })
  })
}

function Option_get<A>(option: { _tag: "Some"; value: A } | { _tag: "None" }): A {
  if (option._tag === "None") throw new Error("expected a row")
  return option.value
}
