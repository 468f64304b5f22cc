import { type Callers, type Caller, type Forbidden, type NotFound, Policy } from "@core/kernel"
import { Effect } from "effect"
import { platformNotFound } from "./Errors.js"
import type { PlatformRow } from "./PlatformsRepo.js"

/**
 * Who may read a platform: a caller holding `platforms:read` in the organization that owns it (a
 * member, or an API key of that organization), an operator, or the service key. Anyone else gets
 * 404, as if the platform did not exist. A platform without an organization is the operators'.
 */
export const canRead = (caller: Caller, platform: PlatformRow): Effect.Effect<void, NotFound | Forbidden, Callers> =>
  platform.organizationId === null
    ? Effect.flatMap(Policy.isPrivileged(caller), (privileged) => (privileged ? Effect.void : Effect.fail(platformNotFound)))
    : Policy.requirePermission(caller, platform.organizationId, "platforms:read", platformNotFound)
