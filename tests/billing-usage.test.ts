import { BillingMigrations, calendarMonth, UsageAccounts, UsageHandlers, UsageIngest, UsageReads, UsageTotals, UsageTotalsLive } from "@core/billing"
import { Callers, Metrics, Route, Unauthorized } from "@core/kernel"
import { type HttpHarness, makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Prometheus from "./support/prometheus.js"

/**
 * Usage metering over real SQL (PGlite, and PostgreSQL when `CORE_TEST_DATABASE_URL` is set): the
 * ingestion route and service (idempotent by event id, concurrent batches losing no count), the
 * daily rollups behind every read, the alerts at 80 % and 100 % raised once per period, cursor
 * paging, tenant scoping (another tenant's platform: 404) and invoices' `UsageTotals`.
 */

const users: Record<string, { readonly organizationId: string | null; readonly permissions: ReadonlyArray<string> }> = {
  usr_a_owner: { organizationId: "org_a", permissions: ["*"] },
  usr_a_member: { organizationId: "org_a", permissions: ["platforms:read"] },
  usr_b_owner: { organizationId: "org_b", permissions: ["*"] },
  usr_operator: { organizationId: null, permissions: [] }
}

/** Identity's `Callers` for these tests: bearer `static` is the service key, `core_a` an API key of org_a reading billing. */
const TestCallers = Layer.succeed(Callers, {
  resolve: (request) => {
    if (request.headers["x-api-key"] === "core_a") {
      return Effect.succeed({ kind: "apikey" as const, keyId: "key_a", organizationId: "org_a", platformId: "plt_a", permissions: ["billing:read"] })
    }
    const bearer = request.headers.authorization?.slice(7)
    if (bearer === undefined) return Effect.succeed(undefined)
    if (bearer === "static") return Effect.succeed({ kind: "service" as const })
    const user = users[bearer]
    if (user === undefined) return Effect.fail(new Unauthorized({ message: "Invalid session" }))
    return Effect.succeed({ kind: "user" as const, userId: bearer, sessionId: `ses_${bearer}`, email: `${bearer}@example.com`, organizationId: user.organizationId, via: "bearer" as const })
  },
  isOperator: (userId) => Effect.succeed(userId === "usr_operator"),
  permissionsOf: (userId, organizationId) => Effect.succeed(users[userId]?.organizationId === organizationId ? users[userId]?.permissions : undefined)
})

const owners: Record<string, string | null> = { plt_a: "org_a", plt_b: "org_b", plt_ops: null, plt_race: "org_a" }

/** Platforms plt_a (org_a: 10 builds, 100 requests), plt_b (org_b), plt_ops (the operators'); calendar-month periods. */
const TestAccounts = Layer.succeed(UsageAccounts, {
  owner: (platformId) => Effect.succeed(platformId in owners ? Option.some(owners[platformId]!) : Option.none()),
  platformOf: (organizationId) => Effect.succeed(organizationId === "org_a" ? Option.some("plt_a") : organizationId === "org_b" ? Option.some("plt_b") : Option.none()),
  period: (platformId, at) =>
    Effect.succeed({ ...calendarMonth(at), allowances: platformId === "plt_a" ? { requests: 100, resource_hours: null, builds: 10 } : { requests: null, resource_hours: null, builds: null } })
})

const makeLayer = (driver: "pglite" | "pg") =>
  Layer.mergeAll(UsageIngest.Default, UsageReads.Default, UsageTotalsLive).pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, TestAccounts)),
    Layer.provideMerge(TestDatabase.layer([BillingMigrations], { driver }))
  )

const today = new Date().toISOString().slice(0, 10)
const at = (date: string, hour = 12) => `${date}T${String(hour).padStart(2, "0")}:00:00.000Z`
let serial = 0
const event = (fields: { platformId?: string; tenantId?: string; stackId?: string; meter?: string; quantity?: number; occurredAt?: string; id?: string }) => ({
  id: fields.id ?? `evt_${++serial}_${Math.random().toString(36).slice(2)}`,
  platformId: fields.platformId ?? "plt_a",
  meter: fields.meter ?? "requests",
  quantity: fields.quantity ?? 1,
  occurredAt: fields.occurredAt ?? at(today),
  ...(fields.tenantId === undefined ? {} : { tenantId: fields.tenantId }),
  ...(fields.stackId === undefined ? {} : { stackId: fields.stackId })
})

