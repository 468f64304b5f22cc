import { BillingPlatforms, type PlatformView } from "@core/billing"
import { Callers } from "@core/kernel"
import { type PlatformRow, Platforms, PlatformsRepo } from "@core/registry"
import { SqlClient } from "@effect/sql"
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
 * Billing's `BillingPlatforms` port over the registry in process (same database): reads by the
 * registry's repository; the tier, suspension and restoration through its `Platforms` service as
 * the service key, so each change writes its lifecycle event and reaches identity's platform status.
 */
export const BillingPlatformsLive = Layer.effect(
  BillingPlatforms,
  Effect.gen(function*() {
    const repo = yield* PlatformsRepo
    const platforms = yield* Platforms
    const callers = yield* Callers
    const sql = yield* SqlClient.SqlClient
    const asService = <A, E>(effect: Effect.Effect<A, E, Callers>) =>
      effect.pipe(Effect.provideService(Callers, callers), Effect.asVoid, Effect.orDie)
    return BillingPlatforms.of({
      find: (id) => Effect.map(Effect.orDie(repo.findById(id)), Option.map(viewOf)),
      ofOrganization: (organizationId) => Effect.map(Effect.orDie(repo.findByOrganization(organizationId)), Option.map(viewOf)),
      list: () =>
        Effect.flatMap(
          Effect.orDie(sql<{ id: string }>`SELECT id FROM registry.platforms WHERE deleted_at IS NULL AND status <> 'deleted' ORDER BY created_at, id`),
          (rows) => Effect.map(Effect.forEach(rows, (row) => Effect.orDie(repo.findById(row.id))), (found) => found.flatMap((o) => Option.isSome(o) ? [viewOf(o.value)] : []))
        ),
      setTier: (id, tier) => asService(platforms.update(service, id, { tier })),
      suspend: (id, reason) => asService(platforms.changeLifecycle(service, id, "suspend", reason)),
      restore: (id) => asService(platforms.changeLifecycle(service, id, "restore"))
    })
  })
).pipe(Layer.provide(Platforms.Default.pipe(Layer.provide(PlatformStatusSinkLive))), Layer.provide(PlatformsRepo.Default))
