import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A grant or denial as stored. `expiresAt` is epoch seconds. */
export interface GrantRow {
  readonly id: string
  readonly userId: string
  readonly orgId: string
  readonly permission: string
  readonly granted: boolean
  readonly grantedBy: string
  readonly expiresAt: number | null
  readonly createdAt: string
}

interface Row extends Omit<GrantRow, "expiresAt" | "createdAt"> {
  readonly expiresAt: unknown
  readonly createdAt: unknown
}

const toGrant = (row: Row): GrantRow => ({ ...row, expiresAt: Rows.int8(row.expiresAt), createdAt: Rows.iso(row.createdAt) })

/** The SQL of `iam.grants`, and the membership lookup a grant needs. */
export class GrantsRepo extends Effect.Service<GrantsRepo>()("@core/auth/GrantsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      `id AS "id", user_id AS "userId", organization_id AS "orgId", permission AS "permission", granted AS "granted",
       granted_by AS "grantedBy", expires_at AS "expiresAt", created_at AS "createdAt"`
    )

    const list = (organizationId: string, userId: string | undefined) =>
      sql<Row>`SELECT ${columns} FROM iam.grants
        WHERE organization_id = ${organizationId} ${userId === undefined ? sql`` : sql`AND user_id = ${userId}`}
        ORDER BY created_at DESC, id DESC`.pipe(
        Effect.map((rows) => rows.map(toGrant)),
        Effect.orDie,
        Effect.withSpan("GrantsRepo.list")
      )

    const find = (id: string) =>
      sql<Row>`SELECT ${columns} FROM iam.grants WHERE id = ${id}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? null : toGrant(rows[0]))),
        Effect.orDie,
        Effect.withSpan("GrantsRepo.find")
      )

    const insert = (grant: GrantRow) =>
      sql<Row>`INSERT INTO iam.grants (id, organization_id, user_id, permission, granted, granted_by, expires_at, created_at)
        VALUES (${grant.id}, ${grant.orgId}, ${grant.userId}, ${grant.permission}, ${grant.granted},
          ${grant.grantedBy}, ${grant.expiresAt}, ${grant.createdAt}::timestamptz)
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => toGrant(rows[0])),
        Effect.orDie,
        Effect.withSpan("GrantsRepo.insert")
      )

    const remove = (id: string) =>
      sql`DELETE FROM iam.grants WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("GrantsRepo.remove"))

    /** The user's role in the organization, or `null` when not a member. */
    const memberRole = (organizationId: string, userId: string) =>
      sql<{ role: string }>`SELECT role AS "role" FROM iam.members
        WHERE organization_id = ${organizationId} AND user_id = ${userId}`.pipe(
        Effect.map((rows) => rows[0]?.role ?? null),
        Effect.orDie
      )

    return { list, find, insert, remove, memberRole } as const
  })
}) {}
