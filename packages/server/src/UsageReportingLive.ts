import { UsageIngest } from "@core/billing"
import { BuildReporter } from "@core/deploy"
import { UsageReporter } from "@core/provisioning"
import { Effect, Layer } from "effect"

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
