import { type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingCycle, ProviderOverage, SubscriptionsRepo } from "../src/index.js"
import { StripeStandIn } from "./StripeStandIn.js"
import { billingLayer, startStripeBilling, usageByPlatform, WEBHOOK_SECRET } from "./Support.js"

type Layered = Layer.Layer.Success<ReturnType<typeof billingLayer>>

/**
 * Decision 0449's two ends of a Stripe subscription: a change of tier from `free` starts it at
 * Stripe as the upgrade does (one code path, `ProviderStart`), and the last period of one cancelled
 * at period end has its overage invoiced at Stripe once, by a one-off invoice.
 */
for (const driver of TestDatabase.drivers) {
  describe(`the start and the end of a Stripe subscription on ${driver}`, () => {
    let h: HttpHarness<Layered>
    let stripe: StripeStandIn
    let stop: () => Promise<void>
    const json = async (response: Response) => {
      const text = await response.text()
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
    }
    const seen = (method: string, path: string) => stripe.requests.filter((request) => request.method === method && request.path.startsWith(path))
    const sql = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe(text))) as Promise<Array<any>>
    const subscriptionOf = async (platformId: string, token: string) => (await h.fetch(`/api/billing/subscription?platformId=${platformId}`, { token })).json()
    const invoicesOf = async (platformId: string, token: string) => (await json(await h.fetch(`/api/billing/invoices?platformId=${platformId}`, { token }))).body.data
    const deliver = async (type: string, object: Record<string, any>, id?: string) => {
      const delivery = stripe.event(type, object, WEBHOOK_SECRET, id)
      return json(await h.fetch("/webhooks/stripe", { method: "POST", body: delivery.payload, headers: { "content-type": "application/json", "stripe-signature": delivery.signature } }))
    }
    const change = (token: string, tier: string) => h.fetch("/api/billing/subscription/change-tier", { method: "POST", token, json: { tier } }).then(json)

    beforeAll(async () => {
      ;({ h, stripe, stop } = await startStripeBilling(driver, {
        secretKey: "sk_test_ends",
        planPrices: { starter: "price_1StarterMonthly" },
        amounts: { price_1StarterMonthly: 3_100 }
      }))
    })
    afterAll(() => stop())

    it("from free, the change starts the subscription at Stripe: no card 402, a declined one 402 with nothing kept, the preview equal to the cent to Stripe's first invoice", async () => {
      const own = "usr_owner"
      const before = await subscriptionOf("plt_a", own)
      expect(before).toMatchObject({ tier: "free", status: "active" })
      const { customerId } = before
      const state = () => sql(`SELECT plan_id, status, provider_subscription_id FROM billing.subscriptions WHERE platform_id = 'plt_a'`)

      // No payment method on file: the 402 billing's own path answers; nothing at Stripe.
      expect(await change(own, "starter")).toEqual({ status: 402, body: { error: { code: "PAYMENT_FAILED", message: "No payment method on file", details: null, requestId: expect.any(String) } } })
      // A declined default card: Stripe's 402 (`error_if_incomplete`), and Stripe and billing keep nothing.
      stripe.addCard(customerId, "pm_card_chargeDeclined")
      expect(await change(own, "starter")).toEqual({ status: 402, body: { error: { code: "PAYMENT_FAILED", message: "Your card was declined.", details: { declineCode: "generic_decline" }, requestId: expect.any(String) } } })
      expect(stripe.subscriptions.size).toBe(0)
      expect([...stripe.invoices.values()]).toEqual([])
      expect(await state()).toEqual([{ plan_id: "free", status: "active", provider_subscription_id: null }])
      expect(await invoicesOf("plt_a", own)).toEqual([])

      // A credit on the customer's balance: Stripe's first invoice applies it, and so does the preview.
      expect((await h.fetch("/operator/credits", { method: "POST", token: "usr_operator", json: { customerId, amount: 500, description: "Goodwill", reason: "test" } })).status).toBe(201)
      const card = stripe.addCard(customerId)
      const preview = await json(await h.fetch("/api/billing/subscription/proration-preview?tier=starter", { token: own }))
      expect(seen("POST", "/v1/invoices/create_preview").at(-1)?.body).toEqual({ customer: customerId, subscription_details: { items: [{ price: "price_1StarterMonthly", quantity: "1" }] } })
      const lines = [
        { kind: "base", description: "1 × price_1StarterMonthly", meter: null, quantity: 1, unitAmountMinor: 3_100, amountMinor: 3_100 },
        { kind: "credit", description: "Credit applied from the balance", meter: null, quantity: 1, unitAmountMinor: -500, amountMinor: -500 }
      ]
      expect(preview).toEqual({
        status: 200,
        body: {
          fromTier: "free",
          toTier: "starter",
          currency: "usd",
          prorationDate: preview.body.periodStart,
          periodStart: expect.stringMatching(/:\d\d\.000Z$/),
          periodEnd: new Date(Date.parse(preview.body.periodStart) + 30 * 86_400_000).toISOString(),
          lines,
          amountMinor: 2_600
        }
      })

      const changed = await change(own, "starter")
      expect(changed.status).toBe(200)
      expect(changed.body.amountMinor).toBe(preview.body.amountMinor)
      const kept = [...stripe.subscriptions.values()]
      expect(kept).toHaveLength(1)
      const created = seen("POST", "/v1/subscriptions").at(-1)!
      const row = (await state())[0]
      expect(created.body).toEqual({
        customer: customerId,
        items: [{ price: "price_1StarterMonthly", quantity: "1" }],
        default_payment_method: card,
        payment_behavior: "error_if_incomplete",
        metadata: { platformId: "plt_a", subscriptionId: before.id }
      })
      expect(created.idempotencyKey).toMatch(new RegExp(`^core-tier-${before.id}-free-starter-\\d+-${card}$`))
      const first = stripe.invoices.get(kept[0]!.latest_invoice)!
      expect(first).toMatchObject({ billing_reason: "subscription_create", status: "paid", total: 3_100, amount_due: 2_600, amount_paid: 2_600 })
      expect(stripe.customers.get(customerId)!.balance).toBe(0)
      expect(stripe.paymentIntents.size).toBe(0)
      expect(changed.body.invoice).toMatchObject({ status: "paid", description: "Change from free to Starter", totalMinor: 2_600, amountDueMinor: 2_600, amountPaidMinor: 2_600, lines })
      expect(changed.body.subscription).toMatchObject({ tier: "starter", status: "active", cancelAtPeriodEnd: false, paymentMethodId: card, overridden: false })
      expect(row).toEqual({ plan_id: "starter", status: "active", provider_subscription_id: kept[0]!.id })
      expect(await sql(`SELECT provider_invoice_id, kind FROM billing.invoices WHERE platform_id = 'plt_a'`)).toEqual([{ provider_invoice_id: first.id, kind: "upgrade" }])
      expect((await invoicesOf("plt_a", own)).map((invoice: { id: string }) => invoice.id)).toEqual([changed.body.invoice.id])

      // Again: already on starter (409); nothing more at Stripe or in billing.
      const requests = stripe.requests.length
      expect(await change(own, "starter")).toMatchObject({ status: 409, body: { error: { code: "CONFLICT" } } })
      expect(stripe.requests.length).toBe(requests)
      expect(stripe.subscriptions.size).toBe(1)
      expect(await sql(`SELECT count(*)::int AS n FROM billing.invoices WHERE platform_id = 'plt_a'`)).toEqual([{ n: 1 }])
    })

    it("cancelled at period end, the last period's overage is a one-off invoice at Stripe, made once: the webhook first", async () => {
      const own = "usr_b_owner"
      const upgraded = await json(await h.fetch("/api/billing/upgrade", { method: "POST", token: own, json: { planId: "growth", paymentMethodId: "pm_card_visa", billingEmail: "pay@b.example", idempotencyKey: "5f0a7e4c-2b1d-4c3e-8f00-000000000001" } }))
      expect(upgraded.status).toBe(200)
      const subscriptionId = upgraded.body.subscription.id
      const cancelled = (await json(await h.fetch("/api/billing/subscription/cancel", { method: "POST", token: own }))).body
      expect(cancelled).toMatchObject({ tier: "growth", cancelAtPeriodEnd: true })
      const stripeId = (await sql(`SELECT provider_subscription_id AS id FROM billing.subscriptions WHERE id = '${subscriptionId}'`))[0].id
      const start = Date.parse(upgraded.body.subscription.currentPeriodStart) / 1000
      const end = Date.parse(upgraded.body.subscription.currentPeriodEnd) / 1000
      usageByPlatform.set("plt_b", { requests: 10_025_000, resource_hours: 0, builds: 0 })

      // Stripe ends it at the period's end with no renewal invoice; its `deleted` event brings billing the end.
      const ended = stripe.endAtPeriodEnd(stripeId)
      const event = stripe.id("evt")
      expect(await deliver("customer.subscription.deleted", ended, event)).toEqual({ status: 200, body: { received: true, id: event, type: "customer.subscription.deleted", duplicate: false } })
      const item = seen("POST", "/v1/invoiceitems").at(-1)!
      expect(item).toMatchObject({ idempotencyKey: `core-overage-${subscriptionId}-${start}-requests` })
      expect(item.body).toEqual({
        customer: upgraded.body.subscription.customerId,
        amount: "1000",
        currency: "usd",
        description: "25,000 requests over the Growth allowance per 1,000",
        metadata: { meter: "requests", quantity: "25", unitAmountMinor: "40", platformId: "plt_b", subscriptionId },
        period: { start: String(start), end: String(end) }
      })
      const made = seen("POST", "/v1/invoices").filter((request) => !request.path.includes("create_preview"))
      expect(made.map((request) => [request.path.replace(/in_\w+/, ":id"), request.idempotencyKey])).toEqual([
        ["/v1/invoices", `core-final-${subscriptionId}-${start}-create`],
        ["/v1/invoices/:id/finalize", `core-final-${subscriptionId}-${start}-finalize`],
        ["/v1/invoices/:id/pay", `core-final-${subscriptionId}-${start}-pay`]
      ])
      const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10)
      expect(made[0]!.body).toEqual({
        customer: upgraded.body.subscription.customerId,
        pending_invoice_items_behavior: "include",
        collection_method: "charge_automatically",
        auto_advance: "false",
        description: `Overage of the last period, ${day(start)} to ${day(end)}`,
        metadata: { platformId: "plt_b", subscriptionId, periodStart: String(start) }
      })
      const invoice = stripe.invoices.get(made[1]!.path.split("/")[3]!)!
      expect(invoice).toMatchObject({ billing_reason: "manual", status: "paid", total: 1_000, amount_paid: 1_000 })
      const listed = await invoicesOf("plt_b", own)
      expect(listed).toHaveLength(2)
      expect(listed[0]).toMatchObject({
        status: "paid",
        totalMinor: 1_000,
        amountPaidMinor: 1_000,
        lines: [{ kind: "overage", description: "25,000 requests over the Growth allowance per 1,000", meter: "requests", quantity: 25, unitAmountMinor: 40, amountMinor: 1_000 }]
      })
      expect(await sql(`SELECT meter, amount_minor::int AS amount, provider_invoice_id FROM billing.provider_usage_items WHERE subscription_id = '${subscriptionId}'`))
        .toEqual([{ meter: "requests", amount: 1_000, provider_invoice_id: invoice.id }])
      expect(await sql(`SELECT status, cancel_at_period_end, provider_subscription_id FROM billing.subscriptions WHERE id = '${subscriptionId}'`))
        .toEqual([{ status: "cancelled", cancel_at_period_end: false, provider_subscription_id: null }])

      // Twice, another event of the end, the cycle, the final bill asked for again: nothing more.
      const requests = stripe.requests.filter((request) => request.method === "POST").length
      expect((await deliver("customer.subscription.deleted", ended, event)).body.duplicate).toBe(true)
      expect((await deliver("customer.subscription.deleted", ended)).status).toBe(200)
      await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
      const row = await h.run(Effect.flatMap(SubscriptionsRepo, (repo) => repo.byId(subscriptionId))).then(Option.getOrThrow)
      const again = await h.run(Effect.flatMap(ProviderOverage, (overage) => overage.billFinal({ ...row, providerSubscriptionId: stripeId, status: "active" }, new Date(start * 1000), new Date(end * 1000))))
      expect(Option.isNone(again)).toBe(true)
      expect(stripe.requests.filter((request) => request.method === "POST").length).toBe(requests)
      expect(await invoicesOf("plt_b", own)).toEqual(listed)
      usageByPlatform.delete("plt_b")
    })

    it("the billing cycle first: the period closes with the one-off invoice; Stripe's later `deleted` adds nothing", async () => {
      const own = "usr_owner"
      const { id: subscriptionId } = await subscriptionOf("plt_a", own)
      expect((await json(await h.fetch("/api/billing/subscription/cancel", { method: "POST", token: own }))).body).toMatchObject({ tier: "starter", cancelAtPeriodEnd: true })
      const stripeId = (await sql(`SELECT provider_subscription_id AS id FROM billing.subscriptions WHERE id = '${subscriptionId}'`))[0].id
      // Billing's period has ended (moved back a month, as the clock would have moved on).
      await sql(`UPDATE billing.subscriptions SET current_period_start = current_period_start - interval '30 days', current_period_end = now() - interval '1 second' WHERE id = '${subscriptionId}'`)
      const [{ start }] = await sql(`SELECT extract(epoch FROM current_period_start)::int AS start FROM billing.subscriptions WHERE id = '${subscriptionId}'`)
      usageByPlatform.set("plt_a", { requests: 0, resource_hours: 0, builds: 503 })

      await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
      const final = seen("POST", "/v1/invoices").filter((request) => request.idempotencyKey === `core-final-${subscriptionId}-${start}-create`)
      expect(final).toHaveLength(1)
      expect(seen("POST", "/v1/invoiceitems").at(-1)?.body).toMatchObject({ amount: "30", metadata: { meter: "builds", quantity: "3", unitAmountMinor: "10" } })
      expect(seen("POST", "/v1/invoiceitems").at(-1)?.body.subscription).toBeUndefined()
      const listed = await invoicesOf("plt_a", own)
      expect(listed[0]).toMatchObject({ status: "paid", totalMinor: 30, lines: [{ kind: "overage", meter: "builds", quantity: 3, unitAmountMinor: 10, amountMinor: 30 }] })
      expect(await sql(`SELECT status FROM billing.subscriptions WHERE id = '${subscriptionId}'`)).toEqual([{ status: "cancelled" }])

      const requests = stripe.requests.filter((request) => request.method === "POST").length
      expect((await deliver("customer.subscription.deleted", stripe.endAtPeriodEnd(stripeId))).status).toBe(200)
      await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
      expect(stripe.requests.filter((request) => request.method === "POST").length).toBe(requests)
      expect(await invoicesOf("plt_a", own)).toEqual(listed)
      expect(await sql(`SELECT count(*)::int AS n FROM billing.provider_usage_items WHERE subscription_id = '${subscriptionId}' AND provider_invoice_id IS NOT NULL`)).toEqual([{ n: 1 }])
      expect(await sql(`SELECT status, provider_subscription_id FROM billing.subscriptions WHERE id = '${subscriptionId}'`)).toEqual([{ status: "cancelled", provider_subscription_id: null }])
      usageByPlatform.delete("plt_a")
    })
  })
}
