import { Clock, Effect } from "effect"
import { DomainsRepo } from "./DomainsRepo.js"
import { JobFailed } from "./JobHandlers.js"
import { EdgeProvider } from "./ports/EdgeProvider.js"

/**
 * What is left of a platform on the edge once its resources are removed: what the edge still
 * lists for it (made, then its record lost) and its custom domains (the hostnames stop routing,
 * the domains are `deleted`). The registry's `platform.deprovision` runs it as its `edge` step.
 */
export class EdgeTeardown extends Effect.Service<EdgeTeardown>()("@core/provisioning/EdgeTeardown", {
  effect: Effect.gen(function*() {
    const edge = yield* EdgeProvider
    const domains = yield* DomainsRepo
    const platform = Effect.fn("EdgeTeardown.platform")(function*(platformId: string): Effect.fn.Return<void, JobFailed> {
      const left = yield* edge.listResources(platformId)
      yield* Effect.forEach(left, (listed) =>
        edge.deleteResource({ platformId, resourceType: listed.resourceType, edgeName: listed.edgeName }, { deleteData: true }), { discard: true })
      const live = yield* domains.listLive(platformId)
      yield* Effect.forEach(live, (domain) =>
        Effect.gen(function*() {
          if (domain.edgeId !== null) yield* edge.removeCustomHostname({ platformId, edgeId: domain.edgeId })
          yield* domains.markDeleted(domain.id, new Date(yield* Clock.currentTimeMillis))
        }), { discard: true })
    })
    return { platform } as const
  }),
  dependencies: [DomainsRepo.Default]
}) {}