for (const driver of TestDatabase.drivers) {
  describe(`usage metering on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    const get = async (path: string, init: { token?: string; apiKey?: string } = { token: "usr_a_owner" }) => {
      const response = await h.fetch(path, init)
      return { status: response.status, body: await response.json() }
    }
    const ingest = async (events: ReadonlyArray<unknown>, token = "static") => {
      const response = await h.fetch("/internal/usage/events", { method: "POST", token, json: { events } })
      return { status: response.status, body: await response.json() }
    }
    const query = <T extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
      h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)))

    beforeAll(async () => {
      h = await makeHttpHarness(Route.router(UsageHandlers, { base: "/api/billing" }), makeLayer(driver))
    }, 60_000)
    afterAll(() => h.dispose())

    it("ingests a batch once: a duplicate is accepted and not counted again; the rollup holds the sum", async () => {
      const batch = [
        event({ id: "evt_dup_1", platformId: "plt_b", quantity: 3, occurredAt: at("2026-01-05", 1) }),
        event({ id: "evt_dup_2", platformId: "plt_b", quantity: 4, occurredAt: at("2026-01-05", 23) }),
        event({ id: "evt_dup_3", platformId: "plt_b", meter: "builds", quantity: 1, occurredAt: at("2026-01-06") })
      ]
      const counted = async () => {
        const parsed = Prometheus.parse(await Metrics.render())
        return ["accepted", "duplicate"].map((result) => Prometheus.valueOf(parsed, "core_billing_usage_events_total", { result }))
      }
      const before = await counted()
      expect(await ingest(batch)).toEqual({ status: 200, body: { accepted: 3, duplicates: 0 } })
      expect(await ingest([...batch, event({ id: "evt_dup_4", platformId: "plt_b", quantity: 5, occurredAt: at("2026-01-05") })]))
        .toEqual({ status: 200, body: { accepted: 1, duplicates: 3 } })
      // The same id twice in one batch counts once.
      expect(await ingest([event({ id: "evt_dup_5", platformId: "plt_b", occurredAt: at("2026-01-07") }), event({ id: "evt_dup_5", platformId: "plt_b", occurredAt: at("2026-01-07") })]))
        .toEqual({ status: 200, body: { accepted: 1, duplicates: 1 } })
      const rows = await query<{ day: string; meter: string; quantity: string }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, meter, quantity::text FROM billing.usage_daily WHERE platform_id = 'plt_b' ORDER BY day, meter`
      )
      expect(rows).toEqual([
        { day: "2026-01-05", meter: "requests", quantity: "12" },
        { day: "2026-01-06", meter: "builds", quantity: "1" },
        { day: "2026-01-07", meter: "requests", quantity: "1" }
      ])
      expect(await query(`SELECT count(*)::int AS n FROM billing.usage_events WHERE platform_id = 'plt_b'`)).toEqual([{ n: 5 }])
      // The process's metrics count the same: 5 accepted, 4 duplicates.
      const after = await counted()
      expect([after[0] - before[0], after[1] - before[1]]).toEqual([5, 4])
    })

    it("refuses a batch without the service key (401) and bad events (400 VALIDATION_ERROR)", async () => {
      expect((await ingest([event({})], "usr_a_owner")).status).toBe(401)
      const anonymous = await h.fetch("/internal/usage/events", { method: "POST", json: { events: [event({})] } })
      expect(anonymous.status).toBe(401)
      for (const events of [
        [],
        [event({ meter: "bananas" })],
        [event({ quantity: 0 })],
        [event({ quantity: 1.5 })],
        [event({ occurredAt: "yesterday" })],
        [{ ...event({}), id: "x".repeat(129) }],
        Array.from({ length: 1001 }, () => event({}))
      ]) {
        const refused = await ingest(events)
        expect([refused.status, refused.body.error.code]).toEqual([400, "VALIDATION_ERROR"])
      }
    })

    it("loses no count when batches for one platform run at once, duplicates among them", async () => {
      const events = Array.from({ length: 400 }, (_, i) => event({ id: `evt_race_${String(i).padStart(4, "0")}`, platformId: "plt_race", tenantId: `ent_${i % 3}`, quantity: 2 }))
      // 16 batches of 50 in shuffled windows: every event sent twice, in different batches and orders.
      const batches = Array.from({ length: 16 }, (_, b) => {
        const slice = Array.from({ length: 50 }, (_, k) => events[(b * 25 + k) % 400]!)
        return b % 2 === 0 ? slice : slice.reverse()
      })
      const answers = await Promise.all(batches.map((batch) => ingest(batch)))
      expect(answers.every((answer) => answer.status === 200)).toBe(true)
      expect(answers.reduce((sum, answer) => sum + answer.body.accepted, 0)).toBe(400)
      expect(answers.reduce((sum, answer) => sum + answer.body.duplicates, 0)).toBe(400)
      const [total] = await query<{ quantity: string }>(`SELECT sum(quantity)::text AS quantity FROM billing.usage_daily WHERE platform_id = 'plt_race'`)
      expect(total!.quantity).toBe("800")
      // The in-process service, concurrently, as the gateway's flushes call it.
      const more = Array.from({ length: 8 }, (_, b) => Array.from({ length: 25 }, (_, i) => event({ id: `evt_race_svc_${b}_${i}`, platformId: "plt_race" })))
      const results = await h.run(Effect.forEach(more, (batch) => Effect.flatMap(UsageIngest, (service) => service.ingest(batch as never)), { concurrency: "unbounded" }))
      expect(results.reduce((sum, result) => sum + result.accepted, 0)).toBe(200)
      const [after] = await query<{ quantity: string }>(`SELECT sum(quantity)::text AS quantity FROM billing.usage_daily WHERE platform_id = 'plt_race'`)
      expect(after!.quantity).toBe("1000")
    })

    it("raises the 80 % and 100 % alerts once per period and keeps them", async () => {
      expect(await get("/api/billing/usage/alerts?platformId=plt_a")).toEqual({ status: 200, body: { data: [] } })
      await ingest([event({ meter: "builds", quantity: 7 })])
      expect((await get("/usage/alerts?platformId=plt_a")).body.data).toEqual([])
      await ingest([event({ meter: "builds", quantity: 1 })])
      const first = (await get("/usage/alerts?platformId=plt_a")).body.data
      const month = calendarMonth(new Date())
      expect(first).toEqual([{
        id: expect.stringMatching(/^ual_/), platformId: "plt_a", meter: "builds", threshold: 80, allowance: 10, used: 8,
        periodStart: month.start.toISOString(), periodEnd: month.end.toISOString(), raisedAt: expect.any(String)
      }])
      await ingest([event({ meter: "builds", quantity: 5 })])
      await ingest([event({ meter: "builds", quantity: 5 })])
      const both = (await get("/usage/alerts?platformId=plt_a")).body.data
      expect(both.map((alert: { threshold: number; used: number }) => [alert.threshold, alert.used])).toEqual([[100, 13], [80, 8]])
      // No allowance (plt_b: unlimited): no alert, however much is used.
      await ingest([event({ platformId: "plt_b", meter: "builds", quantity: 1_000 })])
      expect((await get("/usage/alerts?platformId=plt_b", { token: "usr_b_owner" })).body.data).toEqual([])
    })

    it("answers the current period with the allowances, per tenant too; another tenant's platform 404, a member without billing:read 403", async () => {
      await ingest([event({ tenantId: "ent_x", quantity: 30 }), event({ tenantId: "ent_y", quantity: 5 }), event({ quantity: 1, occurredAt: at("2025-12-31") })])
      const month = calendarMonth(new Date())
      const current = await get("/api/billing/usage/current?platformId=plt_a")
      expect(current).toEqual({
        status: 200,
        body: {
          platformId: "plt_a", tenantId: null, periodStart: month.start.toISOString(), periodEnd: month.end.toISOString(),
          usage: { requests: 35, resourceHours: 0, builds: 18 }, allowances: { requests: 100, resourceHours: null, builds: 10 }
        }
      })
      expect((await get("/usage/current?platformId=plt_a&tenantId=ent_x", { apiKey: "core_a" })).body.usage).toEqual({ requests: 30, resourceHours: 0, builds: 0 })
      for (const [path, token] of [["/usage/current?platformId=plt_a", "usr_b_owner"], ["/usage/current?platformId=plt_nope", "usr_a_owner"], ["/usage/current?platformId=plt_ops", "usr_a_owner"]]) {
        const hidden = await get(path!, { token: token! })
        expect([hidden.status, hidden.body.error.code, hidden.body.error.message]).toEqual([404, "NOT_FOUND", "Platform not found"])
      }
      expect((await get("/usage/current?platformId=plt_a", { token: "usr_a_member" })).status).toBe(403)
      expect((await get("/usage/current?platformId=plt_ops", { token: "usr_operator" })).status).toBe(200)
      expect((await get("/usage/current")).status).toBe(400)
      expect((await h.fetch("/usage/current?platformId=plt_a")).status).toBe(401)
    })

    it("pages the daily history of the caller's own platform, newest first, per tenant too", async () => {
      await ingest([
        event({ platformId: "plt_b", tenantId: "ent_b1", quantity: 2, occurredAt: at("2026-01-05") }),
        event({ platformId: "plt_b", tenantId: "ent_b2", meter: "resource_hours", quantity: 6, occurredAt: at("2026-01-07") })
      ])
      const first = await get("/api/billing/usage/history?limit=2", { token: "usr_b_owner" })
      expect(first.status).toBe(200)
      expect(first.body.data.map((d: { date: string }) => d.date)).toEqual([today, "2026-01-07"])
      expect(first.body.data[1]).toEqual({ date: "2026-01-07", platformId: "plt_b", tenantId: null, requests: 1, resourceHours: 6, builds: 0 })
      expect(first.body.hasMore).toBe(true)
      const second = await get(`/usage/history?limit=2&cursor=${first.body.nextCursor}`, { token: "usr_b_owner" })
      expect(second.body).toEqual({
        data: [
          { date: "2026-01-06", platformId: "plt_b", tenantId: null, requests: 0, resourceHours: 0, builds: 1 },
          { date: "2026-01-05", platformId: "plt_b", tenantId: null, requests: 14, resourceHours: 0, builds: 0 }
        ],
        hasMore: false,
        nextCursor: null
      })
      const tenant = await get("/usage/history?tenantId=ent_b1", { token: "usr_b_owner" })
      expect(tenant.body.data).toEqual([{ date: "2026-01-05", platformId: "plt_b", tenantId: "ent_b1", requests: 2, resourceHours: 0, builds: 0 }])
      // The default page is 25; bounds and cursors are checked.
      expect((await get("/usage/history", { token: "usr_b_owner" })).body.data).toHaveLength(4)
      for (const bad of ["limit=0", "limit=101", "limit=abc", "cursor=%21%21", `cursor=${Buffer.from("{\"date\":1}").toString("base64url")}`]) {
        const refused = await get(`/usage/history?${bad}`, { token: "usr_b_owner" })
        expect([bad, refused.status, refused.body.error.code]).toEqual([bad, 400, "VALIDATION_ERROR"])
      }
      // An operator names the platform; another tenant naming it gets 404; the service key without one 400.
      expect((await get("/usage/history?platformId=plt_b&limit=1", { token: "usr_operator" })).body.data).toHaveLength(1)
      expect((await get("/usage/history?platformId=plt_b", { token: "usr_a_owner" })).status).toBe(404)
      expect((await get("/usage/history", { token: "static" })).status).toBe(400)
    })

    it("lists the distinct tenants with usage, cursor-paged", async () => {
      await ingest([event({ tenantId: "ent_z", occurredAt: at("2026-02-01") })])
      const first = await get("/usage/entities?limit=2", { apiKey: "core_a" })
      expect(first.body).toEqual({ data: [{ tenantId: "ent_x", lastUsedOn: today }, { tenantId: "ent_y", lastUsedOn: today }], hasMore: true, nextCursor: expect.any(String) })
      const second = await get(`/api/billing/usage/entities?limit=2&cursor=${first.body.nextCursor}`, { apiKey: "core_a" })
      expect(second.body).toEqual({ data: [{ tenantId: "ent_z", lastUsedOn: "2026-02-01" }], hasMore: false, nextCursor: null })
      expect((await get("/usage/entities", { token: "usr_b_owner" })).body.data.map((e: { tenantId: string }) => e.tenantId)).toEqual(["ent_b1", "ent_b2"])
    })

    it("answers a daily series between two dates, days without usage at zero", async () => {
      const series = await get("/usage/daily?platformId=plt_b&from=2026-01-04&to=2026-01-07", { token: "usr_b_owner" })
      expect(series).toEqual({
        status: 200,
        body: {
          platformId: "plt_b", tenantId: null, from: "2026-01-04", to: "2026-01-07",
          series: [
            { date: "2026-01-04", requests: 0, resourceHours: 0, builds: 0 },
            { date: "2026-01-05", requests: 14, resourceHours: 0, builds: 0 },
            { date: "2026-01-06", requests: 0, resourceHours: 0, builds: 1 },
            { date: "2026-01-07", requests: 1, resourceHours: 6, builds: 0 }
          ]
        }
      })
      const tenant = await get("/usage/daily?platformId=plt_b&tenantId=ent_b2&from=2026-01-07&to=2026-01-07", { token: "usr_b_owner" })
      expect(tenant.body.series).toEqual([{ date: "2026-01-07", requests: 0, resourceHours: 6, builds: 0 }])
      for (const bad of ["from=2026-01-08&to=2026-01-07", "from=2025-01-01&to=2026-01-02", "from=2026-02-30&to=2026-03-01", "from=2026-01-01", "to=2026-01-01&from=x"]) {
        const refused = await get(`/usage/daily?platformId=plt_b&${bad}`, { token: "usr_b_owner" })
        expect([bad, refused.status, refused.body.error.code]).toEqual([bad, 400, "VALIDATION_ERROR"])
      }
      expect((await get("/usage/daily?platformId=plt_b&from=2026-01-04&to=2026-01-07", { token: "usr_a_owner" })).status).toBe(404)
    })

    it("summarizes the current period per stack and answers one stack's usage by day", async () => {
      await ingest([
        event({ stackId: "stk_1", quantity: 4 }),
        event({ stackId: "stk_1", meter: "resource_hours", quantity: 2 }),
        event({ stackId: "stk_2", meter: "builds", quantity: 1 }),
        event({ stackId: "stk_1", quantity: 100, occurredAt: at("2025-11-02") })
      ])
      const summary = await get("/api/billing/usage-summary?platformId=plt_a")
      expect(summary.status).toBe(200)
      expect(summary.body.stacks).toEqual([
        { stackId: "stk_1", requests: 4, resourceHours: 2, builds: 0 },
        { stackId: "stk_2", requests: 0, resourceHours: 0, builds: 1 }
      ])
      const stack = await get("/api/billing/platforms/plt_a/stacks/stk_1/usage")
      expect(stack.status).toBe(200)
      expect(stack.body).toMatchObject({ platformId: "plt_a", stackId: "stk_1", usage: { requests: 4, resourceHours: 2, builds: 0 } })
      expect(stack.body.daily.at(-1)).toEqual({ date: today, requests: 4, resourceHours: 2, builds: 0 })
      expect(stack.body.daily[0].date).toBe(calendarMonth(new Date()).start.toISOString().slice(0, 10))
      expect((await get("/platforms/plt_a/stacks/stk_9/usage")).body.usage).toEqual({ requests: 0, resourceHours: 0, builds: 0 })
      expect((await get("/platforms/plt_a/stacks/stk_1/usage", { token: "usr_b_owner" })).status).toBe(404)
      expect((await get("/usage-summary?platformId=plt_a", { token: "usr_b_owner" })).status).toBe(404)
    })

    it("gives invoices the totals per meter over a period's days", async () => {
      const totals = await h.run(Effect.flatMap(UsageTotals, (usage) => usage.totals("plt_b", new Date("2026-01-05T00:00:00Z"), new Date("2026-01-07T00:00:00Z"))))
      expect(totals).toEqual({ requests: 14, resource_hours: 0, builds: 1 })
    })
  })
}
