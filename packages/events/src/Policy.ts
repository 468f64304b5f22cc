import type { Permission } from "@core/contracts"
import { type Caller, type Callers, type Forbidden, type NotFound, Policy } from "@core/kernel"
import { Effect } from "effect"
import { organizationNotFound } from "./Errors.js"

/**
 * The organization a caller's webhooks and events belong to — the one a user acts in, an API key's
 * own — once the caller is found to hold `permission` there (404 outside any organization, 403
 * without the permission).
 */
export const organizationFor = (caller: Caller, permission: Permission): Effect.Effect<string, NotFound | Forbidden, Callers> =>
  Effect.gen(function*() {
    const organizationId = caller.kind === "service" ? null : caller.organizationId
    if (organizationId === null) return yield* Effect.fail(organizationNotFound)
    yield* Policy.requirePermission(caller, organizationId, permission)
    return organizationId
  })
