import type { Provisioning } from "@core/contracts"
import { Ids } from "@core/kernel"
import { SqlClient, type Statement } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { COLUMNS, DEFAULT_MAX_ATTEMPTS, type Enqueued, type JobRow, type NewJob, toRow } from "./Jobs.js"

/** The channel `enqueue` notifies (at commit) so that idle workers claim at once. */
export const CHANNEL = "core_provisioning_jobs"

/**
 * The insert, with `$9` telling it whether to send the wake-up itself (`NOTIFY` at commit: in a
 * caller's transaction, the job and its wake-up exist only if that transaction commits), written
 * once as text (decision 0336). `$7` is the enqueuer's clock: the job's `run_at`, `created_at`
 * and `updated_at`.
 */
const ENQUEUE = `WITH inserted AS (INSERT INTO provisioning.jobs
    (id, type, platform_id, organization_id, payload, status, max_attempts, run_at, created_at, updated_at, target)
  VALUES ($1, $2, $3, $4, $5::jsonb, 'QUEUED', $6, $7, $7, $7, $8) RETURNING id)
SELECT pg_notify('${CHANNEL}', id) FROM inserted WHERE $9::boolean`

/**
 * The wake-up of a job enqueued outside a transaction, in a transaction of its own that commits
 * without waiting for the disk: PostgreSQL holds one lock for every database from a `NOTIFY`'s
 * commit until its WAL is flushed, so an insert that notifies waits for the flushes of every other
 * such insert in turn (decision 0336). A lost wake-up only leaves the job to the workers' polling.
 */
const WAKE = `SELECT set_config('synchronous_commit', 'off', true), pg_notify('${CHANNEL}', 'queued')`

/**
 * The wake-ups of one client, coalesced: a wake-up is one statement in flight and at most one
 * more waiting for it; every enqueue that committed before the waiting one starts is covered by it.
 */
const wakers = new WeakMap<SqlClient.SqlClient, { running: Promise<void> | undefined; next: Promise<void> | undefined }>()

const wake = (sql: SqlClient.SqlClient): Effect.Effect<void> =>
  Effect.promise(() => {
    let waker = wakers.get(sql)
    if (waker === undefined) {
      waker = { running: undefined, next: undefined }
      wakers.set(sql, waker)
    }
    const state = waker
    if (state.next !== undefined) return state.next
    const send = (): Promise<void> => {
      const sent = Effect.runPromise(Effect.ignore(sql.unsafe(WAKE))).finally(() => {
        if (state.running === sent) state.running = undefined
      })
      state.running = sent
      return sent
    }
    if (state.running === undefined) return send()
    const next = state.running.then(() => {
      state.next = undefined
      return send()
    })
    state.next = next
    return next
  })

/**
 * Enqueue a job with `sql`, the caller's client: inside the caller's `withTransaction` the job
 * exists only if that transaction commits, and the workers' wake-up (`NOTIFY`) is sent at commit.
 * Outside a transaction the insert stands alone, committed (and durable) when this returns, and
 * its wake-up follows it in a statement of its own, shared by the enqueues of the moment (`WAKE`,
 * decision 0336). A `SqlError` is a defect (the caller's transaction rolls back with it).
 *
 * @example
 * yield* sql.withTransaction(Effect.gen(function*() {
 *   yield* insertActivation(...)
 *   const { jobId } = yield* Jobs.enqueue(sql, { type: "feature.activate", platformId, payload: { activationId } })
 * }))
 */
export const enqueue = (sql: SqlClient.SqlClient, job: NewJob): Effect.Effect<Enqueued, never, Ids.Ids> =>
  Effect.flatMap(Ids.make("job"), (id) =>
    Effect.flatMap(Clock.currentTimeMillis, (millis) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
        const now = new Date(millis)
        const inTransaction = Option.isSome(transaction)
        const insert = sql.unsafe(ENQUEUE, [
          id,
          job.type,
          job.platformId,
          job.organizationId ?? null,
          JSON.stringify(job.payload),
          job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
          now,
          job.target ?? null,
          inTransaction
        ])
        return inTransaction ? insert : Effect.zipRight(insert, wake(sql))
      })
    ).pipe(Effect.as<Enqueued>({ jobId: id, status: "QUEUED" }))).pipe(Effect.orDie, Effect.withSpan("Jobs.enqueue"))

