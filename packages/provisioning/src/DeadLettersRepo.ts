import type { Provisioning } from "@core/contracts"
import { Rows } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

const COLUMNS = `id, job_id AS "jobId", type, platform_id AS "platformId", organization_id AS "organizationId", payload,
  attempts, max_attempts AS "maxAttempts", error, failed_at AS "failedAt", replay_count AS "replayCount",
  replayed_job_id AS "replayedJobId", replayed_at AS "replayedAt"`

const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

/** A dead letter as `GET /api/v1/provision/dlq` answers it. */
export const toEntry = (raw: Record<string, unknown>): Provisioning.DeadLetterEntry & { readonly organizationId: string | null } => ({
  entryId: raw.id as string,
  jobId: raw.jobId as string,
  type: raw.type as string,
  platformId: Rows.textOrNull(raw.platformId),
  organizationId: Rows.textOrNull(raw.organizationId),
  payload: (json(raw.payload) ?? {}) as Record<string, unknown>,
  attempts: Number(raw.attempts),
  maxAttempts: Number(raw.maxAttempts),
  error: Rows.textOrNull(raw.error),
  failedAt: Rows.toDate(raw.failedAt).toISOString(),
  replayCount: Number(raw.replayCount),
  replayedJobId: Rows.textOrNull(raw.replayedJobId),
  replayedAt: Rows.toDateOrNull(raw.replayedAt)?.toISOString() ?? null
})

export const publicEntry = ({ organizationId: _, ...entry }: ReturnType<typeof toEntry>): Provisioning.DeadLetterEntry => entry

/** A dead letter with the organization its job had (who may see it). */
export type DeadLetterRow = ReturnType<typeof toEntry>

/**
 * The SQL of `provisioning.dead_letters` (written by the jobs table's trigger when a job fails
 * for good; decision 0282): the list, oldest failure first, and a replay's lock and record.
 */
export const makeDeadLettersRepo = (sql: SqlClient.SqlClient) => ({
  /** Entries after the keyset position, one more than `limit` (the next page's sign). */
  list: (after: { readonly createdAt: Date; readonly id: string } | undefined, limit: number): Effect.Effect<ReadonlyArray<DeadLetterRow>> =>
    sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.dead_letters
        WHERE ${after === undefined ? sql`true` : sql`(failed_at, id) > (${after.createdAt}, ${after.id})`}
        ORDER BY failed_at, id LIMIT ${limit + 1}`.pipe(Effect.map((rows) => rows.map(toEntry)), Effect.orDie, Effect.withSpan("DeadLettersRepo.list")),
  /** The entry, locked until the replay's transaction ends. */
  lock: (entryId: string) =>
    sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.dead_letters
        WHERE id = ${entryId} FOR UPDATE`.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toEntry))),
  /** Count a replay and keep its newest job. */
  markReplayed: (entryId: string, jobId: string, now: Date) =>
    sql`UPDATE provisioning.dead_letters SET replay_count = replay_count + 1, replayed_job_id = ${jobId},
        replayed_at = ${now} WHERE id = ${entryId}`.pipe(Effect.asVoid)
})
