import type { Caller } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { billingId } from "./internal/ids.js"
import { makeOperatorLogRepo, type OperatorLogEntry } from "./OperatorLogRepo.js"

export type { OperatorLogEntry }

/** The actor an operator action is recorded under: the user, the API key, or the service key. */
export const actorName = (caller: Caller | "registry" | "scheduler"): string =>
  typeof caller === "string"
    ? caller
    : caller.kind === "user"
    ? caller.userId
    : caller.kind === "apikey"
    ? caller.keyId
    : "service"


/**
 * The operator log: every operator action (credits, invoice generation, overrides, trials) and every
 * tier the registry set, with actor, time, reason, and the record before and after (decision 0437).
 */
export class OperatorLog extends Effect.Service<OperatorLog>()("@core/billing/OperatorLog", {
  effect: Effect.gen(function*() {
    const repo = makeOperatorLogRepo(yield* SqlClient.SqlClient)
    return {
      record: (entry: { readonly actor: string; readonly action: string; readonly target: string; readonly reason?: string | undefined; readonly before: unknown; readonly after: unknown }) =>
        Effect.gen(function*() {
          const id = yield* billingId("oplog")
          const at = new Date(yield* Clock.currentTimeMillis)
          yield* repo.insert(id, entry, at)
        }).pipe(Effect.orDie),
      list: repo.list
    }
  })
}) {}
