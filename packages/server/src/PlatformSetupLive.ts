import { PlatformSetup, RegistryPlatformSetup } from "@core/auth"
import { Platforms } from "@core/registry"
import { Effect, Layer } from "effect"
import { PlatformCreatedLive } from "./PlatformCreatedLive.js"

/**
 * Identity's `PlatformSetup` port served by the registry in process: `Platforms.create` runs on the
 * same `SqlClient`, inside identity's setup transaction (decision 0111: the organization and its
 * platform are created together or not at all).
 */
const setup = Layer.effect(
  PlatformSetup,
  Effect.map(Platforms, (platforms) => RegistryPlatformSetup.make(platforms.create))
)

/**
 * The server's and `core-server bootstrap`'s: billing makes the new platform's subscription at once
 * (`PlatformCreatedLive`: in process, or over HTTP when billing runs alone).
 * `Layer.fresh`: the hook's own `BillingPlatformsLive` builds a `Platforms.Default` first, and the
 * layer memo would hand that one (without the hook) to identity.
 */
export const PlatformSetupLive = setup.pipe(Layer.provide(Layer.fresh(Platforms.Default).pipe(Layer.provide(PlatformCreatedLive))))
