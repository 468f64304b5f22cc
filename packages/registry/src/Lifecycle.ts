import type { Registry } from "@core/contracts"
import { type Caller, type InvalidState } from "@core/kernel"
import type { PlatformChange, PlatformRow, PlatformStatus } from "./PlatformsRepo.js"
import { platformTransitionInvalid } from "./Errors.js"

/**
 * The platform lifecycle (DESIGN §7, docs/registry.md): which status each action may leave from,
 * and what it writes. `deleted` is final.
 *
 * | action | from | to |
 * |---|---|---|
 * | suspend | active | suspended |
 * | restore | suspended | active |
 * | cancel | active, suspended | cancelled |
 * | hard delete, soft `DELETE` | active, suspended, cancelled | deleted |
 * | `PATCH status` | as the action that reaches the same status | |
 */
export type LifecycleAction = "suspend" | "restore" | "cancel" | "delete" | "softDelete"

/** The status each action leads to. */
export const targetOf: Readonly<Record<LifecycleAction, PlatformStatus>> = {
  suspend: "suspended",
  restore: "active",
  cancel: "cancelled",
  delete: "deleted",
  softDelete: "deleted"
}

/** The statuses each action may start from. */
export const allowedFrom: Readonly<Record<LifecycleAction, ReadonlyArray<PlatformStatus>>> = {
  suspend: ["active"],
  restore: ["suspended"],
  cancel: ["active", "suspended"],
  delete: ["active", "suspended", "cancelled"],
  softDelete: ["active", "suspended", "cancelled"]
}

/** The action a `PATCH status` stands for. */
export const actionForStatus = (status: Registry.PlatformStatus): LifecycleAction =>
  status === "suspended" ? "suspend" : status === "active" ? "restore" : status === "cancelled" ? "cancel" : "softDelete"

/** `InvalidState` (409 `INVALID_STATE`, `details: { from, to }`) unless the action may leave `from`. */
export const check = (action: LifecycleAction, from: PlatformStatus): InvalidState | undefined =>
  allowedFrom[action].includes(from)
    ? undefined
    : platformTransitionInvalid(from, targetOf[action])

/** The fields an allowed action writes on a platform. */
export const apply = (platform: PlatformRow, action: LifecycleAction, reason: string | null, now: Date): PlatformChange => {
  const base: PlatformChange = { ...platform, status: targetOf[action], updatedAt: now }
  switch (action) {
    case "suspend":
      return { ...base, suspendedAt: now, suspensionReason: reason }
    case "restore":
      return { ...base, suspendedAt: null, suspensionReason: null }
    case "cancel":
      return { ...base, cancelledAt: now, cancellationReason: reason }
    case "delete":
    case "softDelete":
      return { ...base, deletedAt: now }
  }
}

/** Who a lifecycle event names, and as what. */
export const triggerOf = (
  caller: Caller,
  privileged: boolean
): { readonly triggeredBy: string; readonly triggerType: Registry.TriggerType } =>
  caller.kind === "service"
    ? { triggeredBy: "service", triggerType: "service" }
    : caller.kind === "apikey"
    ? { triggeredBy: caller.keyId, triggerType: "service" }
    : { triggeredBy: caller.userId, triggerType: privileged ? "operator" : "user" }
