import type { Forbidden } from "@core/kernel"
import { Effect } from "effect"
import type { Caller } from "@core/kernel"
import { Access } from "./Access.js"
import { allows, Permissions } from "./Permissions.js"
import { organizationNotFound, permissionsNotHeld } from "../Errors.js"


/**
 * The checks shared by the routes that change who may do what in an organization (roles, grants,
 * API keys): the organization must exist and the caller hold the permission there, and a caller
 * can only hand out permissions it holds itself — the service key and operators excepted.
 */
export class Delegation extends Effect.Service<Delegation>()("@core/auth/Delegation", {
  effect: Effect.gen(function*() {
    const access = yield* Access
    const permissions = yield* Permissions

    /** `NotFound` for an unknown organization (also for the service key), then `Access.requirePermission`. */
    const requireInOrganization = (caller: Caller, organizationId: string, permission: string) =>
      Effect.gen(function*() {
        if (!(yield* permissions.organizationExists(organizationId))) return yield* organizationNotFound
        yield* access.requirePermission(caller, organizationId, permission)
      })

    /** `Forbidden` unless the caller holds every permission it is about to hand out. */
    const requireHolds = (
      caller: Caller,
      organizationId: string,
      wanted: ReadonlyArray<string>
    ): Effect.Effect<void, Forbidden> =>
      Effect.gen(function*() {
        const held = (yield* access.permissionsIn(caller, organizationId)) ?? []
        const missing = wanted.filter((permission) => !allows(held, permission))
        if (missing.length > 0) {
          return yield* permissionsNotHeld(missing)
        }
      })

    return { requireInOrganization, requireHolds } as const
  })
}) {}
