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
        stripeWebhookSecret: Option.none()
      })
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
        stripeWebhookSecret: Option.none()
      })
      const key = Redacted.make("sk_test_x")
      expect((yield* Effect.provide(BillingConfig, BillingConfig.layer({ stripeSecretKey: Option.some(key) }))).stripeSecretKey)
        .toEqual(Option.some(key))
    }))

  it("is listed in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    for (const name of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"]) expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"))
  })
})
