import { AuditAppendLive, AuditLog } from "@core/auth"
import { AuditTrail } from "@core/events"
import { Effect, Layer } from "effect"

/**
 * The events service's audit entries in identity's audit log, on the shared database: what the
 * service did on its own (an endpoint disabled after failing for days) is a `system` actor's.
 */
export const AuditTrailLive = Layer.effect(
  AuditTrail,
  Effect.map(AuditLog, (log) =>
    AuditTrail.of({
      record: (entry) =>
        log.record({
          action: entry.action,
          actorType: "system",
          actorId: null,
          organizationId: entry.organizationId,
          targetType: entry.targetType,
          targetId: entry.targetId,
          metadata: entry.metadata
        })
    }))
).pipe(Layer.provide(AuditAppendLive))
