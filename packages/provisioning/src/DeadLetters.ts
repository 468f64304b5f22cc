import type { Provisioning } from "@core/contracts"
import { type Caller, Cursor, Ids, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { actorName, asActor } from "./JobControls.js"
import { enqueue } from "./Jobs.js"
import { deadLetterNotFound } from "./Errors.js"

/** A dead letter that does not exist. */
export { deadLetterNotFound }

const COLUMNS = `id, job_id AS "jobId", type, platform_id AS "platformId", organization_id AS "organizationId", payload,
  attempts, max_attempts AS "maxAttempts", error, failed_at AS "failedAt", replay_count AS "replayCount",
  replayed_job_id AS "replayedJobId", replayed_at AS "replayedAt"`

const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

/** A dead letter as `GET /api/v1/provision/dlq` answers it. */
const toEntry = (raw: Record<string, unknown>): Provisioning.DeadLetterEntry & { readonly organizationId: string | null } => ({
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

const publicEntry = ({ organizationId: _, ...entry }: ReturnType<typeof toEntry>): Provisioning.DeadLetterEntry => entry

/**
 * The dead-letter list (decision 0282): a copy of every job the worker failed for good, written by
 * the jobs table's trigger with its last error. Operators list it, oldest failure first, and replay
 * an entry as a new job of the same type, platform, organization, payload and attempts; an entry
 * may be replayed again (handlers are idempotent), each replay counted and the newest job kept.
 */
export class DeadLetters extends Effect.Service<DeadLetters>()("@core/provisioning/DeadLetters", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids.Ids

    const list = Effect.fn("DeadLetters.list")(function*(input: { readonly cursor?: string | undefined; readonly limit: number }) {
      const after = yield* Cursor.decodeOptional(Cursor.CreatedAtId, input.cursor)
      const rows = yield* sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.dead_letters
        WHERE ${after === undefined ? sql`true` : sql`(failed_at, id) > (${after.createdAt}, ${after.id})`}
        ORDER BY failed_at, id LIMIT ${input.limit + 1}`.pipe(Effect.orDie)
      const page = Cursor.page(rows.map(toEntry), input.limit, (entry) => ({ createdAt: entry.failedAt, id: entry.entryId }))
      return { data: page.data.map(publicEntry), pagination: { limit: input.limit, cursor: page.nextCursor ?? "" } }
    })

    /** A new job from the entry (its first event names the operator and the entry); 404 for an unknown entry. */
    const replay = Effect.fn("DeadLetters.replay")(function*(caller: Caller, entryId: string, reason?: string) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.dead_letters
          WHERE id = ${entryId} FOR UPDATE`
        if (rows.length === 0) return yield* deadLetterNotFound
        const entry = toEntry(rows[0])
        yield* asActor(sql, actorName(caller), reason ?? `Replay of ${entry.entryId} (job ${entry.jobId})`)
        const job = yield* enqueue(sql, {
          type: entry.type,
          platformId: entry.platformId,
          organizationId: entry.organizationId,
          payload: entry.payload,
          maxAttempts: entry.maxAttempts
        })
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* sql`UPDATE provisioning.dead_letters SET replay_count = replay_count + 1, replayed_job_id = ${job.jobId},
          replayed_at = ${now} WHERE id = ${entryId}`
        return { jobId: job.jobId, status: "QUEUED" as const, entryId }
      })).pipe(Effect.catchTag("SqlError", Effect.die), Effect.provideService(Ids.Ids, ids))
    })

    return { list, replay } as const
  })
}) {}
