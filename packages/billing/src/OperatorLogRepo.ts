import { Rows } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

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

/** The SQL of `billing.operator_log` (decision 0437). */
export const makeOperatorLogRepo = (sql: SqlClient.SqlClient) => ({
  insert: (
    id: string,
    entry: { readonly actor: string; readonly action: string; readonly target: string; readonly reason?: string | undefined; readonly before: unknown; readonly after: unknown },
    at: Date
  ) =>
    sql`INSERT INTO billing.operator_log (id, actor, action, target, reason, before, after, at)
      VALUES (${id}, ${entry.actor}, ${entry.action}, ${entry.target}, ${entry.reason ?? null},
        ${JSON.stringify(entry.before ?? null)}::jsonb, ${JSON.stringify(entry.after ?? null)}::jsonb, ${at})`,
  /** The log in order, optionally of one target. */
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
})
