import type { Conflict } from "@core/kernel"
import { Effect } from "effect"
import { PlatformSetup, PlatformSetupFailed, type PlatformTier } from "./PlatformSetup.js"

/** What the registry needs to create an organization's platform (its `Platforms.create` input). */
export interface PlatformCreateInput {
  readonly name: string
  readonly slug: string
  readonly tier: PlatformTier
  readonly organizationId: string
  readonly ownerUserId?: string | null
}

/**
 * `PlatformSetup` over a function that creates a registry platform — in the all-in-one server the
 * registry's `Platforms.create`, in process and inside identity's transaction. `@core/auth` does not
 * depend on `@core/registry` (nor the reverse): the server passes the function in.
 *
 * @example
 * Layer.effect(PlatformSetup, Effect.map(Platforms, (platforms) => RegistryPlatformSetup.make(platforms.create)))
 */
export const make = <E extends { readonly _tag: string }>(
  create: (input: PlatformCreateInput) => Effect.Effect<{ readonly id: string }, Conflict | E>
): PlatformSetup["Type"] =>
  PlatformSetup.of({
    createPlatform: (input) =>
      create(input).pipe(
        Effect.map((platform) => ({ platformId: platform.id })),
        Effect.catchAll((error): Effect.Effect<never, Conflict | PlatformSetupFailed> =>
          error._tag === "Conflict"
            ? Effect.fail(error as Conflict)
            : Effect.fail(new PlatformSetupFailed({ message: "The registry could not create the platform", cause: error })))
      )
  })

/** A `PlatformSetup` whose registry always fails: proves that setup leaves nothing behind. */
export const failing = PlatformSetup.of({
  createPlatform: () => Effect.fail(new PlatformSetupFailed({ message: "The registry is unavailable" }))
})
