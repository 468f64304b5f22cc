import { TestDatabase } from "@core/kernel/testing"
import { ConflictError, createClient, NotFoundError, PaymentRequiredError } from "@core/sdk"
import { describe, expect, it } from "vitest"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * The upgrade end to end: a tenant signs up and sets up its organization (its platform on `free`),
 * then upgrades through the real server's gateway with `client.billing` on the local payment
 * provider — a declined card first (402), then a good one, retried with the same key.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY

for (const driver of TestDatabase.drivers) {
  describe(`client.billing through the gateway on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })

    it("upgrades a free platform once per idempotency key; the registry's tier follows; another tenant gets 404", async () => {
      const { token } = await createClient({ baseUrl: server.base }).iam.signUp({ name: "Bea", email: "bea-billing@example.com", password: "correct horse battery" })
      const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
        body: JSON.stringify({ name: "Bea", slug: "bea-billing" })
      })
      expect(setup.status).toBe(201)
      const { orgId, platformId } = (await setup.json()) as { orgId: string; platformId: string }
      const bea = createClient({ baseUrl: server.base, token })
      await bea.iam.organizations.setActive({ organizationId: orgId })

      const plans = await bea.billing.plans()
      expect(plans.map((plan) => [plan.id, plan.priceMinor])).toEqual([["free", 0], ["starter", 2_900], ["growth", 9_900], ["scale", 49_900]])
      expect(await bea.billing.subscription.get(platformId)).toMatchObject({ platformId, tier: "free", status: "active" })

      const declined = bea.billing.upgrade({ planId: "growth", paymentMethodId: "pm_card_chargeDeclined", billingEmail: "bea@example.com", idempotencyKey: "7d3f0a4e-8a44-4f43-9d0e-000000000001" })
      await expect(declined).rejects.toBeInstanceOf(PaymentRequiredError)
      await expect(declined).rejects.toMatchObject({ status: 402, code: "PAYMENT_FAILED" })

      const input = { planId: "growth", paymentMethodId: "pm_card_visa", billingEmail: "bea@example.com", idempotencyKey: "7d3f0a4e-8a44-4f43-9d0e-000000000002" } as const
      const first = await bea.billing.upgrade(input)
      expect(first.subscription).toMatchObject({ platformId, tier: "growth", status: "active", priceMinor: 9_900 })
      expect(first.invoice).toMatchObject({ status: "paid", totalMinor: 9_900, lines: [expect.objectContaining({ kind: "base", amountMinor: 9_900 })] })
      expect(await bea.billing.upgrade(input)).toEqual(first)
      await expect(bea.billing.upgrade({ ...input, planId: "scale" })).rejects.toBeInstanceOf(ConflictError)

      expect((await bea.registry.platforms.get(platformId)).tier).toBe("growth")
      const invoices = await bea.billing.invoices.list(platformId)
      expect(invoices.data.map((invoice) => invoice.id)).toEqual([first.invoice.id])
      expect((await bea.billing.paymentMethods()).data).toEqual([expect.objectContaining({ isDefault: true, card: expect.objectContaining({ last4: "4242" }) })])

      // The same upgrade at the gateway's raw path, without the SDK: the seed's envelope without details.
      const raw = await fetch(`${server.base}/api/v1/billing/api/billing/upgrade`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ ...input, idempotencyKey: "not-a-uuid" })
      })
      expect(raw.status).toBe(400)
      expect(Object.keys(((await raw.json()) as { error: object }).error).sort()).toEqual(["code", "message", "requestId"])

      const operator = createClient({ baseUrl: server.base, token: STATIC_KEY })
      const overview = await operator.billing.operator.overview()
      expect(overview.mrrMinor).toBeGreaterThanOrEqual(9_900)
      // The registry moves billing: an operator's tier is an override, a cancel cancels at period end, a delete at once.
      await operator.registry.platforms.update(platformId, { tier: "scale" })
      expect(await operator.billing.subscription.get(platformId)).toMatchObject({ tier: "scale", overridden: true })
      await operator.registry.platforms.cancel(platformId, { reason: "leaving" })
      expect(await operator.billing.subscription.get(platformId)).toMatchObject({ cancelAtPeriodEnd: true, status: "active" })
      await operator.registry.platforms.hardDelete(platformId)
      await expect(operator.billing.subscription.get(platformId)).rejects.toBeInstanceOf(NotFoundError)
      const row = await operator.billing.operator.log({ target: first.subscription.id })
      expect(row.data.map((entry) => entry.action)).toContain("registry.tier")
      const stranger = createClient({ baseUrl: server.base })
      const { token: other } = await stranger.iam.signUp({ name: "Cy", email: "cy-billing@example.com", password: "correct horse battery" })
      await expect(createClient({ baseUrl: server.base, token: other }).billing.subscription.get(platformId)).rejects.toBeInstanceOf(NotFoundError)
    }, SLOW)
  })
}
