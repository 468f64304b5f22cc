import { type HttpHarness, makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingPlatforms, BillingRouter, PaymentProviderStripe } from "../src/index.js"
import { StripeStandIn } from "./StripeStandIn.js"
import { billingLayer, WEBHOOK_SECRET } from "./Support.js"

type Layered = Layer.Layer.Success<ReturnType<typeof billingLayer>>

/**
 * Stripe's webhooks change billing's state (decision 0445): signed fixtures of the stand-in's own
 * objects, delivered twice and out of order; the state always ends as Stripe holds it.
 */
for (const driver of TestDatabase.drivers) {
  describe(`Stripe webhooks with effects on ${driver}`, () => {
    let h: HttpHarness<Layered>
    let stripe: StripeStandIn
    const json = async (response: Response) => ({ status: response.status, body: await response.json() })
    const deliver = async (delivery: { readonly payload: string; readonly signature: string }) =>
      json(await h.fetch("/webhooks/stripe", { method: "POST", body: delivery.payload, headers: { "content-type": "application/json", "stripe-signature": delivery.signature } }))
    const send = (type: string, object: Record<string, any>) => deliver(stripe.event(type, object, WEBHOOK_SECRET))
    const subscriptionOf = async () => (await h.fetch("/api/billing/subscription?platformId=plt_a", { token: "usr_owner" })).json()
    const platform = () => h.run(Effect.flatMap(BillingPlatforms, (p) => p.find("plt_a"))).then(Option.getOrThrow)
    const events = () => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM billing.webhook_events`)).then((rows) => rows[0]!.n)
    const subscribe = async () => {
      const created = await json(await h.fetch("/subscriptions", { method: "POST", token: "usr_owner", json: { userId: "usr_owner", priceId: "growth", paymentMethodId: "pm_card_visa" } }))
      expect(created.status).toBe(201)
      return stripe.subscriptions.get(created.body.id)!
    }

    beforeAll(async () => {
      stripe = await new StripeStandIn("sk_test_webhooks").start()
      h = await makeHttpHarness(
        BillingRouter,
        billingLayer(driver, {
          provider: PaymentProviderStripe,
          settings: {
            stripeSecretKey: Option.some(Redacted.make("sk_test_webhooks")),
            stripeApiUrl: Option.some(new URL(stripe.url)),
            stripePrices: { starter: Option.none(), growth: Option.some("price_1GrowthMonthly"), scale: Option.none() }
          }
        })
      )
    })
    afterAll(async () => {
      await h.dispose()
      await stripe.stop()
    })

    it("customer.subscription.created moves the platform to the subscription's plan, once however often it is delivered", async () => {
      expect((await subscriptionOf()).tier).toBe("free")
      const subscription = await subscribe()
      const delivery = stripe.event("customer.subscription.created", subscription, WEBHOOK_SECRET)
      expect(await deliver(delivery)).toEqual({ status: 200, body: { received: true, id: delivery.id, type: "customer.subscription.created", duplicate: false } })
      const after = await subscriptionOf()
      expect(after).toMatchObject({ tier: "growth", status: "active", cancelAtPeriodEnd: false, overridden: false, pastDueSince: null })
      expect((await platform()).tier).toBe("growth")
      expect((await deliver(delivery)).body.duplicate).toBe(true)
      expect(await subscriptionOf()).toEqual(after)
    })

    it("re-reads the subscription: a stale payload delivered late cannot undo what Stripe holds now", async () => {
      const subscription = [...stripe.subscriptions.values()].find((sub) => sub.status === "active")!
      const stale = { ...subscription }
      // Stripe's dunning: the renewal failed, the subscription is past due.
      const invoice = stripe.addInvoice(subscription.customer, subscription.id, "open", 9_900)
      stripe.setSubscription(subscription.id, { status: "past_due" })
      const failed = stripe.event("invoice.payment_failed", invoice, WEBHOOK_SECRET)
      const updated = stripe.event("customer.subscription.updated", { ...subscription, status: "past_due" }, WEBHOOK_SECRET)
      // The older `updated` (still active in its payload) arrives last.
      const older = stripe.event("customer.subscription.updated", stale, WEBHOOK_SECRET)
      for (const delivery of [updated, failed, older, updated]) expect((await deliver(delivery)).status).toBe(200)
      const pastDue = await subscriptionOf()
      expect(pastDue).toMatchObject({ tier: "growth", status: "past_due" })
      expect(pastDue.pastDueSince).not.toBeNull()

      // Past the grace period the platform was suspended; paying restores it, and a late failure changes nothing.
      await h.run(Effect.flatMap(BillingPlatforms, (p) => p.suspend("plt_a", "unpaid")))
      stripe.invoices.set(invoice.id, { ...invoice, status: "paid", amount_paid: 9_900 })
      stripe.setSubscription(subscription.id, { status: "active" })
      expect((await send("invoice.paid", stripe.invoices.get(invoice.id)!)).status).toBe(200)
      expect(await subscriptionOf()).toMatchObject({ status: "active", pastDueSince: null })
      expect((await platform()).status).toBe("active")
      expect((await deliver(stripe.event("invoice.payment_failed", invoice, WEBHOOK_SECRET))).status).toBe(200)
      expect((await deliver(failed)).body.duplicate).toBe(true)
      expect(await subscriptionOf()).toMatchObject({ status: "active", pastDueSince: null })
    })

    it("customer.subscription.deleted cancels (the registry back on free); a newer live subscription governs over an old one's late deletion", async () => {
      const old = [...stripe.subscriptions.values()].find((sub) => sub.status === "active")!
      stripe.setSubscription(old.id, { status: "canceled", canceled_at: Math.floor(Date.now() / 1000) })
      const deleted = stripe.event("customer.subscription.deleted", old, WEBHOOK_SECRET)
      expect((await deliver(deleted)).status).toBe(200)
      expect(await subscriptionOf()).toMatchObject({ status: "cancelled" })
      expect((await platform()).tier).toBe("free")

      const fresh = await subscribe()
      expect((await send("customer.subscription.created", fresh)).status).toBe(200)
      expect(await subscriptionOf()).toMatchObject({ status: "active", tier: "growth", cancelledAt: null })
      // Another delivery of the old subscription's deletion (a new event id) changes nothing.
      expect((await send("customer.subscription.deleted", old)).status).toBe(200)
      expect(await subscriptionOf()).toMatchObject({ status: "active", tier: "growth" })
      expect((await platform()).tier).toBe("growth")
    })

    it("payment_method.attached makes the customer's default payment method the subscription's", async () => {
      const { customerId } = await subscriptionOf()
      const customer = stripe.customers.get(customerId)!
      const card = [...stripe.paymentMethods.values()].find((pm) => pm.customer === customerId)!
      stripe.customers.set(customerId, { ...customer, invoice_settings: { default_payment_method: card.id } })
      expect((await send("payment_method.attached", { id: card.id, object: "payment_method", customer: customerId })).status).toBe(200)
      expect((await subscriptionOf()).paymentMethodId).toBe(card.id)
    })

    it("an unknown event type is accepted and ignored; a forged signature is refused and changes nothing; objects Stripe does not know change nothing", async () => {
      const before = await subscriptionOf()
      const count = await events()
      expect(await send("charge.dispute.created", { id: "dp_1", object: "dispute" })).toMatchObject({ status: 200, body: { duplicate: false, type: "charge.dispute.created" } })
      const forged = stripe.event("customer.subscription.deleted", { id: before.id }, "whsec_not_ours")
      expect((await deliver(forged)).status).toBe(400)
      for (const [type, object] of [
        ["customer.subscription.deleted", { id: "sub_unknown", object: "subscription" }],
        ["invoice.paid", { id: "in_unknown", object: "invoice" }],
        ["customer.updated", { id: "cus_unknown", object: "customer" }],
        ["invoice.payment_failed", { object: "invoice" }]
      ] as const) {
        expect((await send(type, object)).status).toBe(200)
      }
      expect(await events()).toBe(count + 5)
      expect(await subscriptionOf()).toEqual(before)
    })
  })
}
