import { Config as KernelConfig } from "@core/kernel"
import { Config, type ConfigError, Context, Layer, Option, type Redacted } from "effect"

/** The paid plans, each with a price at Stripe. */
export type PaidPlanId = "starter" | "growth" | "scale"

/** Billing's own settings (DESIGN §10): the keys of the Stripe payment provider. */
export interface BillingSettings {
  /** `STRIPE_SECRET_KEY` (`sk_…` or `rk_…`); `None` keeps the local payment provider. */
  readonly stripeSecretKey: Option.Option<Redacted.Redacted<string>>
  /** `STRIPE_WEBHOOK_SECRET` (`whsec_…`), the signing secret of Stripe's webhooks. */
  readonly stripeWebhookSecret: Option.Option<Redacted.Redacted<string>>
  /**
   * `STRIPE_API_URL`: where Stripe's API is (`https://api.stripe.com` when unset); a local stand-in
   * (`http://127.0.0.1:12111`) in tests and development.
   */
  readonly stripeApiUrl: Option.Option<URL>
  /** `STRIPE_PRICE_STARTER|GROWTH|SCALE`: the Stripe price (`price_…`) of each paid plan. */
  readonly stripePrices: Readonly<Record<PaidPlanId, Option.Option<string>>>
  /**
   * `BILLING_FINAL_INVOICE_RETRY_DAYS`: when a declined final invoice is tried again, in days after
   * its first failed attempt, comma-separated and increasing; after the last one fails it is
   * uncollectible and the platform suspended (decision 0586). Like Stripe's smart retries: three
   * more attempts over about two weeks. `none`: never retried.
   * @default [3, 7, 14]
   */
  readonly finalInvoiceRetryDays: ReadonlyArray<number>
}

/** The default retry schedule of a declined final invoice: days after the first failed attempt. */
export const FINAL_INVOICE_RETRY_DAYS: ReadonlyArray<number> = [3, 7, 14]

const isRetrySchedule = (value: string) => {
  if (value.trim() === "none") return true
  const days = value.split(",").map((day) => Number(day.trim()))
  return days.length <= 10 && days.every((day, index) => Number.isInteger(day) && day > 0 && day <= 60 && (index === 0 || day > days[index - 1]!))
}

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" && url.search === "" && value.length <= 200
  } catch {
    return false
  }
}

const price = (name: string) =>
  Config.option(KernelConfig.setting(name, { test: (value) => /^price_[A-Za-z0-9_]{1,120}$/.test(value), must: "must be a Stripe price id (price_…)" }))

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
    })),
    stripeApiUrl: Config.option(KernelConfig.setting("STRIPE_API_URL", { test: isHttpUrl, must: "must be an http:// or https:// URL without a path" })).pipe(
      Config.map(Option.map((value) => new URL(value)))
    ),
    stripePrices: Config.all({ starter: price("STRIPE_PRICE_STARTER"), growth: price("STRIPE_PRICE_GROWTH"), scale: price("STRIPE_PRICE_SCALE") }),
    finalInvoiceRetryDays: Config.option(KernelConfig.setting("BILLING_FINAL_INVOICE_RETRY_DAYS", {
      test: isRetrySchedule,
      must: "must be increasing whole days from 1 to 60, comma-separated (e.g. 3,7,14), or none"
    })).pipe(Config.map(Option.match({
      onNone: () => FINAL_INVOICE_RETRY_DAYS,
      onSome: (value) => value.trim() === "none" ? [] : value.split(",").map((day) => Number(day.trim()))
    })))
  })

  /** From explicit values; what is left out is unset. */
  static readonly layer = (settings: Partial<BillingSettings> = {}): Layer.Layer<BillingConfig> =>
    Layer.succeed(BillingConfig, {
      stripeSecretKey: Option.none(),
      stripeWebhookSecret: Option.none(),
      stripeApiUrl: Option.none(),
      stripePrices: { starter: Option.none(), growth: Option.none(), scale: Option.none() },
      finalInvoiceRetryDays: FINAL_INVOICE_RETRY_DAYS,
      ...settings
    })

  /** From the environment; fails with a `ConfigError` naming each bad variable. */
  static readonly layerConfig: Layer.Layer<BillingConfig, ConfigError.ConfigError> = Layer.effect(BillingConfig, BillingConfig.config)
}
