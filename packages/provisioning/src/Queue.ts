import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import { COLUMNS, type JobRow, type JobStep, toRow } from "./Jobs.js"

/**
 * Take the next due job: a queued one whose `run_at` has come, or a running one whose lease ended
 * (its worker crashed). `FOR UPDATE SKIP LOCKED`: two workers never take one job. A job with a
 * `target` waits while an earlier job of that target is unfinished (decision 0286). Two index
 * probes, not one scan of every due job sorted: a lapsed lease first (`jobs_leased_idx`), else the
 * earliest due queued job (`jobs_queued_idx`); COALESCE runs the second only when the first finds
 * none (decision 0308). With `except`, never job `$5` (the one the same statement completes).
 * A statement that takes a job commits without waiting for its WAL to reach the disk
 * (`synchronous_commit` off for its own transaction only; decision 0332): a database crash can
 * undo the last moments of claims and completions, which only runs those jobs again.
 */
const claimSql = (except: boolean) => `UPDATE provisioning.jobs SET status = 'RUNNING', attempts = attempts + 1,
      lease_until = $2, locked_by = $1, started_at = COALESCE(started_at, $3), updated_at = $3
    WHERE id = COALESCE(
      (SELECT id FROM provisioning.jobs WHERE status = 'RUNNING' AND lease_until < $3${except ? " AND id <> $5" : ""}
        ORDER BY lease_until LIMIT 1 FOR UPDATE SKIP LOCKED),
      (SELECT id FROM provisioning.jobs j
        WHERE status = 'QUEUED' AND run_at <= $3
          AND (j.target IS NULL OR NOT EXISTS (
            SELECT 1 FROM provisioning.jobs e
            WHERE e.target = j.target AND e.status IN ('QUEUED', 'RUNNING') AND (e.created_at, e.id) < (j.created_at, j.id)))
        ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    )
    AND set_config('synchronous_commit', 'off', true) IS NOT NULL
    RETURNING ${COLUMNS}`

/**
 * The worker's side of the queue: claim, extend, finish. Every change after the claim is guarded
 * by `locked_by`, so a worker whose lease ran out (and whose job another worker took) changes
 * nothing any more.
 */
export const makeQueue = (sql: SqlClient.SqlClient) => {
  /**
   * The worker's two hot statements, written once as text (decision 0330): compiled per call from
   * nested fragments they cost more CPU than the database spends on them. `$1` the worker, `$2` the
   * lease's end, `$3` now; `$4` the result and `$5` the job completed by the same statement.
   */
  const claimText = claimSql(false)
  const completeAndClaimText = `WITH completed AS (UPDATE provisioning.jobs SET status = 'COMPLETED', result = $4::jsonb, progress = 1,
      error = NULL, lease_until = NULL, finished_at = $3, updated_at = $3
    WHERE id = $5 AND locked_by = $1 AND status = 'RUNNING' RETURNING id)
  ${claimSql(true)}`
  const taken = (statement: Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError>): Effect.Effect<Option.Option<JobRow>> =>
    statement.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRow)), Effect.orDie)
  return {
    /** Take the next due job (`claimSql`). */
    claim: (workerId: string, now: Date, leaseUntil: Date): Effect.Effect<Option.Option<JobRow>> =>
      taken(sql.unsafe<Record<string, unknown>>(claimText, [workerId, leaseUntil, now])),
    /**
     * Complete job `id` and take the next due job, in one statement and one round trip (decision
     * 0330): what a worker does after each job that succeeded. The completion is a CTE, which
     * PostgreSQL runs whether or not a job is taken; both see the statement's snapshot, so a job
     * that waits for `id`'s target stays waiting until the next claim sees `id` completed.
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
    complete: (id: string, workerId: string, result: Record<string, unknown>, now: Date) =>
      sql`UPDATE provisioning.jobs SET status = 'COMPLETED', result = ${JSON.stringify(result)}::jsonb, progress = 1,
          error = NULL, lease_until = NULL, finished_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`.pipe(Effect.asVoid, Effect.orDie),
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
    /** Queue the job again at `retryAt`, or fail it for good when `retryAt` is `undefined`. */
    fail: (id: string, workerId: string, error: string, now: Date, retryAt: Date | undefined) =>
      (retryAt === undefined
        ? sql`UPDATE provisioning.jobs SET status = 'FAILED', error = ${error}, lease_until = NULL, finished_at = ${now},
            updated_at = ${now} WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`
        : sql`UPDATE provisioning.jobs SET status = 'QUEUED', error = ${error}, lease_until = NULL, locked_by = NULL,
            run_at = ${retryAt}, updated_at = ${now} WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`
      ).pipe(Effect.asVoid, Effect.orDie),
    /** Give a job back at shutdown: queued again at once, this attempt not counted. */
    release: (id: string, workerId: string, now: Date) =>
      sql`UPDATE provisioning.jobs SET status = 'QUEUED', attempts = GREATEST(attempts - 1, 0), lease_until = NULL,
          locked_by = NULL, run_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`.pipe(Effect.asVoid, Effect.orDie)
  }
}

/** The queue's operations over one client. */
export type Queue = ReturnType<typeof makeQueue>
