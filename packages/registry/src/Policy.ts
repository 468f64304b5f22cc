import type { Permission, PermissionArea } from "@core/contracts"
import { type Callers, type Caller, type Forbidden, type NotFound, Policy } from "@core/kernel"
import { Effect } from "effect"
import { platformNotFound } from "./Errors.js"
import type { PlatformRow } from "./PlatformsRepo.js"

/** A platform's `permission` in its organization (404 outside it); operators' platforms: privileged only. */
const ownPlatform = (caller: Caller, platform: PlatformRow, permission: Permission): Effect.Effect<void, NotFound | Forbidden, Callers> =>
  platform.organizationId === null
    ? Effect.flatMap(Policy.isPrivileged(caller), (privileged) => (privileged ? Effect.void : Effect.fail(platformNotFound)))
    : Policy.requirePermission(caller, platform.organizationId, permission, platformNotFound)

/**
 * Who may read a platform: a caller holding `platforms:read` in the organization that owns it (a
 * member, or an API key of that organization), an operator, or the service key. Anyone else gets
 * 404, as if the platform did not exist. A platform without an organization is the operators'.
 */
export const canRead = (caller: Caller, platform: PlatformRow): Effect.Effect<void, NotFound | Forbidden, Callers> =>
  ownPlatform(caller, platform, "platforms:read")

/**
 * Who may read (`write`: change) what an area of the catalogue keeps under a platform — its
 * entities, resources, features or secrets: a caller holding `<area>:read` (`<area>:manage`) in the
 * organization that owns the platform, an operator, or the service key; `platforms:*` is not
 * needed (decision 0596). Another tenant's platform: 404; a member or key lacking it: 403 naming it.
 */
export const canUseArea = (area: Extract<PermissionArea, "entities" | "resources" | "features" | "secrets">) =>
  (caller: Caller, platform: PlatformRow, write: boolean): Effect.Effect<void, NotFound | Forbidden, Callers> =>
    ownPlatform(caller, platform, write ? `${area}:manage` : `${area}:read`)

/**
 * Who may rename and cancel a platform: `platforms:manage` in its organization (the owner and
 * admins; `platforms:read` is not also needed, decision 0596), operators and the service key.
 * Another tenant's platform: 404; a member or key lacking it: 403.
 */
export const canManage = (caller: Caller, platform: PlatformRow): Effect.Effect<void, NotFound | Forbidden, Callers> =>
  ownPlatform(caller, platform, "platforms:manage")

/**
 * Who may change a platform's tier or status, suspend, restore and delete it: operators and the
 * service key only (an owner must not lift its own suspension nor raise its own tier). Another
 * tenant's platform still answers 404 first; its own tenant gets 403.
 */
export const canOperate = (caller: Caller, platform: PlatformRow): Effect.Effect<void, NotFound | Forbidden, Callers> =>
  Effect.zipRight(canSee(caller, platform), Policy.requireOperator(caller))

/**
 * Whether the platform is the caller's to address at all, whatever it may do to it: its
 * organization's members and keys, operators, the service key; anyone else gets 404.
 */
export const canSee = (caller: Caller, platform: PlatformRow): Effect.Effect<void, NotFound, Callers> =>
  platform.organizationId === null
    ? Effect.flatMap(Policy.isPrivileged(caller), (privileged) => (privileged ? Effect.void : Effect.fail(platformNotFound)))
    : Policy.requireTenant(caller, platform.organizationId, platformNotFound)

/**
 * The organization whose platforms a caller lists: `undefined` for operators and the service key
 * (every tenant), the caller's own organization otherwise, `null` when it acts in none.
 */
export const listScope = (caller: Caller): Effect.Effect<string | undefined | null, Forbidden, Callers> =>
  Effect.flatMap(Policy.isPrivileged(caller), (privileged) => {
    if (privileged) return Effect.succeed(undefined)
    const organizationId = caller.kind === "service" ? null : caller.organizationId
    if (organizationId === null) return Effect.succeed(null)
    return Effect.as(Policy.requirePermission(caller, organizationId, "platforms:read"), organizationId).pipe(
      Effect.catchTag("NotFound", () => Effect.succeed(null))
    )
  })
