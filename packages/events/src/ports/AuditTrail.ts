import { Context, type Effect } from "effect"

/** One entry of what the events service did on its own (no caller): an endpoint it disabled. */
export interface AuditEntry {
  /** Dotted verb: `webhook.endpoint_disable`. */
  readonly action: string
  readonly organizationId: string
  readonly targetType: string
  readonly targetId: string
  /** Never secrets. */
  readonly metadata: Record<string, unknown>
}

/**
 * Where the events service appends its audit entries, on the current connection (inside the
 * change's transaction): the identity service's audit log in the server (`AuditTrailLive`).
 * Without one (the events service alone, its tests) no entry is written.
 */
export class AuditTrail extends Context.Tag("@core/events/AuditTrail")<AuditTrail, {
  readonly record: (entry: AuditEntry) => Effect.Effect<void>
}>() {}
