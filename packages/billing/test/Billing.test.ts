import { type HttpHarness, makeHttpHarness, OPEN_REDIRECTS, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingCycle, BillingPlatforms, BillingRouter } from "../src/index.js"
import { billingLayer, usageByPlatform } from "./Support.js"

type Layered = Layer.Layer.Success<ReturnType<typeof billingLayer>>

/** Every core billing route and rule over real SQL, on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`billing on ${driver}`, () => {
    let h: HttpHarness<Layered>
    const sql = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe(text))) as Promise<Array<any>>
    const json = async (response: Response) => ({ status: response.status, body: await response.json() })
    const platform = (id: string) => h.run(Effect.flatMap(BillingPlatforms, (p) => p.find(id))).then(Option.getOrThrow)
    const subscriptionOf = async (platformId: string, token = "usr_owner") =>
      (await h.fetch(`/api/billing/subscription?platformId=${platformId}`, { token })).json()
    /** Move a subscription's period so that it ended a moment ago. */
    const endPeriod = (platformId: string) =>
      sql(`UPDATE billing.subscriptions SET current_period_start = now() - interval '31 days', current_period_end = now() - interval '1 second' WHERE platform_id = '${platformId}'`)
    const portalOf = async (token: string) => {
      const created = await json(await h.fetch("/portal", { method: "POST", token, json: { returnUrl: "https://app.example.com/billing" } }))
      expect(created.status).toBe(200)
      return new URL(created.body.url).pathname.replace(/^\/api\/billing/, "")
    }
    const useCard = async (token: string, card: string) => {
      const path = await portalOf(token)
      const response = await h.fetch(`${path}/payment-method`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `card=${encodeURIComponent(card)}`,
        redirect: "manual"
      })
      expect(response.status).toBe(303)
      return path
    }

    beforeAll(async () => {
      h = await makeHttpHarness(BillingRouter, billingLayer(driver))
    })
    afterAll(() => h.dispose())

    describe("subscriptions", () => {
      it("every platform has one, on free with a customer, read at both paths; another tenant gets 404, a member without billing:read 403", async () => {
        const first = await json(await h.fetch("/api/billing/subscription?platformId=plt_a", { token: "usr_owner" }))
        expect(first.status).toBe(200)
        expect(first.body).toMatchObject({ platformId: "plt_a", tier: "free", status: "active", priceMinor: 0, cancelAtPeriodEnd: false, overridden: false })
        expect(first.body.customerId).toMatch(/^cus_/)
        expect((await json(await h.fetch("/subscription?platformId=plt_a", { token: "usr_owner" }))).body).toEqual(first.body)
        const other = await json(await h.fetch("/subscription?platformId=plt_a", { token: "usr_b_owner" }))
        expect(other.status).toBe(404)
        expect(other.body.error).toMatchObject({ code: "NOT_FOUND", details: null })
        expect((await h.fetch("/subscription?platformId=plt_a", { token: "usr_member" })).status).toBe(403)
        expect((await h.fetch("/subscription?platformId=plt_missing", { token: "usr_operator" })).status).toBe(404)
        expect((await h.fetch("/subscription?platformId=plt_ops", { token: "usr_owner" })).status).toBe(404)
        expect((await h.fetch("/subscription?platformId=plt_ops", { token: "usr_operator" })).status).toBe(200)
        expect((await h.fetch("/subscription?platformId=plt_a")).status).toBe(401)
        for (const query of ["", "?platformId=", `?platformId=${"x".repeat(200)}`]) {
          expect((await json(await h.fetch(`/subscription${query}`, { token: "usr_owner" }))).body.error.code).toBe("VALIDATION_ERROR")
        }
        expect((await sql("SELECT count(*)::int AS n FROM billing.subscriptions WHERE platform_id = 'plt_a'"))[0].n).toBe(1)
      })

      it("answers the reserved POST /subscription with 501 NOT_IMPLEMENTED", async () => {
        const response = await json(await h.fetch("/api/billing/subscription", { method: "POST", token: "usr_owner" }))
        expect(response).toMatchObject({ status: 501, body: { error: { code: "NOT_IMPLEMENTED", details: null } } })
      })

      it("a change of tier needs a payment method (402); the preview equals to the cent what the change charges, and the registry's tier follows", async () => {
        const preview = await json(await h.fetch("/subscription/proration-preview?tier=growth", { token: "usr_owner" }))
        expect(preview.status).toBe(200)
        expect(preview.body).toMatchObject({ fromTier: "free", toTier: "growth", currency: "usd" })
        expect(preview.body.amountMinor).toBe(preview.body.lines.reduce((sum: number, line: { amountMinor: number }) => sum + line.amountMinor, 0))
        expect(preview.body.amountMinor).toBeGreaterThan(0)
        expect(preview.body.amountMinor).toBeLessThanOrEqual(9_900)
        const refused = await json(await h.fetch("/subscription/change-tier", { method: "POST", token: "usr_owner", json: { tier: "growth" } }))
        expect(refused).toMatchObject({ status: 402, body: { error: { code: "PAYMENT_FAILED" } } })
        expect((await platform("plt_a")).tier).toBe("free")

        await useCard("usr_owner", "4242 4242 4242 4242")
        const methods = await json(await h.fetch("/payment-methods", { token: "usr_owner" }))
        expect(methods.body.data).toEqual([expect.objectContaining({ type: "card", isDefault: true, card: expect.objectContaining({ brand: "visa", last4: "4242" }) })])

        const changed = await json(await h.fetch("/api/billing/subscription/change-tier", { method: "POST", token: "usr_owner", json: { tier: "growth" } }))
        expect(changed.status).toBe(200)
        expect(changed.body.amountMinor).toBe(preview.body.amountMinor)
        expect(changed.body.invoice.lines).toEqual(preview.body.lines)
        expect(changed.body.invoice).toMatchObject({ status: "open", totalMinor: preview.body.amountMinor })
        expect(changed.body.subscription).toMatchObject({ tier: "growth", priceMinor: 9_900 })
        expect((await platform("plt_a")).tier).toBe("growth")
        const charges = await sql("SELECT amount_minor::int AS amount, status FROM billing.charges WHERE status = 'succeeded'")
        expect(charges.map((row) => row.amount)).toContain(preview.body.amountMinor)

        const same = await json(await h.fetch("/subscription/change-tier", { method: "POST", token: "usr_owner", json: { tier: "growth" } }))
        expect(same).toMatchObject({ status: 409, body: { error: { code: "CONFLICT" } } })
        for (const body of [{}, { tier: "free" }, { tier: "gold" }, { tier: 3 }]) {
          expect((await h.fetch("/subscription/change-tier", { method: "POST", token: "usr_owner", json: body })).status).toBe(400)
        }
        expect((await h.fetch("/subscription/change-tier", { method: "POST", token: "usr_member", json: { tier: "scale" } })).status).toBe(403)
      })

      it("a downgrade credits the unused days to the customer's balance, charging nothing", async () => {
        const before = await subscriptionOf("plt_a")
        const preview = await json(await h.fetch("/subscription/proration-preview?tier=starter", { token: "usr_owner" }))
        expect(preview.body.amountMinor).toBeLessThan(0)
        const changed = await json(await h.fetch("/subscription/change-tier", { method: "POST", token: "usr_owner", json: { tier: "starter" } }))
        expect(changed.body.amountMinor).toBe(preview.body.amountMinor)
        const customer = await json(await h.fetch(`/customers/${before.customerId}`, { token: "usr_owner" }))
        expect(customer.body.balanceMinor).toBe(-preview.body.amountMinor)
        expect((await platform("plt_a")).tier).toBe("starter")
      })

      it("cancels at period end; the period's end makes it cancelled and the platform free", async () => {
        const cancelled = await json(await h.fetch("/subscription/cancel", { method: "POST", token: "usr_owner" }))
        expect(cancelled.body).toMatchObject({ cancelAtPeriodEnd: true, status: "active", tier: "starter" })
        expect((await json(await h.fetch("/subscription/cancel", { method: "POST", token: "usr_owner" }))).body.cancelAtPeriodEnd).toBe(true)
        await endPeriod("plt_a")
        await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
        expect(await subscriptionOf("plt_a")).toMatchObject({ status: "cancelled", cancelAtPeriodEnd: false })
        expect((await platform("plt_a")).tier).toBe("free")
        const again = await json(await h.fetch("/subscription/cancel", { method: "POST", token: "usr_owner" }))
        expect(again).toMatchObject({ status: 409, body: { error: { code: "INVALID_STATE", details: { from: "cancelled", to: "cancelled" } } } })
      })
    })

    describe("the upgrade", () => {
      const upgrade = (token: string, body: unknown) => h.fetch("/api/billing/upgrade", { method: "POST", token, json: body })
      const body = (paymentMethodId: string, idempotencyKey: string) => ({ planId: "starter", paymentMethodId, billingEmail: "pay@b.example", idempotencyKey })

      it("a declined card answers 402 without details; the same key and body answer the same; another body 409", async () => {
        const key = "2f1c7d5e-0c1b-4a7e-9f51-111111111111"
        const declined = await json(await upgrade("usr_b_owner", body("pm_card_chargeDeclined", key)))
        expect(declined.status).toBe(402)
        expect(declined.body.error).toEqual({ code: "PAYMENT_FAILED", message: "Your card was declined.", requestId: expect.any(String) })
        const replay = await json(await upgrade("usr_b_owner", body("pm_card_chargeDeclined", key)))
        expect(replay.status).toBe(402)
        expect(replay.body.error.message).toBe("Your card was declined.")
        const other = await json(await upgrade("usr_b_owner", body("pm_card_visa", key)))
        expect(other.status).toBe(409)
        expect(Object.keys(other.body.error).sort()).toEqual(["code", "message", "requestId"])
        const insufficient = await json(await upgrade("usr_b_owner", body("4000 0000 0000 9995", "2f1c7d5e-0c1b-4a7e-9f51-222222222222")))
        expect(insufficient.body.error).toMatchObject({ code: "PAYMENT_FAILED", message: "Your card has insufficient funds." })
        expect((await subscriptionOf("plt_b", "usr_b_owner")).tier).toBe("free")
      })

      it("succeeds once for concurrent requests with one key, and replays the first answer", async () => {
        const key = "2f1c7d5e-0c1b-4a7e-9f51-333333333333"
        const answers = await Promise.all(Array.from({ length: 5 }, () => upgrade("usr_b_owner", body("pm_card_visa", key)).then(json)))
        for (const answer of answers) {
          expect(answer.status).toBe(200)
          expect(answer.body).toEqual(answers[0].body)
        }
        expect(answers[0].body.subscription).toMatchObject({ tier: "starter", status: "active", priceMinor: 2_900 })
        expect(answers[0].body.invoice).toMatchObject({ status: "paid", totalMinor: 2_900, amountPaidMinor: 2_900 })
        const customerId = answers[0].body.subscription.customerId
        const charged = await sql(`SELECT count(*)::int AS n FROM billing.charges WHERE customer_id = '${customerId}' AND status = 'succeeded'`)
        expect(charged[0].n).toBe(1)
        expect((await platform("plt_b")).tier).toBe("starter")
        const later = await json(await upgrade("usr_b_owner", body("pm_card_visa", key)))
        expect(later.body).toEqual(answers[0].body)
        const paid = await json(await upgrade("usr_b_owner", body("pm_card_visa", "2f1c7d5e-0c1b-4a7e-9f51-444444444444")))
        expect(paid).toMatchObject({ status: 409, body: { error: { code: "CONFLICT" } } })
        expect(paid.body.error.details).toBeUndefined()
      })

      it("forgets keys after 24 hours: the billing cycle purges them", async () => {
        const before = (await sql("SELECT count(*)::int AS n FROM billing.idempotency_keys"))[0].n
        expect(before).toBeGreaterThan(0)
        await sql("UPDATE billing.idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = '2f1c7d5e-0c1b-4a7e-9f51-111111111111'")
        expect(await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.purgeKeys()))).toBe(1)
        expect((await sql("SELECT count(*)::int AS n FROM billing.idempotency_keys"))[0].n).toBe(before - 1)
      })

      it("answers the five envelopes without details: 400, 401, 402, 404, 409", async () => {
        const invalid = await json(await upgrade("usr_b_owner", { planId: "starter" }))
        expect(invalid.status).toBe(400)
        expect(Object.keys(invalid.body.error).sort()).toEqual(["code", "message", "requestId"])
        const anonymous = await json(await h.fetch("/api/billing/upgrade", { method: "POST", json: body("pm_card_visa", "2f1c7d5e-0c1b-4a7e-9f51-555555555555") }))
        expect(anonymous.status).toBe(401)
        expect(anonymous.body.error.details).toBeUndefined()
        const nowhere = await json(await upgrade("usr_lonely", body("pm_card_visa", "2f1c7d5e-0c1b-4a7e-9f51-666666666666")))
        expect(nowhere.status).toBe(404)
        expect(nowhere.body.error.details).toBeUndefined()
        expect((await upgrade("usr_b_owner", { ...body("pm_card_visa", "not-a-uuid") })).status).toBe(400)
        expect((await upgrade("usr_b_owner", { ...body("pm_card_visa", "2f1c7d5e-0c1b-4a7e-9f51-777777777777"), billingEmail: "nope" })).status).toBe(400)
        expect((await upgrade("usr_b_owner", { ...body("", "2f1c7d5e-0c1b-4a7e-9f51-777777777777") })).status).toBe(400)
        expect((await h.fetch("/upgrade", { method: "POST", token: "usr_b_owner", json: body("pm_card_visa", "2f1c7d5e-0c1b-4a7e-9f51-888888888888") })).status).toBe(409)
      })
    })

    describe("invoices", () => {
      it("lists a platform's invoices newest first with cursor paging; one invoice by id with or without platformId; another tenant 404", async () => {
        const first = await json(await h.fetch("/invoices?platformId=plt_a&limit=1", { token: "usr_owner" }))
        expect(first.status).toBe(200)
        expect(first.body.data).toHaveLength(1)
        expect(first.body.hasMore).toBe(true)
        const second = await json(await h.fetch(`/invoices?platformId=plt_a&limit=1&cursor=${first.body.nextCursor}`, { token: "usr_owner" }))
        expect(second.body.data[0].id).not.toBe(first.body.data[0].id)
        const all = await json(await h.fetch("/api/billing/invoices?platformId=plt_a", { token: "usr_owner" }))
        for (const invoice of all.body.data) {
          expect(invoice.totalMinor).toBe(invoice.lines.reduce((sum: number, line: { amountMinor: number }) => sum + line.amountMinor, 0))
        }
        const id = first.body.data[0].id
        expect((await json(await h.fetch(`/invoices/${id}?platformId=plt_a`, { token: "usr_owner" }))).body).toEqual(first.body.data[0])
        expect((await json(await h.fetch(`/api/billing/invoices/${id}`, { token: "usr_owner" }))).body.id).toBe(id)
        expect((await h.fetch(`/invoices/${id}`, { token: "usr_b_owner" })).status).toBe(404)
        expect((await h.fetch(`/invoices/${id}?platformId=plt_a`, { token: "usr_b_owner" })).status).toBe(404)
        expect((await h.fetch("/invoices?platformId=plt_a&limit=101", { token: "usr_owner" })).status).toBe(400)
        expect((await h.fetch("/invoices?platformId=plt_a&cursor=garbage", { token: "usr_owner" })).status).toBe(400)
      })

      it("a period's end bills the base price and the overage from metering, charged to the card on file", async () => {
        usageByPlatform.set("plt_b", { requests: 1_002_500, resource_hours: 5_010, builds: 500 })
        await endPeriod("plt_b")
        await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
        const list = await json(await h.fetch("/invoices?platformId=plt_b", { token: "usr_b_owner" }))
        const period = list.body.data[0]
        expect(period.lines).toEqual([
          expect.objectContaining({ kind: "base", amountMinor: 2_900 }),
          expect.objectContaining({ kind: "overage", meter: "requests", quantity: 3, unitAmountMinor: 50, amountMinor: 150 }),
          expect.objectContaining({ kind: "overage", meter: "resource_hours", quantity: 10, unitAmountMinor: 2, amountMinor: 20 })
        ])
        expect(period).toMatchObject({ status: "paid", totalMinor: 3_070, amountPaidMinor: 3_070 })
        // Running the job again bills the period once.
        await sql("UPDATE billing.subscriptions SET current_period_start = now() - interval '31 days', current_period_end = now() - interval '1 second' WHERE platform_id = 'plt_b'")
        const before = (await sql("SELECT count(*)::int AS n FROM billing.invoices WHERE platform_id = 'plt_b'"))[0].n
        await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
        expect((await sql("SELECT count(*)::int AS n FROM billing.invoices WHERE platform_id = 'plt_b'"))[0].n).toBe(before + 1)
        usageByPlatform.delete("plt_b")
      })

      it("a failed payment makes the subscription past due; past the grace period the platform is suspended; paying restores it", async () => {
        await useCard("usr_b_owner", "4000000000000002")
        await endPeriod("plt_b")
        await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
        const due = await subscriptionOf("plt_b", "usr_b_owner")
        expect(due.status).toBe("past_due")
        await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.enforceGrace()))
        expect((await platform("plt_b")).status).toBe("active")
        await sql("UPDATE billing.subscriptions SET past_due_since = now() - interval '15 days' WHERE platform_id = 'plt_b'")
        await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.enforceGrace()))
        expect((await platform("plt_b")).status).toBe("suspended")
        await useCard("usr_b_owner", "pm_card_visa")
        expect(await subscriptionOf("plt_b", "usr_b_owner")).toMatchObject({ status: "active", pastDueSince: null })
        expect((await platform("plt_b")).status).toBe("active")
        const open = await sql("SELECT count(*)::int AS n FROM billing.invoices WHERE platform_id = 'plt_b' AND status = 'open'")
        expect(open[0].n).toBe(0)
      })
    })

    describe("payments", () => {
      it("setup intents and the portal page; the portal's cancel really cancels at period end", async () => {
        const intent = await json(await h.fetch("/setup-intent", { method: "POST", token: "usr_owner" }))
        expect(intent.status).toBe(200)
        expect(intent.body).toMatchObject({ id: expect.stringMatching(/^seti_/), status: "requires_payment_method" })
        expect(intent.body.clientSecret).toContain("_secret_")
        expect((await h.fetch("/portal", { method: "POST", token: "usr_owner", json: { returnUrl: "not a url" } })).status).toBe(400)
        const path = await portalOf("usr_c_owner_missing").catch(() => undefined)
        expect(path).toBeUndefined()
        const page = await h.fetch(await portalOf("usr_b_owner"))
        expect(page.status).toBe(200)
        const html = await page.text()
        expect(html).toContain("•••• 4242")
        expect(html).toContain("Cancel at the end of the period")
        const cancelPath = (await portalOf("usr_b_owner")) + "/cancel"
        expect((await h.fetch(cancelPath, { method: "POST", redirect: "manual" })).status).toBe(303)
        expect((await subscriptionOf("plt_b", "usr_b_owner")).cancelAtPeriodEnd).toBe(true)
        expect((await h.fetch("/portal/sessions/bps_unknown")).status).toBe(404)
      })

      it("the portal's returnUrl is on the public address or a trusted origin, else 403 INVALID_CALLBACK_URL and no session", async () => {
        const before = await sql("SELECT count(*)::int AS n FROM billing.portal_sessions")
        for (const [, returnUrl] of OPEN_REDIRECTS.filter(([, target]) => target.length <= 4096 && !target.includes("\u0000"))) {
          const refused = await json(await h.fetch("/portal", { method: "POST", token: "usr_b_owner", json: { returnUrl } }))
          expect(refused.status, returnUrl).toBeOneOf([400, 403])
          if (refused.status === 403) {
            expect(refused.body.error).toMatchObject({
              code: "INVALID_CALLBACK_URL",
              message: "returnUrl must be an address on this site or on a trusted origin (CORE_CORS_ORIGINS)",
              details: { field: "returnUrl" }
            })
          } else expect(refused.body.error.code).toBe("VALIDATION_ERROR")
        }
        const evil = await json(await h.fetch("/portal", { method: "POST", token: "usr_b_owner", json: { returnUrl: "https://evil.example.com/steal" } }))
        expect(evil.status).toBe(403)
        expect(await sql("SELECT count(*)::int AS n FROM billing.portal_sessions")).toEqual(before)
        for (const returnUrl of ["http://core.test/settings", "https://app.example.com/billing"]) {
          const accepted = await json(await h.fetch("/portal", { method: "POST", token: "usr_b_owner", json: { returnUrl } }))
          expect([accepted.status, accepted.body.returnUrl]).toEqual([200, returnUrl])
        }
      })

      it("the provider's objects at the root path: customers, subscriptions, payment methods; another tenant 404", async () => {
        const customerId = (await subscriptionOf("plt_b", "usr_b_owner")).customerId
        expect((await json(await h.fetch(`/customers/${customerId}`, { token: "usr_b_owner" }))).body).toMatchObject({ id: customerId, platformId: "plt_b", email: "pay@b.example" })
        expect((await h.fetch(`/customers/${customerId}`, { token: "usr_owner" })).status).toBe(404)
        const patched = await json(await h.fetch(`/customers/${customerId}`, { method: "PATCH", token: "usr_b_owner", json: { name: "B Corp", metadata: { vat: "X1" } } }))
        expect(patched.body).toMatchObject({ name: "B Corp", metadata: { vat: "X1" } })
        const defaultMethod = await json(await h.fetch(`/customers/${customerId}/payment-methods/default`, { token: "usr_b_owner" }))
        expect(defaultMethod.body).toMatchObject({ isDefault: true, card: { last4: "4242" } })
        expect((await json(await h.fetch(`/customers/${customerId}/payment-methods?type=card`, { token: "usr_b_owner" }))).body.data.length).toBeGreaterThan(1)
        expect((await json(await h.fetch(`/customers/${customerId}/payment-methods?type=sepa_debit`, { token: "usr_b_owner" }))).body.data).toEqual([])

        const created = await json(await h.fetch("/subscriptions", { method: "POST", token: "usr_b_owner", json: { userId: "usr_b_owner", priceId: "growth", paymentMethodId: "pm_card_visa", quantity: 2 } }))
        expect(created.status).toBe(201)
        expect(created.body).toMatchObject({ customerId, priceId: "growth", quantity: 2, status: "active", metadata: { userId: "usr_b_owner" } })
        const declined = await json(await h.fetch("/subscriptions", { method: "POST", token: "usr_b_owner", json: { userId: "u", priceId: "growth", paymentMethodId: "pm_card_chargeDeclined" } }))
        expect(declined.status).toBe(402)
        const id = created.body.id
        expect((await json(await h.fetch(`/subscriptions/${id}`, { method: "PATCH", token: "usr_b_owner", json: { quantity: 3 } }))).body.quantity).toBe(3)
        expect((await h.fetch(`/subscriptions/${id}`, { method: "PATCH", token: "usr_b_owner", json: { quantity: 0 } })).status).toBe(400)
        expect((await h.fetch(`/subscriptions/${id}`, { token: "usr_owner" })).status).toBe(404)
        expect((await json(await h.fetch(`/subscriptions/${id}?atPeriodEnd=true`, { method: "DELETE", token: "usr_b_owner" }))).body).toMatchObject({ cancelAtPeriodEnd: true, status: "active" })
        expect((await json(await h.fetch(`/subscriptions/${id}`, { method: "DELETE", token: "usr_b_owner" }))).body).toMatchObject({ status: "canceled" })
        expect((await json(await h.fetch(`/customers/${customerId}/subscriptions`, { token: "usr_b_owner" }))).body.data).toHaveLength(1)
        expect((await h.fetch("/customers", { method: "POST", token: "usr_owner", json: { email: "x@example.com" } })).status).toBe(403)
        const detached = await json(await h.fetch("/customers", { method: "POST", token: "usr_operator", json: { email: "x@example.com", name: "X" } }))
        expect(detached).toMatchObject({ status: 201, body: { email: "x@example.com", platformId: null } })
        expect((await h.fetch(`/customers/${detached.body.id}`, { token: "usr_owner" })).status).toBe(404)
        expect((await h.fetch(`/customers/${detached.body.id}`, { token: "static" })).status).toBe(200)
      })
    })

    describe("operator tools", () => {
      it("are refused to non-operators (403) and anonymous callers (401)", async () => {
        for (const [method, path, body] of [
          ["POST", "/operator/credits", { customerId: "cus_x", amount: 1, description: "x" }],
          ["POST", "/operator/invoices/generate", { customerId: "cus_x" }],
          ["PATCH", "/operator/subscriptions/sub_x/override", {}],
          ["POST", "/operator/subscriptions/sub_x/trial", { trialDays: 1 }],
          ["GET", "/operator/overview", undefined]
        ] as const) {
          expect((await h.fetch(path, { method, token: "usr_owner", ...(body === undefined ? {} : { json: body }) })).status).toBe(403)
          expect((await h.fetch(path, { method, ...(body === undefined ? {} : { json: body }) })).status).toBe(401)
        }
      })

      it("credits, trials, overrides and invoice generation, each in the operator log with actor, reason, before and after", async () => {
        const subscription = await subscriptionOf("plt_c", "usr_operator")
        const credit = await json(await h.fetch("/operator/credits", { method: "POST", token: "usr_operator", json: { customerId: subscription.customerId, amount: 1_500, description: "Goodwill", reason: "outage" } }))
        expect(credit).toMatchObject({ status: 201, body: { amountMinor: 1_500, currency: "usd", balanceMinor: 1_500 } })
        for (const json_ of [{ customerId: subscription.customerId, amount: 0, description: "x" }, { customerId: subscription.customerId, amount: 1.5, description: "x" }, { customerId: subscription.customerId, amount: 1, description: "" }, { customerId: subscription.customerId, amount: 1, description: "x", currency: "us" }]) {
          expect((await h.fetch("/operator/credits", { method: "POST", token: "usr_operator", json: json_ })).status).toBe(400)
        }
        expect((await h.fetch("/operator/credits", { method: "POST", token: "usr_operator", json: { customerId: "cus_missing", amount: 1, description: "x" } })).status).toBe(404)

        const trial = await json(await h.fetch(`/operator/subscriptions/${subscription.id}/trial`, { method: "POST", token: "usr_operator", json: { trialDays: 14, reason: "sales" } }))
        expect(trial.body).toMatchObject({ status: "trialing" })
        expect(new Date(trial.body.trialEnd).getTime() - Date.now()).toBeGreaterThan(13 * 86_400_000)
        for (const trialDays of [0, 366, 1.5]) {
          expect((await h.fetch(`/operator/subscriptions/${subscription.id}/trial`, { method: "POST", token: "usr_operator", json: { trialDays } })).status).toBe(400)
        }
        expect((await h.fetch("/operator/subscriptions/sub_missing/trial", { method: "POST", token: "usr_operator", json: { trialDays: 3 } })).status).toBe(404)

        const override = await json(await h.fetch(`/operator/subscriptions/${subscription.id}/override`, { method: "PATCH", token: "static", json: { planTier: "scale", trialEnd: Date.now() - 1000 } }))
        expect(override.body).toMatchObject({ tier: "scale", status: "active", overridden: true })
        expect((await platform("plt_c")).tier).toBe("scale")

        const generated = await json(await h.fetch("/operator/invoices/generate", { method: "POST", token: "usr_operator", json: { customerId: subscription.customerId, description: "Manual" } }))
        expect(generated.status).toBe(201)
        expect(generated.body.lines).toEqual([
          expect.objectContaining({ kind: "base", amountMinor: 49_900 }),
          expect.objectContaining({ kind: "credit", amountMinor: -1_500 })
        ])
        expect(generated.body).toMatchObject({ totalMinor: 48_400, status: "open", description: "Manual" })
        expect((await json(await h.fetch(`/customers/${subscription.customerId}`, { token: "usr_operator" }))).body.balanceMinor).toBe(0)

        const log = await json(await h.fetch(`/operator/log?target=${subscription.id}`, { token: "usr_operator" }))
        expect(log.body.data.map((entry: { action: string }) => entry.action)).toEqual(["trial", "override"])
        expect(log.body.data[0]).toMatchObject({ actor: "usr_operator", reason: "sales", before: { status: "active" }, after: { status: "trialing" } })
        expect(log.body.data[1]).toMatchObject({ actor: "service", before: { tier: "free" }, after: { tier: "scale" } })
        const credits = await json(await h.fetch(`/operator/log?target=${subscription.customerId}`, { token: "usr_operator" }))
        expect(credits.body.data[0]).toMatchObject({ action: "credit", reason: "outage", before: { balanceMinor: 0 }, after: { balanceMinor: 1_500 } })
      })

      it("a tier set in the registry by an operator is recorded as an override, with the registry as actor", async () => {
        const before = await subscriptionOf("plt_ops", "usr_operator")
        await h.run(Effect.flatMap(BillingPlatforms, (platforms) => platforms.setTier("plt_ops", "growth")))
        const after = await subscriptionOf("plt_ops", "usr_operator")
        expect(after).toMatchObject({ tier: "growth", overridden: true })
        const log = await json(await h.fetch(`/operator/log?target=${before.id}`, { token: "usr_operator" }))
        expect(log.body.data.at(-1)).toMatchObject({ actor: "registry", action: "registry.tier", before: { tier: before.tier }, after: { tier: "growth" } })
      })

      it("the cycle backfills a subscription for every registry platform and cancels one whose platform is gone", async () => {
        await sql("INSERT INTO billing.subscriptions (id, platform_id, customer_id, plan_id, status, current_period_start, current_period_end, created_at, updated_at) VALUES ('sub_gone', 'plt_gone', 'cus_gone', 'starter', 'active', now(), now() + interval '30 days', now(), now())")
        await h.run(Effect.flatMap(BillingCycle, (cycle) => cycle.reconcileAll()))
        const rows = await sql("SELECT platform_id, status FROM billing.subscriptions ORDER BY platform_id")
        expect(rows.map((row) => row.platform_id)).toEqual(["plt_a", "plt_b", "plt_c", "plt_gone", "plt_ops"])
        expect(rows.find((row) => row.platform_id === "plt_gone")?.status).toBe("cancelled")
      })

      it("the overview: MRR in minor units from paying subscriptions, active platforms, trials, past due", async () => {
        await h.fetch(`/operator/subscriptions/${(await subscriptionOf("plt_ops", "usr_operator")).id}/trial`, { method: "POST", token: "usr_operator", json: { trialDays: 3 } })
        const overview = await json(await h.fetch("/operator/overview", { token: "usr_operator" }))
        const rows = await sql("SELECT plan_id, status FROM billing.subscriptions")
        const prices: Record<string, number> = { free: 0, starter: 2_900, growth: 9_900, scale: 49_900 }
        const mrr = rows.filter((row) => row.status === "active" || row.status === "past_due").reduce((sum, row) => sum + prices[row.plan_id], 0)
        expect(overview.body).toMatchObject({
          mrrMinor: mrr,
          currency: "usd",
          activePlatforms: rows.filter((row) => row.status === "active").length,
          trials: rows.filter((row) => row.status === "trialing").length,
          pastDue: rows.filter((row) => row.status === "past_due").length
        })
        expect(overview.body.trials).toBeGreaterThanOrEqual(1)
        expect(Number.isInteger(overview.body.mrrMinor)).toBe(true)
      })
    })
  })
}