/** One job by id, if it exists. */
export const find = (sql: SqlClient.SqlClient, id: string): Effect.Effect<Option.Option<JobRow>> =>
  sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.jobs WHERE id = ${id}`.pipe(
    Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRow)),
    Effect.orDie
  )

/** The filters of the job list, as `JobQueue.list` resolved them. */
export interface JobListFilters {
  /** Only this organization's jobs; `undefined`: every job. */
  readonly organizationId?: string | undefined
  readonly platformId?: string | undefined
  readonly status?: Provisioning.JobStatus | undefined
  /** Only jobs older than this keyset position. */
  readonly before?: { readonly createdAt: Date; readonly id: string } | undefined
  readonly limit: number
}

/**
 * The rest of the SQL of `provisioning.jobs` and its events over one client: the job list, a
 * job's status and events, and what the operator controls write (in their transaction). The
 * worker's side is `QueueRepo`.
 */
export const makeJobsRepo = (sql: SqlClient.SqlClient) => ({
  /** Jobs newest first, one more than `limit` (the next page's sign). */
  list: (filters: JobListFilters): Effect.Effect<ReadonlyArray<JobRow>> => {
    const where = [
      ...(filters.organizationId === undefined ? [] : [sql`organization_id = ${filters.organizationId}`]),
      ...(filters.platformId === undefined ? [] : [sql`platform_id = ${filters.platformId}`]),
      ...(filters.status === undefined ? [] : [sql`status = ${filters.status}`]),
      ...(filters.before === undefined ? [] : [sql`(created_at, id) < (${filters.before.createdAt}, ${filters.before.id})`])
    ]
    return sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.jobs
        WHERE ${sql.and(where)} ORDER BY created_at DESC, id DESC LIMIT ${filters.limit + 1}`.pipe(
      Effect.map((rows) => rows.map(toRow)),
      Effect.orDie,
      Effect.withSpan("JobsRepo.list")
    )
  },
  /** A job's status, if it exists. */
  statusOf: (jobId: string) =>
    sql<{ status: string }>`SELECT status FROM provisioning.jobs WHERE id = ${jobId}`.pipe(
      Effect.map((rows) => rows[0]?.status),
      Effect.orDie
    ),
  /** The job's events after `afterSeq`, oldest first, as rows (`provisioning.job_events`). */
  eventsAfter: (jobId: string, afterSeq: number) =>
    sql<Record<string, unknown>>`SELECT seq, job_id AS "jobId", kind, status, from_status AS "fromStatus", attempt, progress,
        step, actor, reason, at
      FROM provisioning.job_events WHERE job_id = ${jobId} AND seq > ${afterSeq} ORDER BY seq`.pipe(Effect.orDie),
  /**
   * Name the actor and reason of what the current transaction does to jobs: the jobs table's
   * trigger copies them into the job's events (decision 0280). Only inside `withTransaction`.
   */
  asActor: (actor: string, reason: string | undefined) =>
    sql`SELECT set_config('provisioning.actor', ${actor}, true), set_config('provisioning.reason', ${reason ?? ""}, true)`.pipe(
      Effect.asVoid
    ),
  /** The job an operator's control changes, locked until its transaction ends. */
  lockForControl: (jobId: string) =>
    sql<{ status: Provisioning.JobStatus; type: string; payload: unknown }>`SELECT status, type, payload
        FROM provisioning.jobs WHERE id = ${jobId} FOR UPDATE`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
  /** Move the job to `status`, with the control's `SET` list (`controlSets`). */
  setStatus: (jobId: string, status: Provisioning.JobStatus, set: Statement.Fragment, now: Date) =>
    sql`UPDATE provisioning.jobs SET status = ${status}, ${set}, updated_at = ${now}
        WHERE id = ${jobId}`.pipe(Effect.asVoid),
  /** What each operator control sets besides the status. */
  controlSets: {
    retry: (now: Date) => sql`attempts = 0, run_at = ${now}, lease_until = NULL, locked_by = NULL, finished_at = NULL`,
    cancel: (why: string, now: Date) => sql`error = ${why}, lease_until = NULL, locked_by = NULL, finished_at = ${now}`,
    forceComplete: (now: Date) =>
      sql`result = COALESCE(result, '{}'::jsonb) || '{"forced": true}'::jsonb, progress = 1, lease_until = NULL, locked_by = NULL,
            finished_at = ${now}`
  },
  /** Send `payload` on the workers' channel (at commit, in a transaction). */
  notify: (payload: string) => sql`SELECT pg_notify(${CHANNEL}, ${payload})`.pipe(Effect.asVoid)
})

/** The jobs' operations over one client. */
export type JobsRepo = ReturnType<typeof makeJobsRepo>
