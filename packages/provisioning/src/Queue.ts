import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import { COLUMNS, type JobRow, type JobStep, toRow } from "./Jobs.js"

/**
 * The worker's side of the queue: claim, extend, finish. Every change after the claim is guarded
 * by `locked_by`, so a worker whose lease ran out (and whose job another worker took) changes
 * nothing any more.
 */
export const makeQueue = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(COLUMNS)
  /**
   * Take the next due job: a queued one whose `run_at` has come, or a running one whose lease
   * ended (its worker crashed). `FOR UPDATE SKIP LOCKED`: two workers never take one job. A job
   * with a `target` waits while an earlier job of that target is unfinished (decision 0286).
   * Two index probes, not one scan of every due job sorted: a lapsed lease first (`jobs_leased_idx`),
   * else the earliest due queued job (`jobs_queued_idx`); COALESCE runs the second only when the
   * first finds none (decision 0308). `except`: the job the same statement completes.
   */
  const claiming = (workerId: string, now: Date, leaseUntil: Date, except: string | null) =>
    sql`UPDATE provisioning.jobs SET status = 'RUNNING', attempts = attempts + 1,
          lease_until = ${leaseUntil}, locked_by = ${workerId}, started_at = COALESCE(started_at, ${now}), updated_at = ${now}
        WHERE id = COALESCE(
          (SELECT id FROM provisioning.jobs WHERE status = 'RUNNING' AND lease_until < ${now}
            ${except === null ? sql`` : sql`AND id <> ${except}`}
            ORDER BY lease_until LIMIT 1 FOR UPDATE SKIP LOCKED),
          (SELECT id FROM provisioning.jobs j
            WHERE status = 'QUEUED' AND run_at <= ${now}
              AND (j.target IS NULL OR NOT EXISTS (
                SELECT 1 FROM provisioning.jobs e
                WHERE e.target = j.target AND e.status IN ('QUEUED', 'RUNNING') AND (e.created_at, e.id) < (j.created_at, j.id)))
            ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        )
        RETURNING ${columns}`
  const completing = (id: string, workerId: string, result: Record<string, unknown>, now: Date) =>
    sql`UPDATE provisioning.jobs SET status = 'COMPLETED', result = ${JSON.stringify(result)}::jsonb, progress = 1,
          error = NULL, lease_until = NULL, finished_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`
  const taken = (statement: Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError>): Effect.Effect<Option.Option<JobRow>> =>
    statement.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRow)), Effect.orDie)
  return {
    /** Take the next due job (`claiming`). */
    claim: (workerId: string, now: Date, leaseUntil: Date): Effect.Effect<Option.Option<JobRow>> =>
      taken(sql<Record<string, unknown>>`${claiming(workerId, now, leaseUntil, null)}`),
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
      taken(sql<Record<string, unknown>>`WITH completed AS (${completing(id, workerId, result, now)} RETURNING id)
        ${claiming(workerId, now, leaseUntil, id)}`),
    /** Extend the lease while the handler runs; `false` when the job is no longer this worker's. */
    heartbeat: (id: string, workerId: string, leaseUntil: Date, now: Date): Effect.Effect<boolean> =>
      sql`UPDATE provisioning.jobs SET lease_until = ${leaseUntil}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING' RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    /** Record the steps and progress so far. */
    saveSteps: (id: string, workerId: string, steps: ReadonlyArray<JobStep>, progress: number, now: Date) =>
      sql`UPDATE provisioning.jobs SET steps = ${JSON.stringify(steps)}::jsonb, progress = ${progress}, updated_at = ${now}
        WHERE id = ${id} AND locked_by = ${workerId} AND status = 'RUNNING'`.pipe(Effect.asVoid, Effect.orDie),
    complete: (id: string, workerId: string, result: Record<string, unknown>, now: Date) =>
      sql`${completing(id, workerId, result, now)}`.pipe(Effect.asVoid, Effect.orDie),
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
