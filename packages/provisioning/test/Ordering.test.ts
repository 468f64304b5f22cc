import { Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Layer, Scope } from "effect"
import { JobFailed, type JobHandler, JobHandlers, Jobs, ProvisioningMigrations, Targets, Worker } from "../src/index.js"

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

const statuses = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; status: string }>`SELECT id, status FROM provisioning.jobs WHERE id IN ${sql.in(ids)}`).pipe(
    Effect.map((rows) => ids.map((id) => rows.find((row) => row.id === id)?.status))
  )

/** Per-target ordering (decision 0286): jobs of one target run one at a time, in the order enqueued. */
for (const driver of TestDatabase.drivers) {
  describe(`jobs of one target on ${driver}`, () => {
    const live = Layer.mergeAll(Ids.layer, TestDatabase.layer([ProvisioningMigrations], { driver }))

    layer(live, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a deactivation queued behind a running activation waits for it; other targets and untargeted jobs run meanwhile", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const release = yield* Deferred.make<void>()
          const order: Array<string> = []
          const handler = (name: string, gate?: Deferred.Deferred<void>): JobHandler => ({
            run: (job) =>
              Effect.gen(function*() {
                order.push(`${name}:start:${String(job.payload.n)}`)
                if (gate !== undefined) yield* Deferred.await(gate)
                order.push(`${name}:end:${String(job.payload.n)}`)
              })
          })
          const target = Targets.feature("plt_1", "ent_1", "search", "prod")
          const activate = yield* Jobs.enqueue(sql, { type: "activate", platformId: "plt_1", payload: { n: 1 }, target })
          const deactivate = yield* Jobs.enqueue(sql, { type: "deactivate", platformId: "plt_1", payload: { n: 2 }, target })
          const other = yield* Jobs.enqueue(sql, { type: "deactivate", platformId: "plt_1", payload: { n: 3 }, target: Targets.feature("plt_1", "ent_1", "chat", "prod") })
          const free = yield* Jobs.enqueue(sql, { type: "deactivate", platformId: "plt_1", payload: { n: 4 } })
          const ids = [activate.jobId, deactivate.jobId, other.jobId, free.jobId]
          yield* Effect.scoped(Effect.gen(function*() {
            const scope = yield* Scope.Scope
            yield* Layer.buildWithScope(
              Worker.layer({ pollMs: 20, concurrency: 4 }).pipe(Layer.provide(JobHandlers.layer({
                activate: handler("activate", release),
                deactivate: handler("deactivate")
              }))),
              scope
            )
            // The activation runs (held), the other target's job and the untargeted one complete; the deactivation waits.
            yield* waitFor(statuses(ids), (s) => s[0] === "RUNNING" && s[2] === "COMPLETED" && s[3] === "COMPLETED")
            yield* Effect.sleep(Duration.millis(300))
            expect(yield* statuses(ids)).toEqual(["RUNNING", "QUEUED", "COMPLETED", "COMPLETED"])
            yield* Deferred.succeed(release, undefined)
            yield* waitFor(statuses(ids), (s) => s.every((status) => status === "COMPLETED"))
          }))
          expect(order.indexOf("activate:end:1")).toBeLessThan(order.indexOf("deactivate:start:2"))
          yield* sql`DELETE FROM provisioning.jobs`
        }), 30_000)

      it.effect("a failed job does not hold its target: the next one runs; a job waiting for a retry does", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const target = Targets.app("plt_1", "web")
          let failures = 0
          const first = yield* Jobs.enqueue(sql, { type: "flaky", platformId: "plt_1", payload: {}, target, maxAttempts: 2 })
          const second = yield* Jobs.enqueue(sql, { type: "after", platformId: "plt_1", payload: {}, target })
          let secondStartedAfterFailures = -1
          yield* Effect.scoped(Effect.gen(function*() {
            const scope = yield* Scope.Scope
            yield* Layer.buildWithScope(
              Worker.layer({ pollMs: 20, concurrency: 2, backoffBaseMs: 200, backoffMaxMs: 200 }).pipe(Layer.provide(JobHandlers.layer({
                flaky: { run: () => Effect.sync(() => failures++).pipe(Effect.zipRight(Effect.fail(new JobFailed({ message: "broken" })))) },
                after: { run: () => Effect.sync(() => { secondStartedAfterFailures = failures }) }
              }))),
              scope
            )
            yield* waitFor(statuses([first.jobId, second.jobId]), (s) => s[0] === "FAILED" && s[1] === "COMPLETED")
          }))
          // The second job ran only once the first had failed for good (both attempts).
          expect(secondStartedAfterFailures).toBe(2)
          yield* sql`DELETE FROM provisioning.jobs`
        }), 30_000)

      it.effect("the waiting test of the claim has its index (PostgreSQL's plan names jobs_target_idx)", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          if (driver !== "pg") return
          // With sequential scans ruled out, the probe must still have an index to use: the partial target index.
          const plan = yield* sql.withTransaction(Effect.zipRight(
            sql`SET LOCAL enable_seqscan = off`,
            sql<Record<string, string>>`EXPLAIN SELECT 1 FROM provisioning.jobs e
              WHERE e.target = 'feature:x' AND e.status IN ('QUEUED', 'RUNNING') AND (e.created_at, e.id) < (now(), 'job_z')`
          ))
          expect(plan.map((row) => Object.values(row)[0]).join("\n")).toMatch(/jobs_target_idx/)
        }))
    })
  })
}
