import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** What decides a member's permissions: the role, the role's mapping, and the grants and denials. */
export interface PermissionSources {
  readonly role: string
  readonly mapped: ReadonlyArray<string>
  readonly grants: ReadonlyArray<{
    readonly permission: string
    readonly granted: boolean
    /** Epoch seconds, or `null` for no expiry. */
    readonly expiresAt: number | null
  }>
}

/** The SQL behind effective permissions and operator membership. */
export class PermissionsRepo extends Effect.Service<PermissionsRepo>()("@core/auth/PermissionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const roleOf = (userId: string, organizationId: string) =>
      sql<{ role: string; permissions: unknown }>`
        SELECT m.role AS "role", rm.permissions AS "permissions"
        FROM iam.members m
        LEFT JOIN iam.role_mappings rm ON rm.organization_id = m.organization_id AND rm.role = m.role
        WHERE m.organization_id = ${organizationId} AND m.user_id = ${userId}`

    const grantsOf = (userId: string, organizationId: string) =>
      sql<{ permission: string; granted: boolean; expiresAt: unknown }>`
        SELECT permission AS "permission", granted AS "granted", expires_at AS "expiresAt"
        FROM iam.grants WHERE organization_id = ${organizationId} AND user_id = ${userId}`

    /** The member's role, mapping and grants; `null` when the user is not a member. */
    const sources = Effect.fn("PermissionsRepo.sources")(
      function*(userId: string, organizationId: string) {
        const [member] = yield* roleOf(userId, organizationId)
        if (member === undefined) return null
        const grants = yield* grantsOf(userId, organizationId)
        return {
          role: member.role,
          mapped: Rows.stringArray(member.permissions),
          grants: grants.map((g) => ({ permission: g.permission, granted: g.granted, expiresAt: Rows.int8(g.expiresAt) }))
        } satisfies PermissionSources
      },
      Effect.orDie
    )

    /** Whether the user is a member of an organization of type `core-operator`. */
    const isOperator = (userId: string) =>
      sql<{ one: number }>`
        SELECT 1 AS "one" FROM iam.members m
        JOIN iam.organizations o ON o.id = m.organization_id
        WHERE m.user_id = ${userId} AND o.org_type = 'core-operator' LIMIT 1`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.withSpan("PermissionsRepo.isOperator")
      )

    /** Whether the organization exists. */
    const organizationExists = (organizationId: string) =>
      sql<{ one: number }>`SELECT 1 AS "one" FROM iam.organizations WHERE id = ${organizationId}`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    return { sources, isOperator, organizationExists } as const
  })
}) {}
