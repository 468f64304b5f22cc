import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import { COLUMNS, type JobRow, type JobStep, toRow } from "./Jobs.js"

/**
 * The SQL of the worker's side of the queue (`provisioning.jobs`): claim, extend, finish. Every
 * change after the claim is guarded by `locked_by`, so a worker whose lease ran out (and whose job
 * another worker took) changes nothing any more.
 */
export const makeQueueRepo = (sql: SqlClient.SqlClient) => {
  /**
   * The worker's two hot statements call the functions of migration 0005, whose plans the session
   * keeps (decision 0336); `$1` the worker, `$2` the lease's end, `$3` now. The claim: a lapsed
   * lease first, else the earliest due queued job whose target is free, `FOR UPDATE SKIP LOCKED`
   * (decisions 0286, 0308); a statement that takes a job commits without waiting for its WAL to
   * reach the disk (decision 0332). Every change after the claim is guarded by `locked_by`.
   */
  const claimText = `SELECT ${COLUMNS} FROM provisioning.claim_job($1, $2, $3)`
  const completeAndClaimText = `SELECT ${COLUMNS} FROM provisioning.complete_and_claim_job($5, $4::jsonb, $1, $2, $3)`
  const columns = sql.literal(COLUMNS)
  const taken = (statement: Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError>): Effect.Effect<Option.Option<JobRow>> =>
    statement.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRow)), Effect.orDie)
  return {
    /** Take the next due job (`provisioning.claim_job`). */
    claim: (workerId: string, now: Date, leaseUntil: Date): Effect.Effect<Option.Option<JobRow>> =>
      taken(sql.unsafe<Record<string, unknown>>(claimText, [workerId, leaseUntil, now])),
    /**
     * Complete job `id` and take the next due job, in one statement and one round trip (decision
     * 0330): what a worker does after each job that succeeded. The claim runs after the completion
     * and sees it, so a job that waited for `id`'s target may be the one it takes (decision 0336).
     */
    completeAndClaim: (
      id: string,
      workerId: string,
      result: Record<string, unknown>,
      now: Date,
      leaseUntil: Date
    ): Effect.Effect<Option.Option<JobRow>> =>
      taken(sql.unsafe<Record<string, unknown>>(completeAndClaimText, [workerId, leaseUntil, now, JSON.stringify(result), id])),
    /** Record the steps and progress so far. */
    saveSteps: (id: string, workerId: string, steps: ReadonlyArray<JobStep>, progress: number, now: Date) =>
      sql`UPDATE provisioning.jobs SET steps = ${JSON.stringify(steps)}::jsonb, progress = ${progress}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`.pipe(Effect.asVoid, Effect.orDie),
    /** Complete job `id`; answers the job after it, `none` when it was no longer this worker's. */
    complete: (id: string, workerId: string, result: Record<string, unknown>, now: Date): Effect.Effect<Option.Option<JobRow>> =>
      taken(sql`UPDATE provisioning.jobs SET status = 'COMPLETED', result = ${JSON.stringify(result)}::jsonb, progress = 1,
          error = NULL, lease_until = NULL, finished_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING' RETURNING ${columns}`),
    /**
     * Extend the leases of the jobs this worker runs (one statement for all of them); answers the
     * ids that are still its own — a job missing was cancelled, force-completed or taken over.
     */
    heartbeatAll: (ids: ReadonlyArray<string>, workerId: string, leaseUntil: Date, now: Date): Effect.Effect<ReadonlySet<string>> =>
      sql<{ readonly id: string }>`UPDATE provisioning.jobs SET lease_until = ${leaseUntil}, updated_at = ${now}
        WHERE ${sql.in("id", ids)} AND locked_by = ${workerId} AND status = 'RUNNING' RETURNING id`.pipe(
        Effect.map((rows) => new Set(rows.map((row) => row.id))),
        Effect.orDie
      ),
    /**
     * Queue the job again at `retryAt`, or fail it for good when `retryAt` is `undefined`; answers
     * the job after it, `none` when it was no longer this worker's.
     */
    fail: (id: string, workerId: string, error: string, now: Date, retryAt: Date | undefined): Effect.Effect<Option.Option<JobRow>> =>
      taken(retryAt === undefined
        ? sql`UPDATE provisioning.jobs SET status = 'FAILED', error = ${error}, lease_until = NULL, finished_at = ${now},
            updated_at = ${now} WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING' RETURNING ${columns}`
        : sql`UPDATE provisioning.jobs SET status = 'QUEUED', error = ${error}, lease_until = NULL, locked_by = NULL,
            run_at = ${retryAt}, updated_at = ${now} WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'
          RETURNING ${columns}`),
    /** The jobs waiting and running now, by state and type (`core_job_queue_depth`, read when scraped). */
    depth: (): Effect.Effect<ReadonlyArray<{ readonly state: string; readonly type: string; readonly count: number }>> =>
      sql<{ readonly state: string; readonly type: string; readonly count: number }>`SELECT status AS state, type, count(*)::int AS count
        FROM provisioning.jobs WHERE status IN ('QUEUED', 'RUNNING') GROUP BY status, type`.pipe(Effect.orDie),
    /** Give a job back at shutdown: queued again at once, this attempt not counted. */
    release: (id: string, workerId: string, now: Date) =>
      sql`UPDATE provisioning.jobs SET status = 'QUEUED', attempts = GREATEST(attempts - 1, 0), lease_until = NULL,
          locked_by = NULL, run_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`.pipe(Effect.asVoid, Effect.orDie)
  }
}

/** The queue's operations over one client. */
export type QueueRepo = ReturnType<typeof makeQueueRepo>
