import { Clock, Effect } from "effect"
import { EdgeProvider } from "./ports/EdgeProvider.js"
import { platformStatusNotApplied } from "./Errors.js"

/**
 * Provisioning's view of whether a platform is served (seed 001, `/internal/platform-status`): a
 * suspended platform's edge resources stop serving until it is active again. The registry's
 * suspend and restore drive it (the server's `PlatformStatusSinkLive`).
 */
export class PlatformStatuses extends Effect.Service<PlatformStatuses>()("@core/provisioning/PlatformStatuses", {
  effect: Effect.gen(function*() {
    const edge = yield* EdgeProvider
    const set = Effect.fn("PlatformStatuses.set")(function*(platformId: string, status: "active" | "suspended") {
      // The edge refused or could not be reached: 502, so that the caller (the registry, an operator) retries.
      yield* edge.setPlatformStatus(platformId, status).pipe(
        Effect.mapError((error) => platformStatusNotApplied(error.message))
      )
      return { platformId, status, updatedAt: new Date(yield* Clock.currentTimeMillis).toISOString() }
    })
    return { set } as const
  })
}) {}
