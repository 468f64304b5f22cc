import { PlatformSetup, RegistryPlatformSetup } from "@core/auth"
import { Platforms } from "@core/registry"
import { Effect, Layer } from "effect"

/**
 * Identity's `PlatformSetup` port served by the registry in process: `Platforms.create` runs on the
 * same `SqlClient`, inside identity's setup transaction (DESIGN §5: the organization and its
 * platform are created together or not at all).
 */
export const PlatformSetupLive = Layer.effect(
  PlatformSetup,
  Effect.map(Platforms, (platforms) => RegistryPlatformSetup.make(platforms.create))
).pipe(Layer.provide(Platforms.Default))
