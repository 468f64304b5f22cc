import { type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Option, TestClock, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingCycle, BillingPlatforms, Subscriptions, SubscriptionsRepo, Webhooks } from "../src/index.js"
import type { StripeStandIn } from "./StripeStandIn.js"
import { billingLayer, startStripeBilling, usageByPlatform, WEBHOOK_SECRET } from "./Support.js"

type Layered = Layer.Layer.Success<ReturnType<typeof billingLayer>>

const DAY = 86_400_000
const MONTH_SECONDS = 30 * 86_400

/**
 * Decisions 0585–0587 with Stripe (the stand-in): a subscription cancelled at once is cancelled at
 * Stripe with `prorate` and its partial period invoiced by the one-off final invoice; a declined one
 * is retried at Stripe on billing's schedule, then marked uncollectible; refunds and credit notes
 * at Stripe are mirrored onto the invoice and the overview, from signed webhooks delivered twice
 * and out of order.
 */
for (const driver of TestDatabase.drivers) {
  describe(`final invoices, refunds and credit notes at Stripe on ${driver}`, () => {
    let h: HttpHarness<Layered>
    let stripe: StripeStandIn
    let stop: () => Promise<void>
    const json = async (response: Response) => {
      const text = await response.text()
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
    }
    const sql = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe(text))) as Promise<Array<any>>
    const deliver = async (type: string, object: Record<string, any>, id?: string) => {
      const delivery = stripe.event(type, object, WEBHOOK_SECRET, id)
      return json(await h.fetch("/webhooks/stripe", { method: "POST", body: delivery.payload, headers: { "content-type": "application/json", "stripe-signature": delivery.signature } }))
    }
    const invoicesOf = async (platformId: string, token: string) => (await json(await h.fetch(`/api/billing/invoices?platformId=${platformId}`, { token }))).body.data
    const seen = (method: string, path: string) => stripe.requests.filter((request) => request.method === method && request.path.startsWith(path))
    const platform = (id: string) => h.run(Effect.flatMap(BillingPlatforms, (platforms) => platforms.find(id))).then(Option.getOrThrow)
    /** An upgrade to `planId` at Stripe, its period then moved to have started `startDays` ago (at Stripe and in billing). */
    const upgraded = async (token: string, planId: string, key: string, startDays: number) => {
      const done = await json(await h.fetch("/api/billing/upgrade", { method: "POST", token, json: { planId, paymentMethodId: "pm_card_visa", billingEmail: "pay@example.com", idempotencyKey: key } }))
      expect(done.status).toBe(200)
      const subscriptionId = done.body.subscription.id
      const [{ id: stripeId }] = await sql(`SELECT provider_subscription_id AS id FROM billing.subscriptions WHERE id = '${subscriptionId}'`)
      const start = Math.floor(Date.now() / 1000) - startDays * 86_400
      const current = stripe.subscriptions.get(stripeId)!
      stripe.setSubscription(stripeId, { items: { ...current.items, data: current.items.data.map((item: any) => ({ ...item, current_period_start: start, current_period_end: start + MONTH_SECONDS })) } })
      await sql(`UPDATE billing.subscriptions SET current_period_start = to_timestamp(${start}), current_period_end = to_timestamp(${start + MONTH_SECONDS}), updated_at = now() - interval '1 day' WHERE id = '${subscriptionId}'`)
      return { subscriptionId, stripeId, customerId: done.body.subscription.customerId as string, start }
    }
    const toFree = async (platformId: string) => {
      await h.run(Effect.flatMap(BillingPlatforms, (platforms) => platforms.setTier(platformId, "free")))
      await h.run(Effect.flatMap(Subscriptions, (subscriptions) => Effect.flatMap(BillingPlatforms, (platforms) => Effect.flatMap(platforms.find(platformId), (view) => subscriptions.ensure(Option.getOrThrow(view))))))
    }

    beforeAll(async () => {
      ;({ h, stripe, stop } = await startStripeBilling(driver, { secretKey: "sk_test_money", planPrices: { starter: "price_1StarterMonthly", growth: "price_1GrowthMonthly" } }))
    })
    afterAll(() => stop())

    it("set to free mid-period: cancelled at Stripe with prorate, the overage beyond half the allowance and Stripe's credit for the unused half on one final invoice, once; then refunds and credit notes mirrored", async () => {
      const own = "usr_b_owner"
      const { subscriptionId, stripeId, customerId, start } = await upgraded(own, "growth", "7a0c3f4e-2b1d-4c3e-8f00-000000000011", 15)
      usageByPlatform.set("plt_b", { requests: 10_025_000, resource_hours: 0, builds: 0 })
      await toFree("plt_b")

      expect(seen("DELETE", `/v1/subscriptions/${stripeId}`).map((request) => request.body)).toEqual([{ prorate: "true" }])
      expect(stripe.subscriptions.get(stripeId)).toMatchObject({ status: "canceled" })
      // Half the period used: 5,000,000 of the 10,000,000 requests included; 5,025 started blocks at 40.
      const item = seen("POST", "/v1/invoiceitems").at(-1)!
      expect(item.idempotencyKey).toBe(`core-overage-${subscriptionId}-${start}-requests`)
      expect(item.body).toMatchObject({ customer: customerId, amount: "201000", metadata: { meter: "requests", quantity: "5025", unitAmountMinor: "40" } })
      expect(item.body.subscription).toBeUndefined()
      const made = seen("POST", "/v1/invoices").filter((request) => request.idempotencyKey?.startsWith(`core-final-${subscriptionId}-${start}`))
      expect(made.map((request) => request.idempotencyKey)).toEqual([`core-final-${subscriptionId}-${start}-create`, `core-final-${subscriptionId}-${start}-finalize`, `core-final-${subscriptionId}-${start}-pay`])
      const final = stripe.invoices.get(made[1]!.path.split("/")[3]!)!
      const credit = final.lines.data.find((line: any) => line.parent.invoice_item_details?.proration === true).amount
      expect(credit).toBeGreaterThanOrEqual(-4_951)
      expect(credit).toBeLessThanOrEqual(-4_949)
      expect(final).toMatchObject({ billing_reason: "manual", status: "paid", total: 201_000 + credit, amount_paid: 201_000 + credit })

      const listed = await invoicesOf("plt_b", own)
      expect(listed).toHaveLength(2)
      expect(listed[0]).toMatchObject({
        subscriptionId,
        status: "paid",
        description: "Final invoice",
        totalMinor: 201_000 + credit,
        amountPaidMinor: 201_000 + credit,
        lines: [
          { kind: "proration", description: expect.stringMatching(/^Unused time on price_1GrowthMonthly after /), meter: null, quantity: 1, unitAmountMinor: credit, amountMinor: credit },
          // Stripe's clock is the real one: a second or two past the half moves the allowance by a few requests, not the blocks.
          { kind: "overage", description: expect.stringMatching(/^5,02[45],\d{3} requests over the Growth allowance per 1,000$/), meter: "requests", quantity: 5_025, unitAmountMinor: 40, amountMinor: 201_000 }
        ],
        amountRefundedMinor: 0,
        refunds: [],
        creditNotes: []
      })
      expect(await sql(`SELECT plan_id, status, provider_subscription_id FROM billing.subscriptions WHERE id = '${subscriptionId}'`)).toEqual([{ plan_id: "free", status: "active", provider_subscription_id: null }])

      // Met again, and Stripe's late `deleted` of the subscription: nothing more at Stripe.
      const posts = seen("POST", "/v1/").length
      await toFree("plt_b")
      expect((await deliver("customer.subscription.deleted", stripe.subscriptions.get(stripeId)!)).status).toBe(200)
      expect(seen("POST", "/v1/").length).toBe(posts)

      // A refund at Stripe, pending then succeeded: mirrored by re-reading, whatever the order and however often delivered.
      const charge = stripe.money.chargeOf(final.id)
      const refund = stripe.money.refund({ charge: charge.id, amount: 50_000, reason: "requested_by_customer" }, "pending")
      const created = stripe.id("evt")
      expect(await deliver("refund.created", refund, created)).toEqual({ status: 200, body: { received: true, id: created, type: "refund.created", duplicate: false } })
      expect((await invoicesOf("plt_b", own))[0]).toMatchObject({ amountRefundedMinor: 50_000, refunds: [{ id: refund.id, amountMinor: 50_000, status: "pending", reason: "requested_by_customer", createdAt: expect.any(String) }] })
      const succeeded = stripe.money.setRefund(refund.id, { status: "succeeded" })
      expect((await deliver("refund.updated", succeeded)).status).toBe(200)
      expect((await deliver("refund.created", refund, created)).body.duplicate).toBe(true)
      // The older event, delivered again under another id (a stale payload): Stripe's state stands.
      expect((await deliver("refund.created", refund)).status).toBe(200)
      expect((await deliver("charge.refunded", stripe.money.charges.get(charge.id)!)).status).toBe(200)
      expect((await invoicesOf("plt_b", own))[0]).toMatchObject({ status: "paid", amountRefundedMinor: 50_000, refunds: [{ id: refund.id, status: "succeeded" }] })

      // A credit note refunding more, and one crediting the balance, voided: the voided event before the created one.
      const refunding = stripe.money.creditNote({ invoice: final.id, amount: "10000", refund_amount: "10000", reason: "product_unsatisfactory" })
      const crediting = stripe.money.creditNote({ invoice: final.id, amount: "2000", reason: "duplicate" })
      const voided = stripe.money.voidCreditNote(crediting.id)
      expect((await deliver("credit_note.voided", voided)).status).toBe(200)
      expect((await deliver("credit_note.created", crediting)).status).toBe(200)
      expect((await deliver("credit_note.created", refunding)).status).toBe(200)
      const adjusted = (await invoicesOf("plt_b", own))[0]
      expect(adjusted).toMatchObject({ status: "paid", amountRefundedMinor: 60_000, amountCreditedMinor: 10_000 })
      expect(adjusted.refunds.map((entry: any) => [entry.amountMinor, entry.status])).toEqual([[50_000, "succeeded"], [10_000, "succeeded"]])
      expect(adjusted.creditNotes.map((entry: any) => [entry.id, entry.amountMinor, entry.status, entry.type, entry.reason])).toEqual([
        [refunding.id, 10_000, "issued", "post_payment", "product_unsatisfactory"],
        [crediting.id, 2_000, "void", "post_payment", "duplicate"]
      ])
      expect((await json(await h.fetch("/operator/overview", { token: "usr_operator" }))).body).toMatchObject({ refundedMinor: 60_000, creditedMinor: 10_000 })
      // The tenant alone sees it; a forged delivery changes nothing.
      expect((await h.fetch(`/api/billing/invoices/${adjusted.id}?platformId=plt_b`, { token: "usr_owner" })).status).toBe(404)
      const forged = stripe.event("credit_note.created", refunding, "whsec_other")
      expect((await h.fetch("/webhooks/stripe", { method: "POST", body: forged.payload, headers: { "content-type": "application/json", "stripe-signature": forged.signature } })).status).toBe(400)
      // A refund of a payment that is no invoice of ours: accepted, nothing changes.
      expect((await deliver("refund.created", { id: "re_unknown", object: "refund" })).status).toBe(200)
      expect((await invoicesOf("plt_b", own))[0]).toEqual(adjusted)
      usageByPlatform.delete("plt_b")
    })

    it("declined: retried at Stripe at 3, 7 and 14 days, then marked uncollectible there and the platform suspended; paid at Stripe, the platform is restored", async () => {
      const own = "usr_owner"
      const { customerId } = await upgraded(own, "starter", "7a0c3f4e-2b1d-4c3e-8f00-000000000012", 10)
      usageByPlatform.set("plt_a", { requests: 0, resource_hours: 0, builds: 900 })
      stripe.addCard(customerId, "pm_card_chargeDeclined")
      await toFree("plt_a")
      const [open] = await invoicesOf("plt_a", own)
      // A third of the period: 500 × 10/30 = 167 builds included, 733 over at 10; Stripe credits two thirds of 2,900.
      expect(open.lines.map((line: any) => [line.kind, line.amountMinor])).toEqual([["proration", -1_933], ["overage", 7_330]])
      expect(open).toMatchObject({ status: "open", totalMinor: 5_397, amountDueMinor: 5_397, collection: { state: "retrying", failedAttempts: 1, lastFailure: "The payment of the final invoice failed" } })
      const stripeInvoice = (await sql(`SELECT provider_invoice_id AS id FROM billing.invoices WHERE id = '${open.id}'`))[0].id
      const firstFailedAt = Date.parse(open.collection.nextAttemptAt) - 3 * DAY
      const retry = (millis: number) =>
        h.run(Effect.gen(function*() {
          yield* TestClock.setTime(millis)
          return yield* Effect.flatMap(BillingCycle, (cycle) => cycle.retryDue())
        }).pipe(Effect.provide(TestContext.TestContext)))
      for (const days of [3, 7, 14]) expect(await retry(firstFailedAt + days * DAY)).toBe(1)
      expect(seen("POST", `/v1/invoices/${stripeInvoice}/pay`).map((request) => request.idempotencyKey)).toEqual([
        expect.stringMatching(/-pay$/),
        `core-collect-${open.id}-2`,
        `core-collect-${open.id}-3`,
        `core-collect-${open.id}-4`
      ])
      expect(seen("POST", `/v1/invoices/${stripeInvoice}/mark_uncollectible`)).toHaveLength(1)
      expect(stripe.invoices.get(stripeInvoice)).toMatchObject({ status: "uncollectible" })
      expect((await invoicesOf("plt_a", own))[0]).toMatchObject({ status: "uncollectible", collection: { state: "uncollectible", failedAttempts: 4, nextAttemptAt: null } })
      expect((await platform("plt_a")).status).toBe("suspended")

      // The customer pays at Stripe (the hosted invoice page): `invoice.paid` ends the collection and restores the platform.
      stripe.addCard(customerId, "pm_card_visa")
      const paid = { ...stripe.invoices.get(stripeInvoice)!, status: "paid", amount_paid: 5_397, amount_remaining: 0 }
      stripe.invoices.set(stripeInvoice, paid)
      // Delivered on the test clock, a day after the last retry (the log is in time order).
      const delivery = stripe.event("invoice.paid", paid, WEBHOOK_SECRET)
      await h.run(Effect.gen(function*() {
        yield* TestClock.setTime(firstFailedAt + 15 * DAY)
        return yield* Effect.flatMap(Webhooks, (webhooks) => webhooks.receive(new TextEncoder().encode(delivery.payload), delivery.signature))
      }).pipe(Effect.provide(TestContext.TestContext)))
      expect((await invoicesOf("plt_a", own))[0]).toMatchObject({ status: "paid", amountPaidMinor: 5_397, collection: { state: "paid" } })
      expect((await platform("plt_a")).status).toBe("active")
      const log = (await json(await h.fetch(`/operator/log?target=${open.id}`, { token: "usr_operator" }))).body.data
      expect(log.map((entry: { action: string; actor: string }) => `${entry.action} ${entry.actor}`)).toEqual([
        "invoice.payment_failed registry",
        "invoice.retry scheduler",
        "invoice.retry scheduler",
        "invoice.retry scheduler",
        "invoice.uncollectible scheduler",
        "invoice.paid stripe"
      ])
      usageByPlatform.delete("plt_a")
    })

    it("a deleted platform with no overage: cancelled at Stripe with prorate, the final invoice holds Stripe's credit alone, paid at 0 with the rest on the balance; cancelled", async () => {
      const own = "usr_owner"
      const { subscriptionId, stripeId, customerId } = await upgraded(own, "starter", "7a0c3f4e-2b1d-4c3e-8f00-000000000013", 20)
      const row = await h.run(Effect.flatMap(SubscriptionsRepo, (repo) => repo.byId(subscriptionId))).then(Option.getOrThrow)
      const items = seen("POST", "/v1/invoiceitems").length
      const ended = await h.run(Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.endNow(row, "registry")))
      expect(ended).toMatchObject({ status: "cancelled", providerSubscriptionId: null })
      expect(seen("DELETE", `/v1/subscriptions/${stripeId}`).map((request) => request.body)).toEqual([{ prorate: "true" }])
      expect(seen("POST", "/v1/invoiceitems").length).toBe(items)
      const [final] = await invoicesOf("plt_a", own)
      // Two thirds of 2,900 unused: a credit above anything due, so the invoice is paid at 0 and Stripe keeps the rest as credit.
      expect(final).toMatchObject({ status: "paid", description: "Final invoice", totalMinor: -967, amountDueMinor: 0, lines: [{ kind: "proration", amountMinor: -967 }] })
      expect(stripe.customers.get(customerId)!.balance).toBe(-967)
      expect(await sql(`SELECT status FROM billing.subscriptions WHERE id = '${subscriptionId}'`)).toEqual([{ status: "cancelled" }])
      // Ended again: nothing more at Stripe.
      const requests = stripe.requests.length
      await h.run(Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.endNow(row, "registry")))
      expect(stripe.requests.length).toBe(requests)
    })
  })
}
