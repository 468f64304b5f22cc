import { Forbidden, NotFound } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { Caller } from "../accounts/Authentication.js"
import { Access } from "./Access.js"
import { allows, Permissions } from "./Permissions.js"

const notFound = new NotFound({ message: "Organization not found" })

/**
 * `Access` over role mappings, grants and operator membership: the static service key and
 * operators pass every check; a non-member gets `NotFound` (another tenant's organization is
 * never revealed); a member lacking the permission gets `Forbidden`.
 */
export const make = Effect.gen(function*() {
  const permissions = yield* Permissions

  const isOperator = permissions.isOperator

  const isPrivileged = (caller: Caller): Effect.Effect<boolean> =>
    caller.kind === "service" ? Effect.succeed(true) : isOperator(caller.userId)

  const requireOperatorOrService = (caller: Caller): Effect.Effect<void, Forbidden> =>
    Effect.flatMap(isPrivileged(caller), (ok) =>
      ok ? Effect.void : Effect.fail(new Forbidden({ message: "This action needs the operator role or the service key" })))

  const requirePermission = (
    caller: Caller,
    organizationId: string,
    permission: string
  ): Effect.Effect<void, Forbidden | NotFound> =>
    Effect.gen(function*() {
      if (caller.kind === "service" || (yield* isOperator(caller.userId))) return
      const membership = yield* permissions.membership(caller.userId, organizationId)
      if (membership === null) return yield* notFound
      if (!allows(membership.permissions, permission)) {
        return yield* new Forbidden({ message: `Missing permission ${permission}` })
      }
    }).pipe(Effect.withSpan("Access.requirePermission", { attributes: { permission } }))

  const effectivePermissions = (userId: string, organizationId: string): Effect.Effect<ReadonlyArray<string>> =>
    Effect.map(permissions.membership(userId, organizationId), (m) => m?.permissions ?? [])

  return Access.of({
    isOperator,
    requireOperatorOrService,
    requirePermission,
    effectivePermissions,
    invalidate: permissions.invalidate
  })
})

/** The `Access` implementation; needs `SqlClient` (through `Permissions`). */
export const AccessLive: Layer.Layer<Access | Permissions, never, SqlClient.SqlClient> = Layer.effect(Access, make).pipe(
  Layer.provideMerge(Permissions.Default)
)
