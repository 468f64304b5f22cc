import { Config as KernelConfig } from "@core/kernel"
import { Config, type ConfigError, Context, Layer, Option, type Redacted } from "effect"

/** Billing's own settings (DESIGN §10): the keys of the Stripe payment provider. */
export interface BillingSettings {
  /** `STRIPE_SECRET_KEY` (`sk_…` or `rk_…`); `None` keeps the local payment provider. */
  readonly stripeSecretKey: Option.Option<Redacted.Redacted<string>>
  /** `STRIPE_WEBHOOK_SECRET` (`whsec_…`), the signing secret of Stripe's webhooks. */
  readonly stripeWebhookSecret: Option.Option<Redacted.Redacted<string>>
}

/** Billing's settings as a service: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class BillingConfig extends Context.Tag("@core/billing/BillingConfig")<BillingConfig, BillingSettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<BillingSettings> = Config.all({
    stripeSecretKey: Config.option(KernelConfig.redactedSetting("STRIPE_SECRET_KEY", {
      test: (value) => /^(sk|rk)_\S+$/.test(value),
      must: "must be a Stripe secret key (sk_… or rk_…)"
    })),
    stripeWebhookSecret: Config.option(KernelConfig.redactedSetting("STRIPE_WEBHOOK_SECRET", {
      test: (value) => /^whsec_\S+$/.test(value),
      must: "must be a Stripe webhook secret (whsec_…)"
    }))
  })

  /** From explicit values; what is left out is unset. */
  static readonly layer = (settings: Partial<BillingSettings> = {}): Layer.Layer<BillingConfig> =>
    Layer.succeed(BillingConfig, { stripeSecretKey: Option.none(), stripeWebhookSecret: Option.none(), ...settings })

  /** From the environment; fails with a `ConfigError` naming each bad variable. */
  static readonly layerConfig: Layer.Layer<BillingConfig, ConfigError.ConfigError> = Layer.effect(BillingConfig, BillingConfig.config)
}
