import { type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingPlatforms } from "../src/index.js"
import { prorate, StripeStandIn } from "./StripeStandIn.js"
import { billingLayer, startStripeBilling } from "./Support.js"
import { eventually } from "@core/kernel/testing/poll"

type Layered = Layer.Layer.Success<ReturnType<typeof billingLayer>>

/** The billing service with the Stripe adapter, over HTTP, against a local stand-in for Stripe's API. */
for (const driver of TestDatabase.drivers) {
  describe(`billing with the Stripe provider on ${driver}`, () => {
    let h: HttpHarness<Layered>
    let stripe: StripeStandIn
    let stop: () => Promise<void>
    const json = async (response: Response) => {
      const text = await response.text()
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
    }
    const seen = (method: string, path: string) => stripe.requests.filter((request) => request.method === method && request.path === path)
    const sql = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe(text))) as Promise<Array<any>>
    const subscriptionOf = async (platformId: string, token = "usr_owner") =>
      (await h.fetch(`/api/billing/subscription?platformId=${platformId}`, { token })).json()

    beforeAll(async () => {
      // Stripe's price, not billing's plan table (2,900): the mirrored invoices must carry Stripe's amounts.
      ;({ h, stripe, stop } = await startStripeBilling(driver, {
        secretKey: "sk_test_standin_key",
        planPrices: { starter: "price_1StarterMonthly" },
        amounts: { price_1StarterMonthly: 3_100 }
      }))
    })
    afterAll(() => stop())

    it("creates the platform's customer at Stripe, with the secret key as bearer and the platform in its metadata", async () => {
      const subscription = await subscriptionOf("plt_a")
      expect(subscription).toMatchObject({ platformId: "plt_a", tier: "free", status: "active" })
      const customer = stripe.customers.get(subscription.customerId)
      expect(customer).toMatchObject({ email: "billing+plt_a@core.invalid", metadata: { platformId: "plt_a" } })
      const [created] = seen("POST", "/v1/customers")
      expect(created).toMatchObject({ authorization: "Bearer sk_test_standin_key", body: { metadata: { platformId: "plt_a" } } })
      expect(created!.idempotencyKey).toMatch(/\S/)
    })

    it("meets a new platform once however many requests race: one customer at Stripe, under a key of the platform (decision 0447)", async () => {
      const path = "/internal/platforms/plt_ops/subscription"
      const raced = await Promise.all([
        ...[1, 2, 3, 4].map(() => h.fetch(path, { method: "POST", token: "static" }).then(json)),
        ...[1, 2].map(() => h.fetch("/api/billing/subscription?platformId=plt_ops", { token: "usr_operator" }).then(json))
      ])
      expect(raced.map((r) => [r.status, r.body?.error?.code])).toEqual([200, 200, 200, 200, 200, 200].map((status) => [status, undefined]))
      expect(new Set(raced.map((r) => r.body.customerId)).size).toBe(1)
      expect([...stripe.customers.values()].filter((customer) => customer.metadata.platformId === "plt_ops")).toHaveLength(1)
      expect(seen("POST", "/v1/customers").filter((request) => request.idempotencyKey === "core-customer-plt_ops")).toHaveLength(1)
      // The service key only; a platform billing does not know: 404.
      expect((await h.fetch(path, { method: "POST", token: "usr_owner" })).status).toBe(401)
      expect((await h.fetch("/internal/platforms/plt_nobody/subscription", { method: "POST", token: "static" })).status).toBe(404)
    })

    it("a declined card answers 402 PAYMENT_FAILED with Stripe's message and charges nothing; a good card upgrades", async () => {
      const upgrade = (paymentMethodId: string, idempotencyKey: string) =>
        h.fetch("/api/billing/upgrade", { method: "POST", token: "usr_b_owner", json: { planId: "starter", paymentMethodId, billingEmail: "pay@b.example", idempotencyKey } })
      const declined = await json(await upgrade("pm_card_chargeDeclined", "7d0b3c1e-5a4f-4c1b-9a55-000000000001"))
      expect(declined.status).toBe(402)
      expect(declined.body.error).toEqual({ code: "PAYMENT_FAILED", message: "Your card was declined.", requestId: expect.any(String) })
      const insufficient = await json(await upgrade("4000 0000 0000 9995", "7d0b3c1e-5a4f-4c1b-9a55-000000000002"))
      expect(insufficient.body.error).toMatchObject({ code: "PAYMENT_FAILED", message: "Your card has insufficient funds." })
      expect(stripe.paymentIntents.size).toBe(0)
      // A test card number never reaches Stripe: its test payment-method id does.
      expect(seen("POST", "/v1/payment_methods/pm_card_chargeDeclinedInsufficientFunds/attach")).toHaveLength(1)
      expect(JSON.stringify(stripe.requests)).not.toContain("4000000000009995")

      expect(stripe.subscriptions.size).toBe(0)

      // The platform's subscription lives at Stripe (decision 0448): made on the plan's price with the
      // chosen card, its first invoice charged by Stripe — billing makes no payment intent of its own.
      const paid = await json(await upgrade("pm_card_visa", "7d0b3c1e-5a4f-4c1b-9a55-000000000003"))
      expect(paid.status).toBe(200)
      expect(paid.body.subscription).toMatchObject({ platformId: "plt_b", tier: "starter", status: "active" })
      const customerId = paid.body.subscription.customerId
      expect(stripe.paymentIntents.size).toBe(0)
      const kept = [...stripe.subscriptions.values()].filter((subscription) => subscription.customer === customerId)
      expect(kept).toHaveLength(1)
      const method = kept[0]!.default_payment_method as string
      expect(kept[0]).toMatchObject({ status: "active", metadata: { platformId: "plt_b" }, items: { data: [expect.objectContaining({ price: expect.objectContaining({ id: "price_1StarterMonthly" }) })] } })
      // The upgrade's invoice is Stripe's first invoice, mirrored: Stripe's amount and line, keyed by its id (decision 0449).
      const first = stripe.invoices.get(kept[0]!.latest_invoice)!
      expect(first).toMatchObject({ billing_reason: "subscription_create", status: "paid", total: 3_100, amount_paid: 3_100 })
      expect(paid.body.invoice).toMatchObject({
        platformId: "plt_b",
        subscriptionId: paid.body.subscription.id,
        status: "paid",
        description: "Upgrade to Starter",
        subtotalMinor: 3_100,
        totalMinor: 3_100,
        amountDueMinor: 3_100,
        amountPaidMinor: 3_100,
        lines: [{ kind: "base", description: "1 × price_1StarterMonthly", meter: null, quantity: 1, unitAmountMinor: 3_100, amountMinor: 3_100 }]
      })
      expect(await sql(`SELECT provider_invoice_id, kind FROM billing.invoices WHERE id = '${paid.body.invoice.id}'`)).toEqual([{ provider_invoice_id: first.id, kind: "upgrade" }])
      expect(seen("POST", "/v1/subscriptions").at(-1)).toMatchObject({ body: { payment_behavior: "error_if_incomplete" }, idempotencyKey: "core-upgrade-plt_b-7d0b3c1e-5a4f-4c1b-9a55-000000000003" })
      expect(stripe.customers.get(customerId)).toMatchObject({ email: "pay@b.example", invoice_settings: { default_payment_method: method } })
      const methods = await json(await h.fetch("/api/billing/payment-methods", { token: "usr_b_owner" }))
      expect(methods.body.data).toContainEqual(expect.objectContaining({ id: method, card: expect.objectContaining({ brand: "visa", last4: "4242" }), isDefault: true }))
      // The same key and body: the first answer, and still one subscription at Stripe.
      const again = await json(await upgrade("pm_card_visa", "7d0b3c1e-5a4f-4c1b-9a55-000000000003"))
      expect(again).toEqual(paid)
      expect([...stripe.subscriptions.values()].filter((subscription) => subscription.customer === customerId)).toHaveLength(1)
    })

    it("the Stripe subscription follows the platform's: a change of tier, cancel at period end, down to free in the registry", async () => {
      const own = { token: "usr_b_owner" }
      const { customerId } = await subscriptionOf("plt_b", "usr_b_owner")
      const [kept] = [...stripe.subscriptions.values()].filter((subscription) => subscription.customer === customerId)
      const item = kept!.items.data[0]
      const intents = stripe.paymentIntents.size
      // The preview is Stripe's invoice preview at a proration date of now (decision 0449) ...
      const preview = await json(await h.fetch("/api/billing/subscription/proration-preview?tier=growth", own))
      expect(preview.status).toBe(200)
      const at = Date.parse(preview.body.prorationDate) / 1000
      expect(Number.isInteger(at)).toBe(true)
      expect(seen("POST", "/v1/invoices/create_preview").at(-1)?.body).toEqual({
        subscription: kept!.id,
        subscription_details: { items: [{ id: item.id, price: "price_growth" }], proration_date: String(at), proration_behavior: "always_invoice" }
      })
      const { charge, credit } = prorate({ oldAmount: 3_100, newAmount: 9_900, periodStart: item.current_period_start, periodEnd: item.current_period_end, at })
      const day = new Date(at * 1000).toISOString().slice(0, 10)
      expect(preview.body).toEqual({
        fromTier: "starter",
        toTier: "growth",
        currency: "usd",
        prorationDate: new Date(at * 1000).toISOString(),
        periodStart: new Date(item.current_period_start * 1000).toISOString(),
        periodEnd: new Date(item.current_period_end * 1000).toISOString(),
        lines: [
          { kind: "proration", description: `Unused time on price_1StarterMonthly after ${day}`, meter: null, quantity: 1, unitAmountMinor: credit, amountMinor: credit },
          { kind: "proration", description: `Remaining time on price_growth after ${day}`, meter: null, quantity: 1, unitAmountMinor: charge, amountMinor: charge }
        ],
        amountMinor: credit + charge
      })
      expect(credit).toBeLessThan(0)
      // ... and the change, a second later, is made at the preview's date: Stripe charges what it showed, to the cent.
      await eventually(() => Math.floor(Date.now() / 1000), (second) => second > at, { message: "the next second on the clock" })
      const changed = await json(await h.fetch("/api/billing/subscription/change-tier", { method: "POST", ...own, json: { tier: "growth" } }))
      expect(changed.status).toBe(200)
      expect(changed.body.amountMinor).toBe(preview.body.amountMinor)
      expect(seen("POST", `/v1/subscriptions/${kept!.id}`).at(-1)?.body).toEqual({
        items: [{ id: item.id, price: "price_growth" }],
        proration_date: String(at),
        proration_behavior: "always_invoice",
        payment_behavior: "error_if_incomplete"
      })
      const charged = stripe.invoices.get(stripe.subscriptions.get(kept!.id)!.latest_invoice)!
      expect(charged).toMatchObject({ billing_reason: "subscription_update", status: "paid", total: credit + charge, amount_paid: credit + charge })
      // Billing charges nothing itself: no payment intent; the change's invoice mirrors Stripe's.
      expect(stripe.paymentIntents.size).toBe(intents)
      expect(changed.body.invoice).toMatchObject({
        status: "paid",
        description: "Change from starter to growth",
        totalMinor: credit + charge,
        amountPaidMinor: credit + charge,
        lines: preview.body.lines
      })
      expect(changed.body.subscription).toMatchObject({ tier: "growth" })
      expect(stripe.subscriptions.get(kept!.id)).toMatchObject({ status: "active", items: { data: [expect.objectContaining({ price: expect.objectContaining({ id: "price_growth" }) })] } })
      const listed = await json(await h.fetch("/api/billing/invoices?platformId=plt_b", own))
      expect(listed.body.data.map((invoice: { id: string }) => invoice.id)).toEqual([changed.body.invoice.id, expect.any(String)])
      expect(await sql(`SELECT provider_invoice_id, kind FROM billing.invoices WHERE id = '${changed.body.invoice.id}'`)).toEqual([{ provider_invoice_id: charged.id, kind: "proration" }])
      // The preview's quote was used once: it is gone.
      expect(await sql("SELECT count(*)::int AS n FROM billing.proration_quotes")).toEqual([{ n: 0 }])

      // Back down without a preview: prorated at now; Stripe's negative invoice is a credit on the customer's balance there.
      const balance = stripe.customers.get(customerId)!.balance
      const down = await json(await h.fetch("/api/billing/subscription/change-tier", { method: "POST", ...own, json: { tier: "starter" } }))
      expect(down.status).toBe(200)
      const update = seen("POST", `/v1/subscriptions/${kept!.id}`).at(-1)!
      expect(update.body).toMatchObject({ items: [{ id: item.id, price: "price_1StarterMonthly" }], proration_behavior: "always_invoice" })
      const downAt = Number(update.body.proration_date)
      expect(downAt).toBeGreaterThanOrEqual(at + 1)
      const back = prorate({ oldAmount: 9_900, newAmount: 3_100, periodStart: item.current_period_start, periodEnd: item.current_period_end, at: downAt })
      expect(down.body.amountMinor).toBe(back.credit + back.charge)
      expect(down.body.amountMinor).toBeLessThan(0)
      expect(down.body.invoice).toMatchObject({ status: "paid", totalMinor: back.credit + back.charge, amountDueMinor: 0, amountPaidMinor: 0 })
      expect(stripe.customers.get(customerId)!.balance).toBe(balance + back.credit + back.charge)
      expect(stripe.paymentIntents.size).toBe(intents)
      expect((await subscriptionOf("plt_b", "usr_b_owner")).tier).toBe("starter")
      const upAgain = await json(await h.fetch("/api/billing/subscription/change-tier", { method: "POST", ...own, json: { tier: "growth" } }))
      expect(upAgain.status).toBe(200)

      const cancelled = await json(await h.fetch("/api/billing/subscription/cancel", { method: "POST", ...own }))
      expect(cancelled.body).toMatchObject({ tier: "growth", cancelAtPeriodEnd: true })
      expect(stripe.subscriptions.get(kept!.id)).toMatchObject({ cancel_at_period_end: true })

      // Down to free (an operator's tier in the registry): the Stripe subscription ends at once.
      await h.run(Effect.flatMap(BillingPlatforms, (platforms) => platforms.setTier("plt_b", "free")))
      expect(await subscriptionOf("plt_b", "usr_b_owner")).toMatchObject({ tier: "free", status: "active", overridden: true, cancelAtPeriodEnd: false })
      expect(stripe.subscriptions.get(kept!.id)).toMatchObject({ status: "canceled" })
    })

    it("the portal answers Stripe's hosted portal URL for the caller's customer", async () => {
      const portal = await json(await h.fetch("/portal", { method: "POST", token: "usr_owner", json: { returnUrl: "https://app.example.com/billing" } }))
      expect(portal.status).toBe(200)
      expect(portal.body.url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\/bps_/)
      expect(seen("POST", "/v1/billing_portal/sessions").at(-1)?.body).toEqual({ customer: (await subscriptionOf("plt_a")).customerId, return_url: "https://app.example.com/billing" })
    })

    it("an operator's credit is a negative customer balance transaction at Stripe, read back as a positive balance", async () => {
      const { customerId } = await subscriptionOf("plt_c", "usr_operator")
      const credit = await json(await h.fetch("/operator/credits", { method: "POST", token: "usr_operator", json: { customerId, amount: 1_500, description: "Goodwill", reason: "outage" } }))
      expect(credit).toMatchObject({ status: 201, body: { amountMinor: 1_500, currency: "usd", balanceMinor: 1_500 } })
      expect(seen("POST", `/v1/customers/${customerId}/balance_transactions`).at(-1)?.body).toEqual({ amount: "-1500", currency: "usd", description: "Goodwill" })
      expect(stripe.customers.get(customerId)?.balance).toBe(-1_500)
      const read = await json(await h.fetch(`/customers/${customerId}`, { token: "usr_operator" }))
      expect(read.body).toMatchObject({ id: customerId, balanceMinor: 1_500, platformId: "plt_c" })
      expect((await h.fetch("/customers/cus_missing", { token: "usr_operator" })).status).toBe(404)
    })

    it("retries a 429 with the same idempotency key, and the setup intent is made once", async () => {
      stripe.rateLimits.set("/v1/setup_intents", 1)
      const intent = await json(await h.fetch("/setup-intent", { method: "POST", token: "usr_owner" }))
      expect(intent.status).toBe(200)
      expect(intent.body.clientSecret).toMatch(/^seti_\w+_secret_/)
      const attempts = seen("POST", "/v1/setup_intents")
      expect(attempts).toHaveLength(2)
      expect(attempts[0]!.idempotencyKey).toBe(attempts[1]!.idempotencyKey)
    })

    it("Stripe failing past its retries answers 502 UPSTREAM_UNAVAILABLE, never a 500, and names nothing of Stripe's", async () => {
      stripe.rateLimits.set("/v1/setup_intents", 10)
      const failed = await json(await h.fetch("/setup-intent", { method: "POST", token: "usr_owner" }))
      stripe.rateLimits.delete("/v1/setup_intents")
      expect(failed.status).toBe(502)
      expect(failed.body.error).toMatchObject({ code: "UPSTREAM_UNAVAILABLE", message: "The payment provider could not complete the request" })
      expect(JSON.stringify(failed.body)).not.toMatch(/sk_|rate_limit/)
    })

    it("root-path subscriptions: made on the plan's configured price (a declined card: 402), updated and cancelled at period end at Stripe", async () => {
      const create = (paymentMethodId: string) =>
        h.fetch("/subscriptions", { method: "POST", token: "usr_owner", json: { userId: "usr_owner", priceId: "starter", paymentMethodId, metadata: { seats: 3 } } })
      const refused = await json(await create("pm_card_chargeDeclined"))
      expect(refused).toMatchObject({ status: 402, body: { error: { code: "PAYMENT_FAILED", message: "Your card was declined." } } })
      const created = await json(await create("pm_card_visa"))
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ priceId: "price_1StarterMonthly", quantity: 1, status: "active", cancelAtPeriodEnd: false, metadata: { seats: "3", userId: "usr_owner" } })
      expect(seen("POST", "/v1/subscriptions").at(-1)?.body).toMatchObject({ items: [{ price: "price_1StarterMonthly", quantity: "1" }], payment_behavior: "error_if_incomplete" })
      // Stripe charges the subscription itself: no separate payment intent.
      expect([...stripe.paymentIntents.values()].filter((intent) => intent.customer === created.body.customerId)).toEqual([])

      const updated = await json(await h.fetch(`/subscriptions/${created.body.id}`, { method: "PATCH", token: "usr_owner", json: { quantity: 4 } }))
      expect(updated.body).toMatchObject({ id: created.body.id, quantity: 4, priceId: "price_1StarterMonthly" })
      const cancelled = await json(await h.fetch(`/subscriptions/${created.body.id}?atPeriodEnd=true`, { method: "DELETE", token: "usr_owner" }))
      expect(cancelled.body).toMatchObject({ status: "active", cancelAtPeriodEnd: true })
      expect(stripe.subscriptions.get(created.body.id)).toMatchObject({ cancel_at_period_end: true, status: "active" })
      expect((await h.fetch(`/subscriptions/${created.body.id}`, { token: "usr_b_owner" })).status).toBe(404)
      expect((await h.fetch("/subscriptions/sub_missing", { token: "usr_owner" })).status).toBe(404)
      const listed = await json(await h.fetch(`/customers/${created.body.customerId}/subscriptions`, { token: "usr_owner" }))
      expect(listed.body.data.map((subscription: { id: string }) => subscription.id)).toEqual([created.body.id])
      // The registry is untouched by the provider's objects until Stripe's webhook says so.
      expect((await h.run(Effect.flatMap(BillingPlatforms, (p) => p.find("plt_a"))).then(Option.getOrThrow)).tier).toBe("free")
    })
  })
}
