import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StripeStandIn } from "../packages/billing/test/StripeStandIn.js"
import { launch, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { call, tenantOf, until } from "./support/tenants.js"

/**
 * The registry in its own process, billing in another, a gateway in a third, on one PostgreSQL
 * database (billing reads the registry's platforms there): a platform created by the registry
 * alone — by its route, by onboarding, by identity's organization setup in the gateway's process —
 * has its subscription and exactly one Stripe customer at once, through billing's internal route
 * over HTTP (decision 0447), not at billing's next reconciliation (each minute). PostgreSQL only:
 * separate processes cannot share a PGlite data directory.
 */
const SLOW = 240_000
const STATIC_KEY = "billing-remote-static-key-0123456789"
const SECRET = "billing-remote-secret-0123456789abcdef0123"
const stripe = new StripeStandIn("sk_test_platform_created_remote")
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }
const pg = TestDatabase.drivers.includes("pg") && TestDatabase.url !== undefined

describe.skipIf(!pg)("a platform created by the registry alone, billing alone behind the same gateway", () => {
  const work = mkdtempSync(join(tmpdir(), "core-e2e-billing-remote-"))
  const scope = Effect.runSync(Scope.make())
  const processes: Array<Running> = []
  let base = ""

  beforeAll(async () => {
    await stripe.start()
    const database = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope))
    const shared = { CORE_SECRET: SECRET, DATABASE_URL: database, CORE_STATIC_API_KEY: STATIC_KEY }
    const stripeEnv = { STRIPE_SECRET_KEY: "sk_test_platform_created_remote", STRIPE_API_URL: stripe.url }
    const billing = launch(["serve", "--service", "billing", "--port", "0"], { ...shared, ...stripeEnv, CORE_DATA_DIR: join(work, "billing") })
    processes.push(billing)
    const billingUrl = await ready(billing)
    const registry = launch(["serve", "--service", "registry", "--port", "0"], { ...shared, CORE_DATA_DIR: join(work, "registry"), CORE_UPSTREAM_BILLING_URL: billingUrl })
    processes.push(registry)
    const registryUrl = await ready(registry)
    const gateway = launch(["start"], {
      ...shared,
      PORT: "0",
      CORE_DATA_DIR: join(work, "gateway"),
      CORE_UPSTREAM_REGISTRY_URL: registryUrl,
      CORE_UPSTREAM_BILLING_URL: billingUrl
    })
    processes.push(gateway)
    base = await ready(gateway)
  }, SLOW)

  afterAll(async () => {
    for (const running of processes) running.child.kill("SIGKILL")
    await Promise.all(processes.map((running) => running.exited))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await stripe.stop()
    rmSync(work, { recursive: true, force: true })
  }, SLOW)

  const customersOf = (platformId: string) => [...stripe.customers.values()].filter((customer) => customer.metadata.platformId === platformId)
  /** The subscription billing answers within 3 s of the creation: far sooner than its reconciliation. */
  const subscriptionOf = (platformId: string) =>
    until(() => call(base, "GET", `/api/v1/billing/subscription?platformId=${platformId}`, SERVICE), (r) => r.status === 200 && customersOf(platformId).length > 0, 3_000)

  it("the registry's route: the subscription and one customer at once", async () => {
    const created = await call(base, "POST", "/api/v1/platforms", SERVICE, { name: "Remote", slug: "remote-made" })
    expect(created.status).toBe(201)
    const subscription = await subscriptionOf(created.body.id)
    expect(subscription.status).toBe(200)
    expect(customersOf(created.body.id)).toHaveLength(1)
    expect(subscription.body).toMatchObject({ platformId: created.body.id, customerId: customersOf(created.body.id)[0]!.id, status: "active" })
  }, SLOW)

  it("onboarding (the platform inside the flow's transaction): told once it commits", async () => {
    const started = await call(base, "POST", "/api/v1/onboarding", SERVICE, { platformName: "Onboarded", slug: "remote-onboarded", billingEmail: "ap@onboarded.example" })
    expect(started.status).toBe(202)
    const platformId = started.body.platformId as string
    expect((await subscriptionOf(platformId)).status).toBe(200)
    expect(customersOf(platformId)).toHaveLength(1)
    // Its job tells billing the flow's billing email, over HTTP too: the customer's email at Stripe (decision 0578).
    await until(() => Promise.resolve(customersOf(platformId)), (found) => found[0]?.email === "ap@onboarded.example", 20_000)
    expect(customersOf(platformId).map((customer) => customer.email)).toEqual(["ap@onboarded.example"])
  }, SLOW)

  it("identity's organization setup in the gateway's process: over HTTP too", async () => {
    const tenant = await tenantOf(base, "Remy", "remy-co")
    const subscription = await subscriptionOf(tenant.platformId)
    expect(subscription.status).toBe(200)
    expect(subscription.body).toMatchObject({ platformId: tenant.platformId, tier: "free", status: "active" })
    expect(customersOf(tenant.platformId)).toHaveLength(1)
  }, SLOW)

  it("billing's internal route is the service's only, and repeated it answers the same subscription", async () => {
    const created = await call(base, "POST", "/api/v1/platforms", SERVICE, { name: "Again", slug: "remote-again" })
    const first = await subscriptionOf(created.body.id)
    const path = `/api/v1/billing/internal/platforms/${created.body.id}/subscription`
    const again = await Promise.all([1, 2, 3].map(() => call(base, "POST", path, SERVICE)))
    expect(again.map((r) => [r.status, r.body.id, r.body.customerId])).toEqual(again.map(() => [200, first.body.id, first.body.customerId]))
    expect(customersOf(created.body.id)).toHaveLength(1)
    // A billing email in the body becomes the customer's; a bad one or an unknown field is 400, nothing changed.
    const emailed = await call(base, "POST", path, SERVICE, { billingEmail: "billing@again.example" })
    expect([emailed.status, emailed.body.customerId]).toEqual([200, first.body.customerId])
    expect(customersOf(created.body.id).map((customer) => customer.email)).toEqual(["billing@again.example"])
    for (const bad of [{ billingEmail: "not an email" }, { billingEmail: "a".repeat(400) + "@x.example" }, { other: 1 }]) {
      expect((await call(base, "POST", path, SERVICE, bad)).status).toBe(400)
    }
    expect(customersOf(created.body.id).map((customer) => customer.email)).toEqual(["billing@again.example"])
    const tenant = await tenantOf(base, "Nosy", "nosy-co")
    expect((await call(base, "POST", path, tenant.bearer)).status).toBe(401)
    expect((await call(base, "POST", "/api/v1/billing/internal/platforms/plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS/subscription", SERVICE)).status).toBe(404)
    // An id past its bound is refused before billing looks (the route table matches no segment that long: 404; never a 500).
    expect((await call(base, "POST", `/api/v1/billing/internal/platforms/${"x".repeat(300)}/subscription`, SERVICE)).status).toBe(404)
  }, SLOW)
})
