import { Ids, Metrics } from "@core/kernel"
import { TestDatabase, until } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Layer, Scope } from "effect"
import * as Prometheus from "../../../tests/support/prometheus.js"
import { JobFailed, type JobHandler, JobHandlers, Jobs, ProvisioningMigrations, Worker } from "../src/index.js"

/** The process's metrics as a scraper reads them. */
const scrape = Effect.promise(async () => Prometheus.parse(await Metrics.render()))

const statusOf = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ status: string }>`SELECT status FROM provisioning.jobs WHERE id = ${id}`).pipe(
    Effect.map((rows) => rows[0]?.status)
  )

describe("the job queue's metrics (PGlite)", () => {
  const live = Layer.mergeAll(Ids.layer, TestDatabase.layer([ProvisioningMigrations], { driver: "pglite" }))

  layer(live, { timeout: 30_000, excludeTestServices: true })((it) => {
    it.effect("count attempts by type and outcome, dead letters, waits and run durations, and read the depth by state and type", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const runPromise = Effect.runPromise
        const release = yield* Deferred.make<void>()
        const handlers: Record<string, JobHandler> = {
          metrics_ok: { run: () => Effect.succeed({ ok: true }) },
          metrics_dead: { maxAttempts: 1, run: () => Effect.fail(new JobFailed({ message: "always broken" })) },
          metrics_slow: { run: () => Effect.as(Deferred.await(release), { ok: true }) }
        }
        const before = yield* scrape
        const ok = yield* Jobs.enqueue(sql, { type: "metrics_ok", platformId: null, payload: {} })
        const dead = yield* Jobs.enqueue(sql, { type: "metrics_dead", platformId: null, payload: {} })
        // Two jobs of one target: the second waits QUEUED while the first runs.
        const slow = yield* Jobs.enqueue(sql, { type: "metrics_slow", platformId: null, payload: {}, target: "tgt_metrics" })
        const behind = yield* Jobs.enqueue(sql, { type: "metrics_slow", platformId: null, payload: {}, target: "tgt_metrics" })
        yield* Effect.scoped(Effect.gen(function*() {
          yield* Layer.buildWithScope(Worker.layer({ pollMs: 20 }).pipe(Layer.provide(JobHandlers.layer(handlers))), yield* Scope.Scope)
          const settled = (id: string, status: string) => runPromise(statusOf(id).pipe(Effect.provideService(SqlClient.SqlClient, sql))).then((s) => s === status)
          yield* Effect.promise(() => until(async () => (await settled(ok.jobId, "COMPLETED")) && (await settled(dead.jobId, "FAILED")) && (await settled(slow.jobId, "RUNNING")), Boolean, 10_000))
          const during = yield* scrape
          expect(Prometheus.valueOf(during, "core_job_queue_depth", { state: "RUNNING", job_type: "metrics_slow" })).toBe(1)
          expect(Prometheus.valueOf(during, "core_job_queue_depth", { state: "QUEUED", job_type: "metrics_slow" })).toBe(1)
          expect(Prometheus.seriesOf(during, "core_job_queue_depth", { job_type: "metrics_ok" })).toEqual([])
          yield* Deferred.succeed(release, undefined)
          yield* Effect.promise(() => until(() => settled(behind.jobId, "COMPLETED"), Boolean, 10_000))
        }))
        const after = yield* scrape
        const delta = (name: string, labels: Record<string, string>) => Prometheus.valueOf(after, name, labels) - Prometheus.valueOf(before, name, labels)
        expect(delta("core_job_attempts_total", { job_type: "metrics_ok", outcome: "succeeded" })).toBe(1)
        expect(delta("core_job_attempts_total", { job_type: "metrics_dead", outcome: "dead_lettered" })).toBe(1)
        expect(delta("core_job_attempts_total", { job_type: "metrics_slow", outcome: "succeeded" })).toBe(2)
        expect(delta("core_job_dead_letters_total", { job_type: "metrics_dead" })).toBe(1)
        expect(delta("core_job_dead_letters_total", { job_type: "metrics_ok" })).toBe(0)
        expect(delta("core_job_queue_wait_seconds", { job_type: "metrics_slow" })).toBe(2)
        expect(delta("core_job_run_duration_seconds", { job_type: "metrics_ok", outcome: "succeeded" })).toBe(1)
        const [run] = Prometheus.seriesOf(after, "core_job_run_duration_seconds", { job_type: "metrics_slow", outcome: "succeeded" })
        expect(Number(run.sum)).toBeGreaterThan(0)
        // Once the worker stopped, nothing reads the depth: the gauge has no series.
        expect(Prometheus.seriesOf(after, "core_job_queue_depth")).toEqual([])
        expect(Prometheus.typeOf(after, "core_job_leases_lost_total")).toBe("COUNTER")
      }), 30_000)
  })
})
