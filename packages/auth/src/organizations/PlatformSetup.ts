import type { Conflict } from "@core/kernel"
import { Context, Data, type Effect } from "effect"

/** The registry could not create the organization's platform; the organization is rolled back. */
export class PlatformSetupFailed extends Data.TaggedError("PlatformSetupFailed")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** Tiers a platform starts on. Organizations created through identity start on `free`. */
export type PlatformTier = "free" | "starter" | "growth" | "scale"

/**
 * The registry side of tenant setup: every tenant organization has exactly one platform.
 * In the all-in-one server this is the registry in process (same database, same transaction);
 * over HTTP it calls the registry service. Tests use a failing implementation to prove rollback.
 * `Conflict` when the registry already has a platform with that slug.
 */
export class PlatformSetup extends Context.Tag("@core/auth/PlatformSetup")<PlatformSetup, {
  readonly createPlatform: (input: {
    readonly organizationId: string
    readonly name: string
    readonly slug: string
    readonly tier: PlatformTier
    readonly ownerUserId?: string | null
  }) => Effect.Effect<{ readonly platformId: string }, PlatformSetupFailed | Conflict>
}>() {}
