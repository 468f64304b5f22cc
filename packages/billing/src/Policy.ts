import { type Caller, type Callers, type Forbidden, type NotFound, Policy } from "@core/kernel"
import { Effect, Option } from "effect"
import { platformNotFound } from "./Errors.js"
import { BillingPlatforms, type PlatformView } from "./ports/BillingPlatforms.js"

type Need = "billing:read" | "billing:manage"

/**
 * Whether a caller may read (or manage) a platform's billing: `billing:read` / `billing:manage` in
 * the organization owning it; the service key and operators always. Anyone else, and anyone for a
 * platform of no organization, gets 404 as if it did not exist.
 */
export const canAccess = (caller: Caller, platform: PlatformView, need: Need): Effect.Effect<void, NotFound | Forbidden, Callers> =>
  platform.organizationId === null
    ? Effect.flatMap(Policy.isPrivileged(caller), (privileged) => (privileged ? Effect.void : Effect.fail(platformNotFound)))
    : Policy.requirePermission(caller, platform.organizationId, need, platformNotFound)

/** A platform named by `platformId` that the caller may read or manage; else 404 (403 for a member lacking the permission). */
export const namedPlatform = (caller: Caller, platformId: string, need: Need) =>
  Effect.gen(function*() {
    const platforms = yield* BillingPlatforms
    const found = yield* platforms.find(platformId)
    if (Option.isNone(found) || found.value.status === "deleted") return yield* platformNotFound
    yield* canAccess(caller, found.value, need)
    return found.value
  })

/**
 * The caller's own platform (the routes without `platformId`): an API key's, a user's active
 * organization's. The service key and users outside any tenant have none: 404.
 */
export const ownPlatform = (caller: Caller, need: Need) =>
  Effect.gen(function*() {
    const platforms = yield* BillingPlatforms
    const found = caller.kind === "apikey" || (caller.kind === "user" && typeof caller.platformId === "string")
      ? yield* platforms.find(caller.platformId as string)
      : caller.kind === "user" && caller.organizationId !== null
      ? yield* platforms.ofOrganization(caller.organizationId)
      : Option.none()
    if (Option.isNone(found) || found.value.status === "deleted") return yield* platformNotFound
    yield* canAccess(caller, found.value, need)
    return found.value
  })
