import { PlatformStatusRepo } from "@core/auth"
import { EdgeProviderCloudflare, EdgeProviderLocal, PlatformStatuses } from "@core/provisioning"
import { PlatformStatusSink } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"

/**
 * The registry's `PlatformStatusSink` over identity's platform status, on the same database and in
 * the registry's transaction: a suspension (or deletion) made in the registry is what the gateway
 * reads through identity (451 within the session and credential caches' few seconds), and what
 * provisioning's `/internal/platform-status` sets (`PlatformStatuses`: the platform's edge resources
 * stop serving, on the edge provider configuration selects: decision 0303). A registry whose database has no identity (or provisioning) schema — alone, on a
 * database of its own — publishes nothing there.
 */
export const PlatformStatusSinkLive = Layer.effect(
  PlatformStatusSink,
  Effect.gen(function*() {
    const repo = yield* PlatformStatusRepo
    const edge = yield* PlatformStatuses
    const sql = yield* SqlClient.SqlClient
    const provisioningPresent = sql<{ present: boolean }>`SELECT to_regclass('provisioning.platform_status') IS NOT NULL AS present`.pipe(
      Effect.map((rows) => rows[0]?.present === true),
      Effect.orDie
    )
    const identityPresent = sql<{ present: boolean }>`SELECT to_regclass('iam.platform_status') IS NOT NULL AS present`.pipe(
      Effect.map((rows) => rows[0]?.present === true),
      Effect.orDie
    )
    return PlatformStatusSink.of({
      publish: (platformId, status, updatedBy) =>
        Effect.gen(function*() {
          // The edge failing must not undo the suspension itself (the gateway's 451 is identity's): it is
          // logged as an error and the status is set again by the next change or POST /internal/platform-status.
          if (yield* provisioningPresent) {
            yield* edge.set(platformId, status).pipe(
              Effect.catchTag("UpstreamUnavailable", (error) =>
                Effect.logError("platform status not applied on the edge").pipe(Effect.annotateLogs({ platformId, status, reason: error.message })))
            )
          }
          if (!(yield* identityPresent)) return
          yield* repo.upsert(platformId, status, updatedBy, new Date(yield* Clock.currentTimeMillis))
        }).pipe(Effect.withSpan("PlatformStatusSink.publish"))
    })
  })
).pipe(Layer.provide(Layer.mergeAll(PlatformStatusRepo.Default, PlatformStatuses.Default.pipe(Layer.provide(EdgeProviderCloudflare.whenConfigured(EdgeProviderLocal))))))
