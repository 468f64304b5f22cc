import { Context, type Effect } from "effect"

/** One hour of one live resource, as billing's `resource_hours` meter counts it. */
export interface ResourceHourEvent {
  /** `rh_<resourceId>_<hour>`: the same hour of the same resource is counted once, however often reported. */
  readonly id: string
  readonly platformId: string
  readonly tenantId?: string
  readonly stackId?: string
  readonly meter: "resource_hours"
  readonly quantity: number
  readonly occurredAt: string
}

/**
 * Where provisioning reports resource-hours: billing's usage ingestion (in process, idempotent by
 * event id). The server binds it to `@core/billing`'s `UsageIngest`.
 */
export class UsageReporter extends Context.Tag("@core/provisioning/UsageReporter")<UsageReporter, {
  readonly report: (events: ReadonlyArray<ResourceHourEvent>) => Effect.Effect<void>
}>() {}
