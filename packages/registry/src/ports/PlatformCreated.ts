import { Context, type Effect } from "effect"
import type { PlatformRow } from "../PlatformsRepo.js"

/**
 * Who is told that a platform was just created (after its row and default tenant are written):
 * billing makes the platform's free subscription and payment-provider customer at once, so a new
 * platform never waits for billing's reconciliation. A failure is logged and never fails the
 * creation (the reconciliation is the safety net). Without one (tests, a registry alone) nobody is
 * told. The all-in-one server provides it (`@core/server`'s `PlatformCreatedBillingLive`).
 */
export class PlatformCreated extends Context.Tag("@core/registry/PlatformCreated")<PlatformCreated, {
  readonly created: (platform: PlatformRow) => Effect.Effect<void>
}>() {}
