import { Policy } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { Access } from "./Access.js"
import { Permissions } from "./Permissions.js"


/**
 * `Access`: the kernel's one policy (`Policy.make`) over role mappings, grants and operator
 * membership. The static service key and operators pass every check; an API key holds its own
 * permissions in its own organization; a non-member gets `NotFound` (another tenant's organization
 * is never revealed); a member lacking the permission gets `Forbidden`.
 */
export const make = Effect.gen(function*() {
  const permissions = yield* Permissions
  const policy = Policy.make({
    isOperator: permissions.isOperator,
    permissionsOf: (userId, organizationId) => Effect.map(permissions.membership(userId, organizationId), (m) => m?.permissions)
  })

  const effectivePermissions = (userId: string, organizationId: string): Effect.Effect<ReadonlyArray<string>> =>
    Effect.map(permissions.membership(userId, organizationId), (m) => m?.permissions ?? [])

  return Access.of({
    isOperator: permissions.isOperator,
    isPrivileged: policy.isPrivileged,
    requireOperatorOrService: policy.requireOperator,
    requirePermission: (caller, organizationId, permission) => policy.requirePermission(caller, organizationId, permission),
    permissionsIn: policy.permissionsIn,
    effectivePermissions,
    invalidate: permissions.invalidate
  })
})

/** The `Access` implementation; needs `SqlClient` (through `Permissions`). */
export const AccessLive: Layer.Layer<Access | Permissions, never, SqlClient.SqlClient> = Layer.effect(Access, make).pipe(
  Layer.provideMerge(Permissions.Default)
)
