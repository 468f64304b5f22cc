import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StripeStandIn } from "../packages/billing/test/StripeStandIn.js"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { call, tenantOf } from "./support/tenants.js"

/**
 * A platform created through the gateway — by the registry's route, identity's organization setup or
 * onboarding — has its subscription and its customer at the payment provider at once (decisions
 * 0446, 0447), not at billing's next reconciliation: the real server with the
 * Stripe provider configured against a local stand-in for Stripe's API.
 */
const SLOW = 180_000
const STATIC_KEY = "billing-created-static-key-0123456789"
const stripe = new StripeStandIn("sk_test_platform_created")
/** The server's environment; the stand-in's address is known once it listens (before the server starts). */
const env: Record<string, string> = {
  CORE_STATIC_API_KEY: STATIC_KEY,
  STRIPE_SECRET_KEY: "sk_test_platform_created",
  STRIPE_WEBHOOK_SECRET: "whsec_platform_created"
}

beforeAll(async () => {
  await stripe.start()
  env.STRIPE_API_URL = stripe.url
})
afterAll(() => stripe.stop())

for (const driver of TestDatabase.drivers) {
  describe(`a platform created through the gateway on ${driver}`, () => {
    const server = useServer(env, SLOW, { driver })
    const operator = { authorization: `Bearer ${STATIC_KEY}`, "content-type": "application/json" }
    const overview = async () => (await (await fetch(`${server.base}/api/v1/billing/operator/overview`, { headers: operator })).json()) as { activePlatforms: number }

    it("has its subscription and its Stripe customer as soon as the creation answers", async () => {
      const before = await overview()
      const slug = `made-${driver}`
      const created = await fetch(`${server.base}/api/v1/platforms`, { method: "POST", headers: operator, body: JSON.stringify({ name: "Made", slug }) })
      expect(created.status).toBe(201)
      const platform = (await created.json()) as { id: string; tier: string }
      // Billing's reconciliation runs each minute: what follows is the creation's own doing.
      const customers = [...stripe.customers.values()].filter((customer) => customer.metadata.platformId === platform.id)
      expect(customers).toHaveLength(1)
      expect((await overview()).activePlatforms).toBe(before.activePlatforms + 1)
      const subscription = await (await fetch(`${server.base}/api/v1/billing/api/billing/subscription?platformId=${platform.id}`, { headers: operator })).json()
      expect(subscription).toMatchObject({ platformId: platform.id, customerId: customers[0]!.id, tier: platform.tier, status: "active" })
      expect([...stripe.customers.values()].filter((customer) => customer.metadata.platformId === platform.id)).toHaveLength(1)
    }, SLOW)

    const madeAtOnce = async (platformId: string, tier: string) => {
      const customers = [...stripe.customers.values()].filter((customer) => customer.metadata.platformId === platformId)
      expect(customers).toHaveLength(1)
      const subscription = await call(server.base, "GET", `/api/v1/billing/api/billing/subscription?platformId=${platformId}`, operator)
      expect(subscription.body).toMatchObject({ platformId, customerId: customers[0]!.id, tier, status: "active" })
    }

    it("identity's organization setup: the tenant's free platform has them as soon as the setup answers (decision 0447)", async () => {
      const tenant = await tenantOf(server.base, "Setup", `setup-${driver}`)
      await madeAtOnce(tenant.platformId, "free")
    }, SLOW)

    it("onboarding: the flow's platform has them as soon as the flow is started", async () => {
      const started = await call(server.base, "POST", "/api/v1/onboarding", operator, { platformName: "Onboarded", slug: `onboarded-${driver}` })
      expect(started.status).toBe(202)
      // Onboarding's default tier is the registry's `starter`, kept as an override until billing changes it (0438).
      await madeAtOnce(started.body.platformId, "starter")
    }, SLOW)
  })
}
