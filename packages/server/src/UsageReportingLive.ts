import { UsageIngest } from "@core/billing"
import { BuildReporter } from "@core/deploy"
import { LiveResources, UsageReporter } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"

/**
 * Provisioning's `LiveResources` over the registry's resources on the same database: those live at
 * some time in `[from, to)` — created before its end, not deleted before its start, never failed
 * nor stuck pending (decision 0465).
 */
export const LiveResourcesLive: Layer.Layer<LiveResources, never, SqlClient.SqlClient> = Layer.effect(
  LiveResources,
  Effect.map(SqlClient.SqlClient, (sql) =>
    LiveResources.of({
      during: (from, to) =>
        sql<{ id: string; platformId: string; entityId: string; stackId: string }>`SELECT id, platform_id AS "platformId",
          entity_id AS "entityId", stack_id AS "stackId" FROM registry.resources
          WHERE status IN ('active', 'deleted') AND created_at < ${to} AND (deleted_at IS NULL OR deleted_at > ${from})
          ORDER BY id`.pipe(Effect.orDie)
    }))
)

/** Provisioning's `UsageReporter` bound to billing's ingestion service, in process. */
export const UsageReporterLive: Layer.Layer<UsageReporter, never, UsageIngest> = Layer.effect(
  UsageReporter,
  Effect.map(UsageIngest, (ingest) => UsageReporter.of({ report: (events) => Effect.asVoid(ingest.ingest(events)) }))
)

/** Deploys' `BuildReporter` bound to billing's ingestion: each finished build is one `builds` event, its id the build's. */
export const BuildReporterLive: Layer.Layer<BuildReporter, never, UsageIngest> = Layer.effect(
  BuildReporter,
  Effect.map(UsageIngest, (ingest) =>
    BuildReporter.of({
      report: (build) =>
        Effect.asVoid(ingest.ingest([{ id: build.eventId, platformId: build.platformId, meter: "builds", quantity: 1, occurredAt: build.at.toISOString() }]))
    }))
)
