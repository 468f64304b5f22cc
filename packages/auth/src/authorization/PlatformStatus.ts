import type { Iam } from "@core/contracts"
import type { Forbidden } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller } from "@core/kernel"
import { Access } from "./Access.js"
import { PlatformStatusRepo } from "./PlatformStatusRepo.js"
import { SessionCache } from "../accounts/SessionCache.js"

/** A platform's status as identity knows it. */
export type PlatformStatusValue = "active" | "suspended"

/**
 * Platform suspension as identity knows it: set by the registry (or an operator) through
 * `POST /internal/platform-status`, read by session answers and API key validation. A change
 * clears the session-context cache of this process, so the next session answer carries it.
 */
export class PlatformStatus extends Effect.Service<PlatformStatus>()("@core/auth/PlatformStatus", {
  effect: Effect.gen(function*() {
    const repo = yield* PlatformStatusRepo
    const access = yield* Access
    const audit = yield* AuditLog
    const sql = yield* SqlClient.SqlClient
    const sessions = yield* SessionCache

    /** The platform's status; `active` when it was never set. */
    const statusOf = (platformId: string): Effect.Effect<PlatformStatusValue> =>
      Effect.map(repo.find(platformId), (record) => record?.status ?? "active")

    /** Set a platform's status (static key or operator); audited with the previous status. */
    const set: (
      caller: Caller,
      input: Iam.SetPlatformStatusRequest
    ) => Effect.Effect<Iam.PlatformStatusRecord, Forbidden> = Effect.fn("PlatformStatus.set")(
      function*(caller: Caller, input: Iam.SetPlatformStatusRequest) {
        yield* access.requireOperatorOrService(caller)
        const now = yield* Clock.currentTimeMillis
        const actor = actorOf(caller)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const previous = yield* repo.find(input.platformId)
          const organizationId = yield* repo.organizationOf(input.platformId)
          const record = yield* repo.upsert(input.platformId, input.status, actor.actorId ?? "service", new Date(now))
          yield* audit.record({
            action: "platform.status_change",
            ...actor,
            organizationId,
            targetType: "platform",
            targetId: input.platformId,
            metadata: { from: previous?.status ?? "active", to: input.status }
          })
          return record
        })).pipe(Effect.orDie, Effect.zipLeft(sessions.clear))
      }
    )

    return { statusOf, set } as const
  }),
  dependencies: [PlatformStatusRepo.Default, SessionCache.Default]
}) {}
