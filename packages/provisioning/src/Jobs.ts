import type { Provisioning } from "@core/contracts"
import { Ids, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"

/** The channel `enqueue` notifies (at commit) so that idle workers claim at once. */
export const CHANNEL = "core_provisioning_jobs"

/** Attempts a job gets when its type and the enqueuer name none. */
export const DEFAULT_MAX_ATTEMPTS = 5

/** A recorded step of a job. */
export type JobStep = Provisioning.JobStep

/** A row of `provisioning.jobs`. */
export interface JobRow {
  readonly id: string
  readonly type: string
  readonly platformId: string | null
  readonly organizationId: string | null
  readonly payload: Record<string, unknown>
  readonly status: Provisioning.JobStatus
  readonly attempts: number
  readonly maxAttempts: number
  readonly runAt: Date
  readonly leaseUntil: Date | null
  readonly lockedBy: string | null
  readonly progress: number
  readonly steps: ReadonlyArray<JobStep>
  readonly result: Record<string, unknown> | null
  readonly error: string | null
  readonly startedAt: Date | null
  readonly finishedAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** What a new job is: its type, the platform it works for, and its input. */
export interface NewJob {
  readonly type: string
  readonly platformId: string | null
  /** The organization owning the platform: its members may read the job. `null`: operators only. */
  readonly organizationId?: string | null
  readonly payload: Record<string, unknown>
  /** @default DEFAULT_MAX_ATTEMPTS */
  readonly maxAttempts?: number
  /**
   * What the job works on (`Targets`): jobs of one target run one at a time in the order they
   * were enqueued (decision 0286). @default null (no ordering)
   */
  readonly target?: string | null
}

/** What enqueueing answers (seed 001's job-creating routes). */
export interface Enqueued {
  readonly jobId: string
  readonly status: "QUEUED"
}

const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

/** A job row from its selected columns (`COLUMNS`). */
export const toRow = (raw: Record<string, unknown>): JobRow => ({
  id: raw.id as string,
  type: raw.type as string,
  platformId: Rows.textOrNull(raw.platformId),
  organizationId: Rows.textOrNull(raw.organizationId),
  payload: (json(raw.payload) ?? {}) as Record<string, unknown>,
  status: raw.status as Provisioning.JobStatus,
  attempts: Number(raw.attempts),
  maxAttempts: Number(raw.maxAttempts),
  runAt: Rows.toDate(raw.runAt),
  leaseUntil: Rows.toDateOrNull(raw.leaseUntil),
  lockedBy: Rows.textOrNull(raw.lockedBy),
  progress: Number(raw.progress),
  steps: (json(raw.steps) ?? []) as ReadonlyArray<JobStep>,
  result: (json(raw.result) ?? null) as Record<string, unknown> | null,
  error: Rows.textOrNull(raw.error),
  startedAt: Rows.toDateOrNull(raw.startedAt),
  finishedAt: Rows.toDateOrNull(raw.finishedAt),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt)
})

/** The columns of a job row, named as `toRow` reads them. */
export const COLUMNS = `id, type, platform_id AS "platformId", organization_id AS "organizationId", payload, status, attempts,
  max_attempts AS "maxAttempts", run_at AS "runAt", lease_until AS "leaseUntil", locked_by AS "lockedBy", progress, steps,
  result, error, started_at AS "startedAt", finished_at AS "finishedAt", created_at AS "createdAt", updated_at AS "updatedAt"`

/** A job as `GET /api/v1/provision/jobs/{jobId}` answers it. */
export const toJobRecord = (row: JobRow): Provisioning.JobRecord => ({
  jobId: row.id,
  type: row.type,
  platformId: row.platformId,
  status: row.status,
  attempts: row.attempts,
  maxAttempts: row.maxAttempts,
  progress: row.progress,
  steps: [...row.steps],
  payload: row.payload,
  result: row.result,
  error: row.error,
  runAt: row.runAt.toISOString(),
  startedAt: row.startedAt?.toISOString() ?? null,
  finishedAt: row.finishedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString()
})

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
