import { Rows } from "@core/kernel"
import type { Iam } from "@core/contracts"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** One row to append to `iam.audit_log`. */
export interface AuditRow {
  readonly id: string
  readonly occurredAt: Date
  readonly action: string
  readonly outcome: "success" | "failure"
  readonly actorId: string | null
  readonly actorType: Iam.AuditEntry["actorType"]
  readonly organizationId: string | null
  readonly targetType: string | null
  readonly targetId: string | null
  readonly ip: string | null
  readonly userAgent: string | null
  readonly requestId: string | null
  readonly metadata: Record<string, unknown> | null
}

/** The filters of a read; `before` is the (occurredAt, id) of the last entry of the previous page. */
export interface AuditFilter {
  readonly actorId?: string
  readonly action?: { readonly exact: string } | { readonly prefix: string }
  readonly organizationId?: string
  readonly from?: string
  readonly to?: string
  readonly before?: { readonly occurredAt: string; readonly id: string }
  readonly limit: number
}

interface Row {
  readonly id: string
  readonly occurredAt: unknown
  readonly action: string
  readonly outcome: "success" | "failure"
  readonly actorId: string | null
  readonly actorType: Iam.AuditEntry["actorType"]
  readonly organizationId: string | null
  readonly targetType: string | null
  readonly targetId: string | null
  readonly ip: string | null
  readonly userAgent: string | null
  readonly requestId: string | null
  readonly metadata: unknown
}

const toEntry = (row: Row): Iam.AuditEntry => ({
  ...row,
  occurredAt: Rows.iso(row.occurredAt),
  metadata: Rows.jsonObject(row.metadata)
})

/** The SQL of the audit log: append and read; the database refuses every other change. */
export class AuditRepo extends Effect.Service<AuditRepo>()("@core/auth/AuditRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (row: AuditRow) =>
      sql`INSERT INTO iam.audit_log (id, occurred_at, action, outcome, actor_id, actor_type, organization_id,
          target_type, target_id, ip, user_agent, request_id, metadata)
        VALUES (${row.id}, ${row.occurredAt.toISOString()}::timestamptz, ${row.action}, ${row.outcome},
          ${row.actorId}, ${row.actorType}, ${row.organizationId}, ${row.targetType}, ${row.targetId},
          ${row.ip}, ${row.userAgent}, ${row.requestId},
          ${row.metadata === null ? null : JSON.stringify(row.metadata)}::jsonb)`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("AuditRepo.insert")
      )

    /** Up to `limit + 1` entries, newest first (the extra one tells whether there is a next page). */
    const list = (filter: AuditFilter) => {
      const clauses = [
        ...(filter.actorId === undefined ? [] : [sql`actor_id = ${filter.actorId}`]),
        ...(filter.action === undefined
          ? []
          : "exact" in filter.action
          ? [sql`action = ${filter.action.exact}`]
          : [sql`starts_with(action, ${filter.action.prefix})`]),
        ...(filter.organizationId === undefined ? [] : [sql`organization_id = ${filter.organizationId}`]),
        ...(filter.from === undefined ? [] : [sql`occurred_at >= ${filter.from}::timestamptz`]),
        ...(filter.to === undefined ? [] : [sql`occurred_at < ${filter.to}::timestamptz`]),
        ...(filter.before === undefined
          ? []
          : [sql`(occurred_at, id) < (${filter.before.occurredAt}::timestamptz, ${filter.before.id})`])
      ]
      return sql<Row>`
        SELECT id AS "id", occurred_at AS "occurredAt", action AS "action", outcome AS "outcome",
          actor_id AS "actorId", actor_type AS "actorType", organization_id AS "organizationId",
          target_type AS "targetType", target_id AS "targetId", ip AS "ip", user_agent AS "userAgent",
          request_id AS "requestId", metadata AS "metadata"
        FROM iam.audit_log
        WHERE ${clauses.length === 0 ? sql.literal("true") : sql.and(clauses)}
        ORDER BY occurred_at DESC, id DESC
        LIMIT ${filter.limit + 1}`.pipe(
        Effect.map((rows) => rows.map(toEntry)),
        Effect.orDie,
        Effect.withSpan("AuditRepo.list")
      )
    }

    return { insert, list } as const
  })
}) {}
