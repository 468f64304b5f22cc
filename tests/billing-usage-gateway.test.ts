import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { core, tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * Metering through the real all-in-one server's gateway: events ingested with the static key at
 * `/api/v1/billing/internal/usage/events` (a duplicate not counted twice), read back by the
 * platform's owner at `/api/v1/billing/usage/*` (another tenant: 404), and the gateway's own count
 * of the owner's requests arriving in billing after its flush; `core billing usage` (the built
 * binary) printing the period and its daily chart.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY
const service = { authorization: `Bearer ${STATIC_KEY}` }

for (const driver of TestDatabase.drivers) {
  describe(`usage metering through the gateway on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })
    let ada: Tenant
    let bob: Tenant

    let bin = ""

    beforeAll(async () => {
      bin = (await builtCli()).bundle
      ada = await tenantOf(server.base, "Ada", `ada-usage-${driver}`)
      bob = await tenantOf(server.base, "Bob", `bob-usage-${driver}`)
    }, SLOW)

    it("ingests with the static key, idempotently; the owner reads it, another tenant gets 404", async () => {
      const { base } = server
      const now = new Date().toISOString()
      const events = [
        { id: `evt_gw_${driver}_1`, platformId: ada.platformId, stackId: "stk_web", meter: "builds", quantity: 2, occurredAt: now },
        { id: `evt_gw_${driver}_2`, platformId: ada.platformId, tenantId: "ent_gw", meter: "resource_hours", quantity: 3, occurredAt: now }
      ]
      expect(await call(base, "POST", "/api/v1/billing/internal/usage/events", service, { events })).toMatchObject({ status: 200, body: { accepted: 2, duplicates: 0 } })
      expect(await call(base, "POST", "/api/v1/billing/internal/usage/events", service, { events })).toMatchObject({ status: 200, body: { accepted: 0, duplicates: 2 } })
      expect((await call(base, "POST", "/api/v1/billing/internal/usage/events", ada.bearer, { events })).status).toBe(401)

      const current = await call(base, "GET", `/api/v1/billing/usage/current?platformId=${ada.platformId}`, ada.bearer)
      expect(current.status).toBe(200)
      expect(current.body).toMatchObject({ platformId: ada.platformId, usage: { builds: 2, resourceHours: 3 } })
      expect(current.body.allowances).toEqual({ requests: expect.any(Number), resourceHours: expect.any(Number), builds: expect.any(Number) })
      const hidden = await call(base, "GET", `/api/v1/billing/usage/current?platformId=${ada.platformId}`, bob.bearer)
      expect([hidden.status, hidden.body.error.code]).toEqual([404, "NOT_FOUND"])
      expect((await call(base, "GET", `/api/v1/billing/usage-summary?platformId=${ada.platformId}`, ada.bearer)).body.stacks)
        .toEqual([{ stackId: "stk_web", requests: expect.any(Number), resourceHours: 0, builds: 2 }])
      expect((await call(base, "GET", `/api/v1/billing/platforms/${ada.platformId}/stacks/stk_web/usage`, bob.bearer)).status).toBe(404)
      // The caller's own platform, without naming it.
      const entities = await call(base, "GET", "/api/v1/billing/usage/entities", ada.bearer)
      expect(entities).toMatchObject({ status: 200, body: { data: [{ tenantId: "ent_gw" }], hasMore: false, nextCursor: null } })
      expect((await call(base, "GET", "/api/v1/billing/usage/history?limit=0", ada.bearer)).status).toBe(400)

      // The same through the SDK: client.billing.usage.
      expect(await ada.client.billing.usage.current(ada.platformId)).toMatchObject({ platformId: ada.platformId, usage: { builds: 2, resourceHours: 3 } })
      const tenants: Array<string> = []
      for await (const entity of ada.client.billing.usage.entitiesAll({ limit: 1 })) tenants.push(entity.tenantId)
      expect(tenants).toEqual(["ent_gw"])
      expect((await ada.client.billing.usage.summary(ada.platformId)).stacks.map((stack) => stack.stackId)).toEqual(["stk_web"])
      await expect(bob.client.billing.usage.alerts(ada.platformId)).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" })
    }, SLOW)

    it("meters the tenant's requests at the gateway and flushes them to billing", async () => {
      const { base } = server
      const before = (await call(base, "GET", `/api/v1/billing/usage/current?platformId=${bob.platformId}`, bob.bearer)).body.usage.requests as number
      for (let i = 0; i < 5; i++) expect((await call(base, "GET", `/api/v1/platforms/${bob.platformId}`, bob.bearer)).status).toBe(200)
      // 6 requests of Bob's so far in this test (the read above and 5), counted; the static key's are not.
      const after = await until(
        () => call(base, "GET", `/api/v1/billing/usage/current?platformId=${bob.platformId}`, service),
        (r) => r.body.usage.requests >= before + 6,
        15_000
      )
      expect(after.body.usage.requests).toBeGreaterThanOrEqual(before + 6)
      const today = new Date().toISOString().slice(0, 10)
      const daily = await call(base, "GET", `/api/v1/billing/usage/daily?platformId=${bob.platformId}&from=${today}&to=${today}`, bob.bearer)
      expect(daily.body.series[0].requests).toBeGreaterThanOrEqual(before + 6)
    }, SLOW)

    it("core billing usage prints the period against the allowances and a daily chart, or JSON", async () => {
      const home = tempHome()
      writeLogin(home, server.base, ada.token, ada.platformId, "owner")
      const env = { CORE_API_URL: server.base }
      const today = new Date().toISOString().slice(0, 10)
      const text = await core(home, ["billing", "usage", "--meter", "builds", "--days", "3"], env, bin)
      expect([text.code, text.stderr]).toEqual([0, ""])
      expect(text.stdout).toMatch(new RegExp(`^Usage of ${ada.platformId}, period \\d{4}-\\d{2}-\\d{2} to \\d{4}-\\d{2}-\\d{2}\n`))
      expect(text.stdout).toMatch(/\nMETER\s+USED\s+ALLOWANCE\s+%\n/)
      expect(text.stdout).toMatch(/\nBuilds\s+2\s+[\d,]+\s+\d+%\n/)
      expect(text.stdout).toContain("Builds per day")
      expect(text.stdout).toMatch(new RegExp(`\n${today} │█+ 2\n`))
      const json = JSON.parse((await core(home, ["billing", "usage", "--json", "--from", today, "--to", today], env, bin)).stdout)
      expect(json).toMatchObject({ current: { platformId: ada.platformId, usage: { builds: 2 } }, daily: { from: today, to: today, series: [{ date: today, builds: 2 }] } })
      const bad = await core(home, ["billing", "usage", "--days", "0"], env, bin)
      expect(bad.code).toBe(2)
    }, SLOW)
  })
}
