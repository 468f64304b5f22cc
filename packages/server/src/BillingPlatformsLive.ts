import { BillingPlatforms, type PlatformView } from "@core/billing"
import { Callers } from "@core/kernel"
import { type PlatformRow, Platforms } from "@core/registry"
import { Effect, Layer, Option } from "effect"
import { PlatformStatusSinkLive } from "./PlatformStatusSinkLive.js"

const service = { kind: "service" } as const

export const viewOf = (row: PlatformRow): PlatformView => ({
  id: row.id,
  organizationId: row.organizationId,
  tier: row.tier,
  status: row.deletedAt === null ? row.status : "deleted",
  updatedAt: row.updatedAt
})

/**
 * Billing's `BillingPlatforms` port over the registry in process: reads by the registry's
 * `Platforms` (`find`, `ofOrganization`, `listLive`); the tier, suspension and restoration through its `Platforms` service as
 * the service key, so each change writes its lifecycle event and reaches identity's platform status.
 */
export const BillingPlatformsLive = Layer.effect(
  BillingPlatforms,
  Effect.gen(function*() {
    const platforms = yield* Platforms
    const callers = yield* Callers
    const asService = <A, E>(effect: Effect.Effect<A, E, Callers>) =>
      effect.pipe(Effect.provideService(Callers, callers), Effect.asVoid, Effect.orDie)
    return BillingPlatforms.of({
      find: (id) => Effect.map(platforms.find(id), Option.map(viewOf)),
      ofOrganization: (organizationId) => Effect.map(platforms.ofOrganization(organizationId), Option.map(viewOf)),
      list: () => Effect.map(platforms.listLive(), (rows) => rows.map(viewOf)),
      setTier: (id, tier) => asService(platforms.update(service, id, { tier })),
      suspend: (id, reason) => asService(platforms.changeLifecycle(service, id, "suspend", reason)),
      restore: (id) => asService(platforms.changeLifecycle(service, id, "restore"))
    })
  })
).pipe(Layer.provide(Platforms.Default.pipe(Layer.provide(PlatformStatusSinkLive))))
