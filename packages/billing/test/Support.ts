import { CoreConfig, Ids } from "@core/kernel"
import { makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Redacted } from "effect"
import {
  BillingConfig,
  BillingMigrations,
  BillingPlatforms,
  BillingRouter,
  BillingServices,
  type BillingSettings,
  type PaymentProvider,
  PaymentProviderLocal,
  PaymentProviderStripe,
  Plans,
  UsageTotals
} from "../src/index.js"
import { TestCallers } from "../../../tests/support/testCallers.js"
import { StripeStandIn } from "./StripeStandIn.js"

/** Usage the test sets per platform (what metering would report). */
export const usageByPlatform = new Map<string, { requests: number; resource_hours: number; builds: number }>()

const usage = Layer.succeed(UsageTotals, {
  totals: (platformId) => Effect.succeed(usageByPlatform.get(platformId) ?? { requests: 0, resource_hours: 0, builds: 0 })
})

/** The webhook signing secret of the tests. */
export const WEBHOOK_SECRET = "whsec_test_secret"

const at = new Date("2020-01-01T00:00:00Z")

/** What a test may change: the payment provider (the local one by default) and billing's settings. */
export interface BillingLayerOptions {
  readonly provider?: Layer.Layer<PaymentProvider, never, BillingConfig | SqlClient.SqlClient>
  readonly settings?: Partial<BillingSettings>
}

/**
 * Billing over a test database: the local provider (or `options.provider`), an in-memory registry with `plt_a` (org_a),
 * `plt_b` (org_b), `plt_c` (org_c, no members) and `plt_ops` (no organization), all on `free`.
 */
/**
 * The kernel configuration of the billing tests: the harness's address is the public one and the
 * host app's origin (`https://app.example.com`) is trusted, so a portal may return there.
 */
export const BILLING_TEST_ENV = {
  NODE_ENV: "test",
  CORE_SECRET: "billing-test-secret-0123456789-abcdef",
  CORE_PUBLIC_URL: "http://core.test",
  CORE_CORS_ORIGINS: "https://app.example.com"
}

export const billingLayer = (driver: "pglite" | "pg", options: BillingLayerOptions = {}) =>
  BillingServices.pipe(
    Layer.provideMerge(Layer.mergeAll(
      Plans.layer(),
      options.provider ?? PaymentProviderLocal,
      BillingPlatforms.memory([
        { id: "plt_a", organizationId: "org_a", tier: "free", status: "active", updatedAt: at },
        { id: "plt_b", organizationId: "org_b", tier: "free", status: "active", updatedAt: at },
        { id: "plt_c", organizationId: "org_c", tier: "free", status: "active", updatedAt: at },
        { id: "plt_ops", organizationId: null, tier: "free", status: "active", updatedAt: at }
      ]),
      usage
    )),
    Layer.provideMerge(Layer.mergeAll(
      TestCallers,
      Ids.layer,
      Layer.orDie(CoreConfig.layer(BILLING_TEST_ENV)),
      BillingConfig.layer({ stripeWebhookSecret: Option.some(Redacted.make(WEBHOOK_SECRET)), ...options.settings })
    )),
    Layer.provideMerge(TestDatabase.layer([BillingMigrations], { driver }))
  )

/** What {@link startStripeBilling} sets up: the stand-in's secret key, the plans' Stripe prices, and prices of its own. */
export interface StripeBillingOptions {
  readonly secretKey: string
  readonly planPrices: Partial<Record<"starter" | "growth" | "scale", string>>
  /** Stripe's own amounts for prices, when they differ from billing's plan table. */
  readonly amounts?: Readonly<Record<string, number>>
}

/**
 * A started Stripe stand-in and billing over HTTP with the Stripe adapter pointed at it; `stop`
 * disposes of both.
 */
export const startStripeBilling = async (driver: "pglite" | "pg", options: StripeBillingOptions) => {
  const stripe = await new StripeStandIn(options.secretKey).start()
  for (const [price, amount] of Object.entries(options.amounts ?? {})) stripe.prices.set(price, amount)
  const h = await makeHttpHarness(
    BillingRouter,
    billingLayer(driver, {
      provider: PaymentProviderStripe,
      settings: {
        stripeSecretKey: Option.some(Redacted.make(options.secretKey)),
        stripeApiUrl: Option.some(new URL(stripe.url)),
        stripePrices: {
          starter: Option.fromNullable(options.planPrices.starter),
          growth: Option.fromNullable(options.planPrices.growth),
          scale: Option.fromNullable(options.planPrices.scale)
        }
      }
    })
  )
  return { h, stripe, stop: async () => (await h.dispose(), await stripe.stop()) }
}
