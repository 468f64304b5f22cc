import { type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingCycle, BillingPlatforms, ProviderOverage, SubscriptionsRepo } from "../src/index.js"
import { StripeStandIn } from "./StripeStandIn.js"
import { billingLayer, startStripeBilling, usageByPlatform, WEBHOOK_SECRET } from "./Support.js"

type Layered = Layer.Layer.Success<ReturnType<typeof billingLayer>>

/**
 * Stripe's webhooks change billing's state (decision 0445): signed fixtures of the stand-in's own
 * objects, delivered twice and out of order; the state always ends as Stripe holds it.
 */
for (const driver of TestDatabase.drivers) {
  describe(`Stripe webhooks with effects on ${driver}`, () => {
    let h: HttpHarness<Layered>
    let stripe: StripeStandIn
    let stop: () => Promise<void>
    const json = async (response: Response) => ({ status: response.status, body: await response.json() })
    const deliver = async (delivery: { readonly payload: string; readonly signature: string }) =>
      json(await h.fetch("/webhooks/stripe", { method: "POST", body: delivery.payload, headers: { "content-type": "application/json", "stripe-signature": delivery.signature } }))
    const send = (type: string, object: Record<string, any>) => deliver(stripe.event(type, object, WEBHOOK_SECRET))
    const subscriptionOf = async () => (await h.fetch("/api/billing/subscription?platformId=plt_a", { token: "usr_owner" })).json()
    const platform = () => h.run(Effect.flatMap(BillingPlatforms, (p) => p.find("plt_a"))).then(Option.getOrThrow)
    const sql = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe(text))) as Promise<Array<any>>
    const events = () => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM billing.webhook_events`)).then((rows) => rows[0]!.n)
    const subscribe = async () => {
      const created = await json(await h.fetch("/subscriptions", { method: "POST", token: "usr_owner", json: { userId: "usr_owner", priceId: "growth", paymentMethodId: "pm_card_visa" } }))
      expect(created.status).toBe(201)
      return stripe.subscriptions.get(created.body.id)!
    }

    beforeAll(async () => {
      ;({ h, stripe, stop } = await startStripeBilling(driver, { secretKey: "sk_test_webhooks", planPrices: { growth: "price_1GrowthMonthly" } }))
    })
    afterAll(() => stop())

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

    it("an upgrade-made subscription: Stripe's invoices mirrored once by id, overage sent once as invoice items and on the renewal, deliveries twice and out of order", async () => {
      const own = { token: "usr_b_owner" }
      const upgraded = await json(await h.fetch("/api/billing/upgrade", {
        method: "POST",
        ...own,
        json: { planId: "growth", paymentMethodId: "pm_card_visa", billingEmail: "pay@b.example", idempotencyKey: "1b2c3d4e-0000-4000-8000-000000000449" }
      }))
      expect(upgraded.status).toBe(200)
      const subscriptionId = upgraded.body.subscription.id as string
      const kept = [...stripe.subscriptions.values()].find((sub) => sub.metadata.subscriptionId === subscriptionId)!
      const firstInvoice = stripe.invoices.get(kept.latest_invoice)!
      const invoicesOf = async () => (await json(await h.fetch("/api/billing/invoices?platformId=plt_b", own))).body.data
      expect(await invoicesOf()).toEqual([upgraded.body.invoice])

      // The first invoice's `invoice.paid`, twice: the same row, unchanged.
      const paid = stripe.event("invoice.paid", firstInvoice, WEBHOOK_SECRET)
      expect((await deliver(paid)).body).toEqual({ received: true, id: paid.id, type: "invoice.paid", duplicate: false })
      expect(await invoicesOf()).toEqual([upgraded.body.invoice])
      expect((await deliver(paid)).body.duplicate).toBe(true)
      expect(await invoicesOf()).toEqual([upgraded.body.invoice])

      // The period ends (Stripe's and billing's alike) with 25,000 requests over the growth allowance.
      const item = kept.items.data[0]
      const end = Math.floor(Date.now() / 1000) - 10
      const start = end - 30 * 86_400
      stripe.setSubscription(kept.id, { items: { ...kept.items, data: [{ ...item, current_period_start: start, current_period_end: end }] } })
      await sql(`UPDATE billing.subscriptions SET current_period_start = to_timestamp(${start}), current_period_end = to_timestamp(${end}) WHERE id = '${subscriptionId}'`)
      usageByPlatform.set("plt_b", { requests: 10_025_000, resource_hours: 0, builds: 0 })
      await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
      const items = stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/invoiceitems")
      expect(items).toHaveLength(1)
      expect(items[0]).toMatchObject({
        idempotencyKey: `core-overage-${subscriptionId}-${start}-requests`,
        body: {
          customer: kept.customer,
          subscription: kept.id,
          amount: "1000",
          currency: "usd",
          description: "25,000 requests over the Growth allowance per 1,000",
          metadata: { meter: "requests", quantity: "25", unitAmountMinor: "40" },
          period: { start: String(start), end: String(end) }
        }
      })
      // Not twice for the period: the cycle's next turn, or the overage asked for again.
      await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
      const row = await h.run(Effect.flatMap(SubscriptionsRepo, (repo) => repo.byId(subscriptionId))).then(Option.getOrThrow)
      expect(await h.run(Effect.flatMap(ProviderOverage, (overage) => overage.bill({ ...row, currentPeriodStart: new Date(start * 1000) }, new Date(start * 1000), new Date(end * 1000))))).toBe(0)
      expect(stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/invoiceitems")).toHaveLength(1)
      expect(await sql(`SELECT meter, amount_minor::int AS amount FROM billing.provider_usage_items WHERE subscription_id = '${subscriptionId}'`)).toEqual([{ meter: "requests", amount: 1_000 }])
      usageByPlatform.delete("plt_b")

      // Stripe renews: its renewal invoice carries the base price and the pending overage item.
      const renewal = stripe.renew(kept.id)
      expect(renewal.invoice).toMatchObject({ billing_reason: "subscription_cycle", status: "paid", total: 10_900 })
      const updated = stripe.event("customer.subscription.updated", renewal.subscription, WEBHOOK_SECRET)
      const renewedPaid = stripe.event("invoice.paid", renewal.invoice, WEBHOOK_SECRET)
      // An older `invoice.payment_failed` of the same invoice (its payload still open) arrives after `invoice.paid`.
      const staleFailure = stripe.event("invoice.payment_failed", { ...renewal.invoice, status: "open", amount_paid: 0 }, WEBHOOK_SECRET)
      const first = [renewedPaid, updated, staleFailure].map((delivery) => delivery.id)
      const acks = []
      for (const delivery of [renewedPaid, updated, staleFailure]) acks.push(await deliver(delivery))
      expect(acks.map((ack) => [ack.status, ack.body.id, ack.body.duplicate])).toEqual(first.map((id) => [200, id, false]))
      const after = await json(await h.fetch("/api/billing/subscription?platformId=plt_b", own))
      const mirrored = await invoicesOf()
      // Duplicates, and the upgrade-time payload of the subscription (a new event, stale content): nothing changes.
      for (const delivery of [updated, renewedPaid]) expect((await deliver(delivery)).body.duplicate).toBe(true)
      expect((await send("customer.subscription.updated", kept)).body.duplicate).toBe(false)
      expect(await json(await h.fetch("/api/billing/subscription?platformId=plt_b", own))).toEqual(after)
      expect(await invoicesOf()).toEqual(mirrored)
      expect(after.body).toMatchObject({
        tier: "growth",
        status: "active",
        currentPeriodStart: new Date(end * 1000).toISOString(),
        currentPeriodEnd: new Date((end + 30 * 86_400) * 1000).toISOString()
      })
      const listed = await invoicesOf()
      expect(listed).toHaveLength(2)
      expect(listed[0]).toMatchObject({
        subscriptionId,
        status: "paid",
        description: "Renewal at Stripe",
        periodStart: new Date(start * 1000).toISOString(),
        periodEnd: new Date((end + 30 * 86_400) * 1000).toISOString(),
        subtotalMinor: 10_900,
        totalMinor: 10_900,
        amountDueMinor: 10_900,
        amountPaidMinor: 10_900,
        lines: [
          { kind: "base", description: `1 × ${item.price.id}`, meter: null, quantity: 1, unitAmountMinor: 9_900, amountMinor: 9_900 },
          { kind: "overage", description: "25,000 requests over the Growth allowance per 1,000", meter: "requests", quantity: 25, unitAmountMinor: 40, amountMinor: 1_000 }
        ]
      })
      expect(listed[0].totalMinor).toBe(listed[0].lines.reduce((sum: number, line: { amountMinor: number }) => sum + line.amountMinor, 0))
      expect(listed[1]).toEqual(upgraded.body.invoice)
      expect(await sql(`SELECT count(*)::int AS n FROM billing.invoices WHERE provider_invoice_id = '${renewal.invoice.id}'`)).toEqual([{ n: 1 }])
      // Stripe's renewal made no second overage item: the webhook's period is the one the cycle closed.
      expect(stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/invoiceitems")).toHaveLength(1)
    })

    it("a change of tier at Stripe: bad input 400, a declined card 402 and nothing changed; Stripe renewing first, the webhook sends the overage to the draft renewal", async () => {
      const own = { token: "usr_b_owner" }
      const before = await json(await h.fetch("/api/billing/subscription?platformId=plt_b", own))
      const kept = [...stripe.subscriptions.values()].find((sub) => sub.metadata.subscriptionId === before.body.id)!
      const invoices = async () => (await json(await h.fetch("/api/billing/invoices?platformId=plt_b", own))).body.data
      const listed = await invoices()

      const bad = await json(await h.fetch("/api/billing/subscription/proration-preview?tier=platinum", own))
      expect(bad.status).toBe(400)
      expect(bad.body.error).toMatchObject({ code: "VALIDATION_ERROR", requestId: expect.any(String), details: { issues: [expect.objectContaining({ path: "tier" })] } })
      const same = await json(await h.fetch("/api/billing/subscription/change-tier", { method: "POST", ...own, json: { tier: "growth" } }))
      expect(same).toMatchObject({ status: 409, body: { error: { code: "CONFLICT", message: "The subscription is already on growth" } } })

      // A declining card on the Stripe subscription: Stripe refuses the update (`error_if_incomplete`); nothing changes anywhere.
      const card = kept.default_payment_method
      stripe.setSubscription(kept.id, { default_payment_method: stripe.addDecliningCard(kept.customer) })
      expect((await json(await h.fetch("/api/billing/subscription/proration-preview?tier=scale", own))).status).toBe(200)
      const declined = await json(await h.fetch("/api/billing/subscription/change-tier", { method: "POST", ...own, json: { tier: "scale" } }))
      expect(declined).toMatchObject({ status: 402, body: { error: { code: "PAYMENT_FAILED", message: "Your card was declined." } } })
      expect(stripe.subscriptions.get(kept.id)!.items.data[0].price.id).toBe(kept.items.data[0].price.id)
      expect(await json(await h.fetch("/api/billing/subscription?platformId=plt_b", own))).toEqual(before)
      expect(await invoices()).toEqual(listed)
      stripe.setSubscription(kept.id, { default_payment_method: card })

      // Stripe renews before billing's cycle sees the period end: its `customer.subscription.updated`
      // sends the ended period's overage, onto the renewal Stripe keeps a draft for an hour.
      usageByPlatform.set("plt_b", { requests: 10_000_000, resource_hours: 25_010, builds: 0 })
      const renewal = stripe.renew(kept.id, { draft: true })
      const updated = stripe.event("customer.subscription.updated", renewal.subscription, WEBHOOK_SECRET)
      expect((await deliver(updated)).status).toBe(200)
      expect((await deliver(updated)).body.duplicate).toBe(true)
      const items = stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/invoiceitems")
      expect(items.at(-1)).toMatchObject({
        idempotencyKey: `core-overage-${before.body.id}-${Date.parse(before.body.currentPeriodStart) / 1000}-resource_hours`,
        body: { amount: "20", invoice: renewal.invoice.id, metadata: { meter: "resource_hours", quantity: "10" } }
      })
      expect(items).toHaveLength(2)
      // The billing cycle later: the period was billed already.
      await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
      expect(stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/invoiceitems")).toHaveLength(2)
      usageByPlatform.delete("plt_b")
      const finalized = stripe.finalize(renewal.invoice.id)
      expect(finalized).toMatchObject({ status: "paid", total: 9_920 })
      expect((await send("invoice.finalized", finalized)).status).toBe(200)
      expect((await send("invoice.paid", finalized)).status).toBe(200)
      const [newest] = await invoices()
      expect(newest).toMatchObject({
        status: "paid",
        totalMinor: 9_920,
        amountPaidMinor: 9_920,
        lines: [
          expect.objectContaining({ kind: "base", amountMinor: 9_900 }),
          { kind: "overage", description: "10 resource-hours over the Growth allowance", meter: "resource_hours", quantity: 10, unitAmountMinor: 2, amountMinor: 20 }
        ]
      })
      expect(await invoices()).toHaveLength(listed.length + 1)
    })
  })
}
