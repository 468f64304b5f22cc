import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { type JobHandler, JobFailed, JobHandlers } from "./JobHandlers.js"
import type { JobRow } from "./Jobs.js"
import { makeTestJobRunsRepo } from "./TestJobRunsRepo.js"
import { WorkerConfig } from "./WorkerConfig.js"

/**
 * TEST-ONLY job types (decision 0305), registered only when `CORE_TEST_JOB_TYPES=1`: the
 * reliability tests (`tests/provisioning-reliability.test.ts`) and the queue benchmark enqueue
 * them into real `core-server worker` processes. With `record: true` in its payload a job writes one
 * row per run of a step into `public.core_test_job_runs (job_id text, step text, pid integer,
 * at timestamptz DEFAULT now())`, which the test creates: the side effect that counts runs.
 *
 * - `test.noop`: nothing (step `run` recorded when `record`).
 * - `test.steps`: step `first`, then step `second` that records `second-start`, sleeps `sleepMs`
 *   and records `second` — a job killed during the sleep shows which steps ran again.
 * - `test.sleep`: sleeps `ms` (interruptible), then records `done`.
 * - `test.fail`: always fails (its attempts are the enqueued job's).
 */
export const TEST_NOOP = "test.noop"
export const TEST_STEPS = "test.steps"
export const TEST_SLEEP = "test.sleep"
export const TEST_FAIL = "test.fail"

const numberOf = (job: JobRow, field: string, fallback: number): number => {
  const value = job.payload[field]
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.min(value, 600_000) : fallback
}

/** The test job types over the process's database. */
export const TestJobsLive: Layer.Layer<JobHandlers, never, SqlClient.SqlClient> = Layer.effect(
  JobHandlers,
  Effect.gen(function*() {
    const runs = makeTestJobRunsRepo(yield* SqlClient.SqlClient)
    const record = (job: JobRow, step: string) =>
      job.payload.record === true
        ? runs.record(job.id, step, process.pid).pipe(
          Effect.asVoid,
          Effect.mapError((error) => new JobFailed({ message: `test job could not record ${step}: ${error.message}` }))
        )
        : Effect.void
    const noop: JobHandler = { run: (job) => record(job, "run") }
    const steps: JobHandler = {
      run: (job, context) =>
        Effect.gen(function*() {
          yield* context.step("first", record(job, "first"))
          yield* context.step(
            "second",
            Effect.zipRight(record(job, "second-start"), Effect.zipRight(Effect.sleep(Duration.millis(numberOf(job, "sleepMs", 0))), record(job, "second")))
          )
        })
    }
    const sleep: JobHandler = {
      run: (job) => Effect.zipRight(Effect.sleep(Duration.millis(numberOf(job, "ms", 0))), record(job, "done"))
    }
    const fail: JobHandler = {
      run: (job) => Effect.zipRight(record(job, "run"), Effect.fail(new JobFailed({ message: "test.fail always fails" })))
    }
    return new Map([[TEST_NOOP, noop], [TEST_STEPS, steps], [TEST_SLEEP, sleep], [TEST_FAIL, fail]])
  })
)

/** The test job types when `CORE_TEST_JOB_TYPES=1` (`WorkerConfig.testJobTypes`), else none. */
export const TestJobsIfEnabled: Layer.Layer<JobHandlers, never, SqlClient.SqlClient> = Layer.unwrapEffect(
  Effect.map(Effect.serviceOption(WorkerConfig), (config) =>
    config._tag === "Some" && config.value.testJobTypes ? TestJobsLive : JobHandlers.layer({}))
)
