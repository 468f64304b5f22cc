import { Context, Effect, Layer } from "effect"

/** A finished build, as billing's usage ingestion counts it (DESIGN §7: deploys report builds). */
export interface BuildEvent {
  /** The event's id, for idempotent ingestion: the deployment's id. */
  readonly eventId: string
  readonly platformId: string
  readonly deploymentId: string
  readonly status: "success" | "failure"
  readonly durationMs: number
  readonly at: Date
}

/**
 * Where finished builds are reported. The default does nothing; the server wires billing's usage
 * ingestion when it is there. A report that fails is logged, never fails the deployment.
 */
export class BuildReporter extends Context.Tag("@core/deploy/BuildReporter")<BuildReporter, {
  readonly report: (event: BuildEvent) => Effect.Effect<void>
}>() {
  /** Reports nothing. */
  static readonly none: Layer.Layer<BuildReporter> = Layer.succeed(BuildReporter, { report: () => Effect.void })
}
