import { Events } from "@core/contracts"
import { CoreConfig, EventOutbox, Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { ProvisioningMigrations } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Endpoints, EndpointsRepo, EventsConfig, EventsMigrations, EventsRouter, EventsServices, Relay } from "../src/index.js"
import { TestCallers } from "./Callers.js"

/**
 * The events service's routes from their declarations on the shared harness, on PGlite and (with
 * `CORE_TEST_DATABASE_URL`) PostgreSQL: endpoints, their secrets, events, tenancy, permissions and
 * bounded input. No worker runs here: the delivery is tested end to end in tests/webhooks.test.ts.
 */
const layerOn = (driver: "pglite" | "pg") =>
  EventsServices.pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer, EventsConfig.layer({ allowHttp: false, allowPrivate: false, retentionDays: 30 }))),
    Layer.provideMerge(CoreConfig.layer({ CORE_SECRET: "events-test-secret-0123456789abcdef", NODE_ENV: "test" })),
    Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations, EventsMigrations], { driver }))
  )

type Json = Record<string, any>

describe.each(TestDatabase.drivers)("the events service on %s", (driver) => {
  let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof layerOn>>>
  const send = (path: string, init: { method?: string; json?: unknown; token?: string; apiKey?: string } = {}) =>
    h.fetch(path, { method: init.method ?? "GET", ...(init.json === undefined ? {} : { json: init.json }), ...(init.apiKey === undefined ? { token: init.token ?? "a_admin" } : { apiKey: init.apiKey }) })
  const body = async (response: Response): Promise<Json> => (await response.json()) as Json
  const create = async (json: Json, token = "a_admin") => send("/api/v1/webhooks/endpoints", { method: "POST", json, token })
  /** Record an event as a domain does, in its own transaction. */
  const record = (event: EventOutbox.NewEvent, fail = false) =>
    h.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* EventOutbox.record(event)
        if (fail) return yield* Effect.fail("the change failed" as const)
      }))
    }).pipe(Effect.either))
  const platform = (id: string) => ({
    id, name: "Acme", slug: id.replace("_", "-"), status: "active", tier: "free", organizationId: "org_a", ownerUserId: null, edgeAccountId: null,
    repoName: null, paymentCustomerId: null, cancelledAt: null, cancellationReason: null, suspendedAt: null, suspensionReason: null,
    trialEndsAt: null, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", deletedAt: null, secretField: "never"
  })

  beforeAll(async () => {
    h = await makeHttpHarness(EventsRouter, layerOn(driver))
  }, 60_000)
  afterAll(() => h?.dispose())

  it("creates an endpoint with its secret once (201), never answers the secret again, and keeps it encrypted", async () => {
    const created = await create({ url: "https://93.184.215.14/hooks", description: "orders", events: ["platform.created", "platform.created"] })
    expect(created.status).toBe(201)
    const endpoint = Events.CreatedWebhookEndpoint.parse(await body(created))
    expect(endpoint).toMatchObject({ url: "https://93.184.215.14/hooks", description: "orders", events: ["platform.created"], platformId: null, enabled: true })
    expect(endpoint.id).toMatch(/^whe_/)
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const read = await body(await send(`/api/v1/webhooks/endpoints/${endpoint.id}`))
    expect(read).toEqual(Events.WebhookEndpoint.parse(endpoint))
    expect(read.secret).toBeUndefined()
    const listed = await body(await send("/api/v1/webhooks/endpoints"))
    expect(listed.data.map((row: Json) => row.id)).toContain(endpoint.id)
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret)
    const stored = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ secret: string; organization_id: string }>`SELECT secret, organization_id FROM events.endpoints WHERE id = ${endpoint.id}`))
    expect(stored[0].organization_id).toBe("org_a")
    expect(stored[0].secret.startsWith("enc.v1.")).toBe(true)
    expect(stored[0].secret).not.toContain(endpoint.secret.slice(6))
  })

  it("changes, rotates and deletes an endpoint; another organization's is 404 on every route", async () => {
    const { id } = await body(await create({ url: "https://93.184.215.14/a" }))
    const patched = await send(`/api/v1/webhooks/endpoints/${id}`, { method: "PATCH", json: { events: ["tenant.created"], enabled: false, description: "x" } })
    expect(patched.status).toBe(200)
    expect(await body(patched)).toMatchObject({ id, events: ["tenant.created"], enabled: false, description: "x" })
    const rotated = await send(`/api/v1/webhooks/endpoints/${id}/rotate-secret`, { method: "POST" })
    expect(rotated.status).toBe(200)
    const newSecret = (await body(rotated)).secret as string
    expect(newSecret).toMatch(/^whsec_/)
    // Both secrets sign during the overlap, only the new one after it.
    const signing = await h.run(Effect.gen(function*() {
      const row = (yield* (yield* EndpointsRepo).find("org_a", id)).pipe((found) => (found._tag === "Some" ? found.value : undefined))!
      const endpoints = yield* Endpoints
      return [yield* endpoints.signingSecrets(row, new Date()), yield* endpoints.signingSecrets(row, new Date(Date.now() + 25 * 3_600_000))]
    }))
    expect(signing[0]).toHaveLength(2)
    expect(signing[0][0]).toBe(newSecret)
    expect(signing[1]).toEqual([signing[0][0]])
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ previous_secret: string | null; previous_until: unknown }>`SELECT previous_secret, previous_until FROM events.endpoints WHERE id = ${id}`))
    expect(rows[0].previous_secret).toMatch(/^enc\.v1\./)
    const until = new Date(rows[0].previous_until as string).getTime()
    expect(Math.abs(until - Date.now() - 24 * 3_600_000)).toBeLessThan(60_000)

    const foreign: Array<[string, string, unknown?]> = [
      ["GET", `/api/v1/webhooks/endpoints/${id}`],
      ["PATCH", `/api/v1/webhooks/endpoints/${id}`, { description: "mine" }],
      ["DELETE", `/api/v1/webhooks/endpoints/${id}`],
      ["POST", `/api/v1/webhooks/endpoints/${id}/rotate-secret`],
      ["POST", `/api/v1/webhooks/endpoints/${id}/test`],
      ["GET", `/api/v1/webhooks/endpoints/${id}/deliveries`],
      ["POST", `/api/v1/webhooks/endpoints/${id}/replay`, { since: "2026-01-01T00:00:00Z" }],
      ["POST", "/api/v1/webhooks/deliveries/whd_01JAAAAAAAAAAAAAAAAAAAAAAA/retry"]
    ]
    for (const [method, path, json] of foreign) {
      const response = await send(path, { method, json, token: "b_admin" })
      expect(response.status, `${method} ${path}`).toBe(404)
      expect((await body(response)).error.code).toBe("NOT_FOUND")
    }
    expect((await body(await send("/api/v1/webhooks/endpoints", { token: "b_admin" }))).data).toEqual([])
    expect((await send(`/api/v1/webhooks/endpoints/${id}`, { method: "DELETE" })).status).toBe(204)
    expect((await send(`/api/v1/webhooks/endpoints/${id}`)).status).toBe(404)
  })

  it("needs webhooks:manage for endpoints and events:read for events (403), an organization (404) and credentials (401)", async () => {
    const refused = await create({ url: "https://93.184.215.14/x" }, "a_reader")
    expect(refused.status).toBe(403)
    expect((await body(refused)).error.message).toContain("webhooks:manage")
    expect((await send("/api/v1/webhooks/endpoints", { apiKey: "core_a_ro" })).status).toBe(403)
    expect((await send("/api/v1/webhooks/endpoints", { apiKey: "core_a" })).status).toBe(200)
    expect((await send("/api/v1/events", { token: "a_reader" })).status).toBe(200)
    expect((await send("/api/v1/events", { token: "nobody" })).status).toBe(404)
    expect((await h.fetch("/api/v1/events")).status).toBe(401)
    expect((await h.fetch("/api/v1/webhooks/endpoints")).status).toBe(401)
  })

  it("refuses plain http, private, loopback and link-local targets (also by a name that resolves to 127.0.0.1), naming the variable", async () => {
    const cases: Array<[string, string]> = [
      ["http://93.184.215.14/hooks", "CORE_WEBHOOKS_ALLOW_HTTP=1"],
      ["https://127.0.0.1/hooks", "CORE_WEBHOOKS_ALLOW_PRIVATE=1"],
      ["https://localhost:8443/hooks", "CORE_WEBHOOKS_ALLOW_PRIVATE=1"],
      ["https://10.1.2.3/hooks", "CORE_WEBHOOKS_ALLOW_PRIVATE=1"],
      ["https://192.168.0.1/hooks", "CORE_WEBHOOKS_ALLOW_PRIVATE=1"],
      ["https://169.254.169.254/latest/meta-data", "CORE_WEBHOOKS_ALLOW_PRIVATE=1"],
      ["https://[::1]/hooks", "CORE_WEBHOOKS_ALLOW_PRIVATE=1"],
      ["https://[::ffff:127.0.0.1]/hooks", "CORE_WEBHOOKS_ALLOW_PRIVATE=1"]
    ]
    for (const [url, variable] of cases) {
      const response = await create({ url })
      expect(response.status, url).toBe(400)
      const { error } = await body(response)
      expect(error.code).toBe("VALIDATION_ERROR")
      expect(error.message, url).toContain(variable)
    }
    const { id } = await body(await create({ url: "https://93.184.215.14/ok" }))
    const patched = await send(`/api/v1/webhooks/endpoints/${id}`, { method: "PATCH", json: { url: "https://localhost/x" } })
    expect(patched.status).toBe(400)
    const count = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: unknown }>`SELECT count(*) AS n FROM events.endpoints WHERE url LIKE '%localhost%' OR url LIKE '%127.0.0.1%'`))
    expect(Number(count[0].n)).toBe(0)
  })

  it("bounds every input: 400 with the envelope, never 500", async () => {
    const bad: Array<[string, string, unknown]> = [
      ["POST", "/api/v1/webhooks/endpoints", { url: "not a url" }],
      ["POST", "/api/v1/webhooks/endpoints", { url: `https://example.com/${"a".repeat(2100)}` }],
      ["POST", "/api/v1/webhooks/endpoints", { url: "https://example.com/", events: ["no.such_type"] }],
      ["POST", "/api/v1/webhooks/endpoints", { url: "https://example.com/", events: Array.from({ length: 65 }, () => "platform.created") }],
      ["POST", "/api/v1/webhooks/endpoints", { url: "https://example.com/", description: "d".repeat(501) }],
      ["POST", "/api/v1/webhooks/endpoints", { url: "ftp://example.com/" }],
      ["POST", "/api/v1/webhooks/endpoints", { url: "https://user:pw@example.com/" }],
      ["GET", "/api/v1/events?limit=1000", undefined],
      ["GET", "/api/v1/events?type=nope", undefined],
      ["GET", "/api/v1/events?since=yesterday", undefined],
      ["GET", "/api/v1/events?cursor=%7B%7D", undefined],
      ["GET", "/api/v1/events/stream?types=platform.created,nope", undefined],
      ["GET", "/api/v1/webhooks/endpoints?cursor=garbage", undefined]
    ]
    for (const [method, path, json] of bad) {
      const response = await send(path, { method, json })
      expect(response.status, `${method} ${path}`).toBe(400)
      expect((await body(response)).error.code, `${method} ${path}`).toBe("VALIDATION_ERROR")
    }
    const ids = ["x".repeat(200), "whe_nope"]
    for (const id of ids) expect((await send(`/api/v1/webhooks/endpoints/${id}`)).status).toBe(404)
    expect((await send(`/api/v1/events/${"y".repeat(300)}`)).status).toBe(404)
  })

  it("records an event with its change and none for a change rolled back; lists and reads it in its organization only", async () => {
    const id = `plt_${Date.now()}`
    expect((await record({ type: "platform.created", organizationId: "org_a", platformId: id, data: platform(id) as any }, true))._tag).toBe("Left")
    const none = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: unknown }>`SELECT count(*) AS n FROM events.outbox WHERE platform_id = ${id}`))
    expect(Number(none[0].n)).toBe(0)

    expect((await record({ type: "platform.created", organizationId: "org_a", platformId: id, data: platform(id) as any }))._tag).toBe("Right")
    const listed = await body(await send(`/api/v1/events?type=platform.created&platformId=${id}`))
    expect(listed.data).toHaveLength(1)
    const event = Events.EventEnvelope.parse(listed.data[0])
    expect(event).toMatchObject({ type: "platform.created", version: 1, organizationId: "org_a", platformId: id, data: { id, slug: id.replace("_", "-") } })
    expect(event.id).toMatch(/^evt_/)
    // Only what the type's schema has: a field the catalogue does not name never leaves.
    expect(event.data.secretField).toBeUndefined()
    expect(await body(await send(`/api/v1/events/${event.id}`, { apiKey: "core_a_ro" }))).toEqual(event)
    expect((await send(`/api/v1/events/${event.id}`, { token: "b_admin" })).status).toBe(404)
    expect((await body(await send(`/api/v1/events?platformId=${id}`, { token: "b_admin" }))).data).toEqual([])
  })

  it("pages the event list newest first with a cursor and filters by time", async () => {
    const platformId = `plt_page${Date.now()}`
    for (let i = 0; i < 5; i++) await record({ type: "platform.created", organizationId: "org_a", platformId, data: platform(platformId) as any })
    const first = await body(await send(`/api/v1/events?platformId=${platformId}&limit=2`))
    expect(first.data).toHaveLength(2)
    expect(first.hasMore).toBe(true)
    const second = await body(await send(`/api/v1/events?platformId=${platformId}&limit=2&cursor=${encodeURIComponent(first.nextCursor)}`))
    const third = await body(await send(`/api/v1/events?platformId=${platformId}&limit=2&cursor=${encodeURIComponent(second.nextCursor)}`))
    const all = [...first.data, ...second.data, ...third.data].map((event: Json) => event.id)
    expect(new Set(all).size).toBe(5)
    expect(third.hasMore).toBe(false)
    expect(all).toEqual([...all].sort().reverse())
    expect((await body(await send(`/api/v1/events?platformId=${platformId}&since=2999-01-01T00:00:00Z`))).data).toEqual([])
  })

  it("prunes the events and attempts older than the retention period, and keeps the rest", async () => {
    const platformId = `plt_prune${Date.now()}`
    await record({ type: "platform.created", organizationId: "org_a", platformId, data: platform(platformId) as any })
    await h.run(Effect.flatMap(Relay, (relay) => relay.drain()))
    await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE events.outbox SET created_at = now() - interval '31 days' WHERE platform_id = ${platformId}`))
    const kept = `plt_kept${Date.now()}`
    await record({ type: "platform.created", organizationId: "org_a", platformId: kept, data: platform(kept) as any })
    await h.run(Effect.flatMap(Relay, (relay) => relay.drain()))
    const pruned = await h.run(Effect.flatMap(Relay, (relay) => relay.prune()))
    expect(pruned.events).toBeGreaterThanOrEqual(1)
    // The delivery jobs the relay queued are internal: no organization, no platform.
    const jobs = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: unknown }>`SELECT count(*) AS n FROM provisioning.jobs WHERE type = 'webhook.deliver' AND (organization_id IS NOT NULL OR platform_id IS NOT NULL)`))
    expect(Number(jobs[0].n)).toBe(0)
    const left = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ platform_id: string }>`SELECT platform_id FROM events.outbox WHERE platform_id IN (${platformId}, ${kept})`))
    expect(left).toEqual([{ platform_id: kept }])
  })

  /** The stream's text until `enough` says so (the stream itself never ends). */
  const streamed = async (token: string, headers: Record<string, string>, enough: (text: string) => boolean) => {
    const controller = new AbortController()
    const response = await h.fetch("/api/v1/events/stream", { token, headers, signal: controller.signal })
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    try {
      while (!enough(text)) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
    } finally {
      controller.abort()
      await reader.cancel().catch(() => undefined)
    }
    return text
  }

  it("opens the stream of an organization with no event yet with an id (pos_0) that resumes at its start, and one with events at its newest", async () => {
    // org_b has recorded nothing: the opening still names a position, and says nothing of org_a's events.
    await record({ type: "member.removed", organizationId: "org_a", data: { id: "mem_a1", organizationId: "org_a", userId: "usr_1", role: "member" } })
    await h.run(Effect.flatMap(Relay, (relay) => relay.drain()))
    expect(await streamed("b_admin", {}, (text) => text.includes("\n\n"))).toBe(": open\nid: pos_0\n\n")

    // Dropped before its first event: the events recorded meanwhile arrive when it resumes there, the other organization's never.
    await record({ type: "member.removed", organizationId: "org_a", data: { id: "mem_a2", organizationId: "org_a", userId: "usr_2", role: "member" } })
    await record({ type: "member.removed", organizationId: "org_b", data: { id: "mem_b1", organizationId: "org_b", userId: "usr_3", role: "member" } })
    await h.run(Effect.flatMap(Relay, (relay) => relay.drain()))
    const resumed = await streamed("b_admin", { "last-event-id": "pos_0" }, (text) => text.split("\n\n").length >= 3)
    const [opening, frame] = resumed.split("\n\n")
    expect(opening).toBe(": open")
    const [id, type, data] = frame!.split("\n")
    const event = JSON.parse(data!.slice("data: ".length)) as Json
    expect([id, type]).toEqual([`id: ${event.id}`, "event: member.removed"])
    expect(event).toMatchObject({ organizationId: "org_b", data: { id: "mem_b1" } })

    // An organization with events opens at its newest one, as before.
    const [newest] = (await body(await send("/api/v1/events?limit=1", { token: "b_admin" }))).data as Array<Json>
    expect(await streamed("b_admin", {}, (text) => text.includes("\n\n"))).toBe(`: open\nid: ${newest!.id}\n\n`)
  })

  it("checks a recorded event's data against its own type's schema when it compiles", () => {
    const member = { id: "mem_1", organizationId: "org_a", userId: "usr_1", role: "member" }
    const right = EventOutbox.record({ type: "member.removed", organizationId: "org_a", data: member })
    // @ts-expect-error a tenant's data is an entity record, not a membership
    const wrong = EventOutbox.record({ type: "tenant.created", organizationId: "org_a", data: member })
    expect([Effect.isEffect(right), Effect.isEffect(wrong)]).toEqual([true, true])
  })
})
