import { type Caller, Cursor, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { makeDeadLettersRepo, publicEntry } from "./DeadLettersRepo.js"
import { actorName } from "./JobControls.js"
import { enqueue, makeJobsRepo } from "./JobsRepo.js"
import { deadLetterNotFound } from "./Errors.js"

/** A dead letter that does not exist. */
export { deadLetterNotFound }

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
    const repo = makeDeadLettersRepo(sql)
    const jobs = makeJobsRepo(sql)

    const list = Effect.fn("DeadLetters.list")(function*(input: { readonly cursor?: string | undefined; readonly limit: number }) {
      const after = yield* Cursor.decodeOptional(Cursor.CreatedAtId, input.cursor)
      const rows = yield* repo.list(after, input.limit)
      const page = Cursor.page(rows, input.limit, (entry) => ({ createdAt: entry.failedAt, id: entry.entryId }))
      return { data: page.data.map(publicEntry), pagination: { limit: input.limit, cursor: page.nextCursor ?? "" } }
    })

    /** A new job from the entry (its first event names the operator and the entry); 404 for an unknown entry. */
    const replay = Effect.fn("DeadLetters.replay")(function*(caller: Caller, entryId: string, reason?: string) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const found = yield* repo.lock(entryId)
        if (Option.isNone(found)) return yield* deadLetterNotFound
        const entry = found.value
        yield* jobs.asActor(actorName(caller), reason ?? `Replay of ${entry.entryId} (job ${entry.jobId})`)
        const job = yield* enqueue(sql, {
          type: entry.type,
          platformId: entry.platformId,
          organizationId: entry.organizationId,
          payload: entry.payload,
          maxAttempts: entry.maxAttempts
        })
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* repo.markReplayed(entryId, job.jobId, now)
        return { jobId: job.jobId, status: "QUEUED" as const, entryId }
      })).pipe(Effect.catchTag("SqlError", Effect.die), Effect.provideService(Ids.Ids, ids))
    })

    return { list, replay } as const
  })
}) {}
