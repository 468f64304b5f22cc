import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { EdgeProvider } from "../ports/EdgeProvider.js"

/**
 * The local edge provider (DESIGN §7): what it deploys is real and local. A feature is recorded
 * as deployed in `provisioning.local_features`; a platform's serving status is
 * `provisioning.platform_status` (the local pages that issue 13 serves read it and answer 451).
 */
export const EdgeProviderLocal: Layer.Layer<EdgeProvider, never, SqlClient.SqlClient> = Layer.effect(
  EdgeProvider,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    return EdgeProvider.of({
      name: "local",
      activateFeature: (feature) =>
        Effect.flatMap(now, (at) =>
          sql`INSERT INTO provisioning.local_features (platform_id, entity_id, feature_id, environment, feature_version, deployed_at)
            VALUES (${feature.platformId}, ${feature.entityId}, ${feature.featureId}, ${feature.environment}, ${feature.featureVersion}, ${at})
            ON CONFLICT (platform_id, entity_id, feature_id, environment)
            DO UPDATE SET feature_version = EXCLUDED.feature_version, deployed_at = EXCLUDED.deployed_at`).pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("EdgeProviderLocal.activateFeature")
        ),
      deactivateFeature: (feature) =>
        sql`DELETE FROM provisioning.local_features WHERE platform_id = ${feature.platformId} AND entity_id = ${feature.entityId}
          AND feature_id = ${feature.featureId} AND environment = ${feature.environment}`.pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("EdgeProviderLocal.deactivateFeature")
        ),
      setPlatformStatus: (platformId, status) =>
        Effect.flatMap(now, (at) =>
          sql`INSERT INTO provisioning.platform_status (platform_id, status, updated_at) VALUES (${platformId}, ${status}, ${at})
            ON CONFLICT (platform_id) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at`).pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("EdgeProviderLocal.setPlatformStatus")
        )
    })
  })
)
