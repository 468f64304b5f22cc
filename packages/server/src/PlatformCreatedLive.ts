import { CoreConfig } from "@core/kernel"
import type { PlatformCreated } from "@core/registry"
import { Effect, Layer } from "effect"
import { PlatformCreatedBillingLive } from "./PlatformCreatedBillingLive.js"
import { PlatformCreatedOverHttp } from "./PlatformCreatedOverHttp.js"

/**
 * Who makes a new platform's subscription (decisions 0446, 0447): billing over HTTP when this
 * process reaches billing at `CORE_UPSTREAM_BILLING_URL` (billing alone), else billing's code in
 * process on the shared database. Every path that creates a platform is given this one: the
 * registry's routes, onboarding, identity's organization setup and `core-server bootstrap`.
 */
export const PlatformCreatedLive = Layer.unwrapEffect(
  Effect.map(CoreConfig, (config): Layer.Layer<PlatformCreated, Layer.Layer.Error<typeof PlatformCreatedBillingLive>, Layer.Layer.Context<typeof PlatformCreatedBillingLive> | CoreConfig> =>
    config.upstreams.billing === undefined ? PlatformCreatedBillingLive : PlatformCreatedOverHttp(config.upstreams.billing))
)
