import { type Caller, NotFound, Policy } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import { EdgeProvider } from "./ports/EdgeProvider.js"
import { PlatformDirectory } from "./ports/PlatformDirectory.js"
import { DomainsRepo } from "./DomainsRepo.js"
import { domainNotFound, domainRemovalFailed, platformNotFound } from "./Errors.js"

/**
 * The custom domains `domain.add` adds (decision 0295): a platform's readers list them, its owner
 * and admins remove them (the hostname stops routing on the edge); operators and the service key
 * everything; another tenant's platform or domain answers 404.
 */
export class Domains extends Effect.Service<Domains>()("@core/provisioning/Domains", {
  effect: Effect.gen(function*() {
    const repo = yield* DomainsRepo
    const directory = yield* PlatformDirectory
    const edge = yield* EdgeProvider

    const allowed = (caller: Caller, platformId: string, permission: "platforms:read" | "platforms:manage", notFound: NotFound) =>
      Effect.gen(function*() {
        const owner = yield* directory.platform(platformId)
        if (Option.isNone(owner) || owner.value.organizationId === null) {
          if (!(yield* Policy.isPrivileged(caller))) return yield* notFound
          if (Option.isNone(owner)) return yield* notFound
          return
        }
        yield* Policy.requirePermission(caller, owner.value.organizationId, permission, notFound)
      })

    const list = Effect.fn("Domains.list")(function*(caller: Caller, platformId: string) {
      yield* allowed(caller, platformId, "platforms:read", platformNotFound)
      return { data: [...(yield* repo.listLive(platformId))] }
    })

    const remove = Effect.fn("Domains.remove")(function*(caller: Caller, id: string) {
      const found = yield* repo.find(id)
      if (Option.isNone(found)) return yield* domainNotFound
      const domain = found.value
      yield* allowed(caller, domain.platformId, "platforms:manage", domainNotFound)
      if (domain.deletedAt !== null) return domain
      if (domain.edgeId !== null) {
        yield* edge.removeCustomHostname({ platformId: domain.platformId, edgeId: domain.edgeId }).pipe(
          // The edge refused or could not be reached: 502, the domain left as it was (retry the removal).
          Effect.mapError((error) => domainRemovalFailed(domain.hostname, error.message))
        )
      }
      const at = new Date(yield* Clock.currentTimeMillis)
      return Option.getOrElse(yield* repo.markDeleted(id, at), () => domain)
    })

    return { list, remove } as const
  }),
  dependencies: [DomainsRepo.Default]
}) {}
