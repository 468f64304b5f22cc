import { Config as KernelConfig } from "@core/kernel"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { BillingConfig } from "../src/Config.js"

const read = (env: Record<string, string>) =>
  Effect.provide(BillingConfig, BillingConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(KernelConfig.provider(env)))))

const issues = (env: Record<string, string>) =>
  Effect.map(Effect.flip(read(env)), KernelConfig.issuesOf)

describe("BillingConfig", () => {
  it.effect("reads the Stripe keys as redacted values; unset or blank is None", () =>
    Effect.gen(function*() {
      const config = yield* read({ STRIPE_SECRET_KEY: "sk_test_123", STRIPE_WEBHOOK_SECRET: "whsec_abc" })
      expect(Option.map(config.stripeSecretKey, Redacted.value)).toEqual(Option.some("sk_test_123"))
      expect(Option.map(config.stripeWebhookSecret, Redacted.value)).toEqual(Option.some("whsec_abc"))
      expect(JSON.stringify(config)).not.toContain("sk_test_123")
      expect(Option.map((yield* read({ STRIPE_SECRET_KEY: "rk_live_1" })).stripeSecretKey, Redacted.value)).toEqual(Option.some("rk_live_1"))
      expect(yield* read({ STRIPE_SECRET_KEY: " ", STRIPE_WEBHOOK_SECRET: "" })).toEqual({
        stripeSecretKey: Option.none(),
        stripeWebhookSecret: Option.none(),
        stripeApiUrl: Option.none(),
        stripePrices: { starter: Option.none(), growth: Option.none(), scale: Option.none() },
        finalInvoiceRetryDays: [3, 7, 14]
      })
    }))

  it.effect("reads Stripe's API address and the plans' prices; a bad one names its variable", () =>
    Effect.gen(function*() {
      const config = yield* read({ STRIPE_API_URL: "http://127.0.0.1:12111", STRIPE_PRICE_STARTER: "price_1Abc", STRIPE_PRICE_SCALE: "price_scale" })
      expect(Option.map(config.stripeApiUrl, String)).toEqual(Option.some("http://127.0.0.1:12111/"))
      expect(config.stripePrices).toEqual({ starter: Option.some("price_1Abc"), growth: Option.none(), scale: Option.some("price_scale") })
      expect((yield* issues({ STRIPE_API_URL: "ftp://x", STRIPE_PRICE_GROWTH: "plan_x" })).map((issue) => issue.variable)).toEqual(["STRIPE_API_URL", "STRIPE_PRICE_GROWTH"])
      expect((yield* issues({ STRIPE_API_URL: "https://api.example.com/v1" })).map((issue) => issue.variable)).toEqual(["STRIPE_API_URL"])
    }))

  it.effect("reads the final invoice's retry schedule (decision 0586): 3, 7 and 14 days by default, none, or increasing days", () =>
    Effect.gen(function*() {
      expect((yield* read({})).finalInvoiceRetryDays).toEqual([3, 7, 14])
      expect((yield* read({ BILLING_FINAL_INVOICE_RETRY_DAYS: "1, 2,5" })).finalInvoiceRetryDays).toEqual([1, 2, 5])
      expect((yield* read({ BILLING_FINAL_INVOICE_RETRY_DAYS: "none" })).finalInvoiceRetryDays).toEqual([])
      for (const bad of ["7,3", "0", "3,3", "x", "61"]) {
        expect(yield* issues({ BILLING_FINAL_INVOICE_RETRY_DAYS: bad })).toEqual([{
          variable: "BILLING_FINAL_INVOICE_RETRY_DAYS",
          message: expect.stringContaining("BILLING_FINAL_INVOICE_RETRY_DAYS must be increasing whole days from 1 to 60")
        }])
      }
    }))

  it.effect("names each bad variable, without echoing the secret values", () =>
    Effect.gen(function*() {
      const found = yield* issues({ STRIPE_SECRET_KEY: "pk_live_should_not_print", STRIPE_WEBHOOK_SECRET: "whatever_secret" })
      expect(found).toEqual([
        { variable: "STRIPE_SECRET_KEY", message: "STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)" },
        { variable: "STRIPE_WEBHOOK_SECRET", message: "STRIPE_WEBHOOK_SECRET must be a Stripe webhook secret (whsec_…)" }
      ])
      const error = yield* Effect.flip(read({ STRIPE_SECRET_KEY: "pk_live_should_not_print" }))
      expect(String(error)).not.toContain("pk_live_should_not_print")
    }))

  it.effect("provides explicit values, unset by default", () =>
    Effect.gen(function*() {
      expect(yield* Effect.provide(BillingConfig, BillingConfig.layer())).toEqual({
        stripeSecretKey: Option.none(),
        stripeWebhookSecret: Option.none(),
        stripeApiUrl: Option.none(),
        stripePrices: { starter: Option.none(), growth: Option.none(), scale: Option.none() },
        finalInvoiceRetryDays: [3, 7, 14]
      })
      const key = Redacted.make("sk_test_x")
      expect((yield* Effect.provide(BillingConfig, BillingConfig.layer({ stripeSecretKey: Option.some(key) }))).stripeSecretKey)
        .toEqual(Option.some(key))
    }))

  it("is listed in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    for (const name of ["BILLING_FINAL_INVOICE_RETRY_DAYS", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_URL", "STRIPE_PRICE_STARTER", "STRIPE_PRICE_GROWTH", "STRIPE_PRICE_SCALE"]) expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"))
  })
})
