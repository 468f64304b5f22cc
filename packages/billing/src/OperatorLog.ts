import { type Caller, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { billingId } from "./internal/ids.js"

/** The actor an operator action is recorded under: the user, the API key, or the service key. */
export const actorName = (caller: Caller | "registry" | "scheduler"): string =>
  typeof caller === "string"
    ? caller
    : caller.kind === "user"
    ? caller.userId
    : caller.kind === "apikey"
    ? caller.keyId
    : "service"

/** One entry of the operator log. */
export interface OperatorLogEntry {
  readonly id: string
  readonly actor: string
  readonly action: string
  readonly target: string
  readonly reason: string | null
  readonly before: unknown
  readonly after: unknown
  readonly at: string
}

/**
 * The operator log: every operator action (credits, invoice generation, overrides, trials) and every
 * tier the registry set, with actor, time, reason, and the record before and after (decision 0437).
 */
export class OperatorLog extends Effect.Service<OperatorLog>()("@core/billing/OperatorLog", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      record: (entry: { readonly actor: string; readonly action: string; readonly target: string; readonly reason?: string | undefined; readonly before: unknown; readonly after: unknown }) =>
        Effect.gen(function*() {
          const id = yield* billingId("oplog")
          const at = new Date(yield* Clock.currentTimeMillis)
          yield* sql`INSERT INTO billing.operator_log (id, actor, action, target, reason, before, after, at)
            VALUES (${id}, ${entry.actor}, ${entry.action}, ${entry.target}, ${entry.reason ?? null},
              ${JSON.stringify(entry.before ?? null)}::jsonb, ${JSON.stringify(entry.after ?? null)}::jsonb, ${at})`
        }).pipe(Effect.orDie),
      list: (target?: string) =>
        (target === undefined
          ? sql`SELECT * FROM billing.operator_log ORDER BY at, seq`
          : sql`SELECT * FROM billing.operator_log WHERE target = ${target} ORDER BY at, seq`).pipe(
            Effect.map((rows): Array<OperatorLogEntry> =>
              rows.map((row: any) => ({
                id: row.id,
                actor: row.actor,
                action: row.action,
                target: row.target,
                reason: row.reason ?? null,
                before: typeof row.before === "string" ? JSON.parse(row.before) : row.before,
                after: typeof row.after === "string" ? JSON.parse(row.after) : row.after,
                at: Rows.iso(row.at)
              }))
            ),
            Effect.orDie
          )
    }
  })
}) {}
