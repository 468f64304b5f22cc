import { Rows } from "@core/kernel"
import type { Iam } from "@core/contracts"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

interface Row {
  readonly orgId: string
  readonly role: string
  readonly permissions: unknown
  readonly updatedAt: unknown
}

const toMapping = (row: Row): Iam.RoleMapping => ({
  orgId: row.orgId,
  role: row.role,
  permissions: Rows.stringArray(row.permissions),
  updatedAt: Rows.iso(row.updatedAt)
})

/** The SQL of `iam.role_mappings`. */
export class RoleMappingsRepo extends Effect.Service<RoleMappingsRepo>()("@core/auth/RoleMappingsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      `organization_id AS "orgId", role AS "role", permissions AS "permissions", updated_at AS "updatedAt"`
    )

    const list = (organizationId: string) =>
      sql<Row>`SELECT ${columns} FROM iam.role_mappings WHERE organization_id = ${organizationId} ORDER BY role`.pipe(
        Effect.map((rows) => rows.map(toMapping)),
        Effect.orDie,
        Effect.withSpan("RoleMappingsRepo.list")
      )

    const find = (organizationId: string, role: string) =>
      sql<Row>`SELECT ${columns} FROM iam.role_mappings WHERE organization_id = ${organizationId} AND role = ${role}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? null : toMapping(rows[0]))),
        Effect.orDie,
        Effect.withSpan("RoleMappingsRepo.find")
      )

    const upsert = (organizationId: string, role: string, permissions: ReadonlyArray<string>, at: Date) =>
      sql<Row>`
        INSERT INTO iam.role_mappings (organization_id, role, permissions, updated_at)
        VALUES (${organizationId}, ${role}, ${JSON.stringify(permissions)}::jsonb, ${at.toISOString()}::timestamptz)
        ON CONFLICT (organization_id, role)
        DO UPDATE SET permissions = EXCLUDED.permissions, updated_at = EXCLUDED.updated_at
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => toMapping(rows[0])),
        Effect.orDie,
        Effect.withSpan("RoleMappingsRepo.upsert")
      )

    /** Whether a row was deleted. */
    const remove = (organizationId: string, role: string) =>
      sql<{ role: string }>`
        DELETE FROM iam.role_mappings WHERE organization_id = ${organizationId} AND role = ${role}
        RETURNING role AS "role"`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.withSpan("RoleMappingsRepo.remove")
      )

    return { list, find, upsert, remove } as const
  })
}) {}
