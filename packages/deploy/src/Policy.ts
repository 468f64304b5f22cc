import { type Caller, type Callers, type Forbidden, type NotFound, Policy } from "@core/kernel"
import { type PlatformRow, Platforms } from "@core/registry"
import { Effect, Option } from "effect"
import { platformNotFound } from "./Errors.js"

/**
 * Who may use a platform's command-line backend (issue 15): a caller holding `platforms:read` in
 * the organization that owns it reads (members), `platforms:manage` writes (the owner and admins:
 * deploys, rollbacks, secrets, features); operators and the service key do both. Another tenant,
 * and a deleted platform, get 404.
 */
export const platformFor = (
  caller: Caller,
  platformId: string,
  write: boolean
): Effect.Effect<PlatformRow, NotFound | Forbidden, Callers | Platforms> =>
  Effect.gen(function*() {
    // Through the registry's service, not its tables: deploy applies its own rule below.
    const platforms = yield* Platforms
    const found = yield* platforms.find(platformId)
    if (Option.isNone(found) || found.value.status === "deleted") return yield* platformNotFound
    const platform = found.value
    if (platform.organizationId === null) {
      if (!(yield* Policy.isPrivileged(caller))) return yield* platformNotFound
      return platform
    }
    yield* Policy.requirePermission(caller, platform.organizationId, "platforms:read", platformNotFound)
    if (write) yield* Policy.requirePermission(caller, platform.organizationId, "platforms:manage", platformNotFound)
    return platform
  })
