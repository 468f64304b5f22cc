import { Context, type Effect } from "effect"

/** A resource that existed during an hour: what its resource-hour is billed to. */
export interface LiveResource {
  readonly id: string
  readonly platformId: string
  /** The registry entity (tenant) it belongs to. */
  readonly entityId: string
  readonly stackId: string
}

/**
 * The resources that were live (provisioned, not yet deleted) at some time in `[from, to)`, for the
 * resource-hours report. The registry implements it over its resources; the server wires it.
 */
export class LiveResources extends Context.Tag("@core/provisioning/LiveResources")<LiveResources, {
  readonly during: (from: Date, to: Date) => Effect.Effect<ReadonlyArray<LiveResource>>
}>() {}
