import { Registry } from "@core/contracts"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DnsApplier, Platforms, RegistryRouter } from "../src/index.js"
import { makeResourcesLayer } from "./ResourcesSupport.js"

/** What the edge provider was asked to do, in order. */
const applied: Array<string> = []
const RecordingApplier = Layer.succeed(DnsApplier, {
  apply: (record) => Effect.sync(() => void applied.push(`apply ${record.id} ${record.type} ${record.name}`)),
  remove: (record) => Effect.sync(() => void applied.push(`remove ${record.id}`))
})

/** The DNS record routes (`Registry.DnsRecordRoutes`), on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`DNS record routes on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeResourcesLayer>>>
    let platform: string
    let other: string
    const base = (p = platform) => `/api/v1/platforms/${p}/dns-records`
    const query = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text)))
    const post = (json: unknown, init: { token?: string; apiKey?: string } = { token: "usr_admin" }, p = platform) =>
      h.fetch(base(p), { method: "POST", ...init, json })
    const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code

    beforeAll(async () => {
      h = await makeHttpHarness(RegistryRouter, makeResourcesLayer(driver, RecordingApplier))
      platform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "dns-a", organizationId: "org_a" }))).then((p) => p.id)
      other = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "dns-b", organizationId: "org_b" }))).then((p) => p.id)
    })
    afterAll(() => h.dispose())

    it("creates a record (201, dns_ id, ttl 1 and proxied false by default), kept in the registry and applied through the edge", async () => {
      applied.length = 0
      const response = await post({ type: "A", name: "www.example.com", content: "203.0.113.7" })
      expect(response.status).toBe(201)
      const record = Registry.DnsRecord.parse(await response.json())
      expect(record).toMatchObject({ platformId: platform, type: "A", name: "www.example.com", content: "203.0.113.7", ttl: 1, proxied: false, priority: null })
      expect(record.id).toMatch(/^dns_[0-9A-Z]{26}$/)
      expect(applied).toEqual([`apply ${record.id} A www.example.com`])
      const rows = await query(`SELECT type, name, content, ttl, proxied FROM registry.dns_records WHERE id = '${record.id}'`)
      expect(rows).toEqual([{ type: "A", name: "www.example.com", content: "203.0.113.7", ttl: 1, proxied: false }])
      const writers = [{ token: "usr_owner" }, { apiKey: "core_a_manage" }, { token: "usr_operator" }, { token: "static" }]
      const bodies = [
        { type: "AAAA", name: "v6", content: "2001:db8::1", ttl: 60, proxied: true },
        { type: "CNAME", name: "app", content: "target.example.net", ttl: 86400, proxied: true },
        { type: "TXT", name: "_verify", content: "v=spf1 -all", ttl: 300 },
        { type: "MX", name: "@", content: "mail.example.com", priority: 10 }
      ]
      for (const [i, json] of bodies.entries()) {
        const created = await post(json, writers[i])
        expect(created.status, json.type).toBe(201)
        expect(await created.json()).toMatchObject(json)
      }
    })

    it("answers 400 naming the field: type, name, content by type, ttl (1 or 60–86400), proxied only for A, AAAA, CNAME", async () => {
      const cases: Array<[unknown, string]> = [
        [{ type: "PTR", name: "a", content: "b" }, "type"],
        [{ type: "A", name: "", content: "203.0.113.7" }, "name"],
        [{ type: "A", name: "has space", content: "203.0.113.7" }, "name"],
        [{ type: "A", name: "x".repeat(254), content: "203.0.113.7" }, "name"],
        [{ type: "A", name: "a", content: "not-an-ip" }, "content"],
        [{ type: "AAAA", name: "a", content: "203.0.113.7" }, "content"],
        [{ type: "TXT", name: "a", content: "" }, "content"],
        [{ type: "A", name: "a", content: "203.0.113.7", ttl: 30 }, "ttl"],
        [{ type: "A", name: "a", content: "203.0.113.7", ttl: 86401 }, "ttl"],
        [{ type: "A", name: "a", content: "203.0.113.7", ttl: 1.5 }, "ttl"],
        [{ type: "TXT", name: "a", content: "x", proxied: true }, "proxied"],
        [{ type: "A", name: "a", content: "203.0.113.7", proxied: "yes" }, "proxied"],
        [{ type: "MX", name: "a", content: "m", priority: -1 }, "priority"]
      ]
      for (const [json, field] of cases) {
        const response = await post(json)
        expect(response.status, JSON.stringify(json)).toBe(400)
        const body = await response.json()
        expect(body.error.code).toBe("VALIDATION_ERROR")
        expect(body.error.details.issues.map((issue: { path: string }) => issue.path), JSON.stringify(json)).toContain(field)
      }
      expect((await query(`SELECT count(*)::int AS n FROM registry.dns_records WHERE name = 'a'`))[0]!.n).toBe(0)
    })

    it("refuses the same type, name and content twice (409); members and read keys 403; anonymous 401; another tenant 404", async () => {
      const json = { type: "TXT", name: "Dup.Example.com", content: "same" }
      expect((await post(json)).status).toBe(201)
      const again = await post({ ...json, name: "dup.example.com" })
      expect([again.status, await codeOf(again)]).toEqual([409, "CONFLICT"])
      expect((await post({ ...json, content: "other" })).status).toBe(201)
      expect((await post(json, { token: "usr_member" })).status).toBe(403)
      expect((await post(json, { apiKey: "core_a" })).status).toBe(403)
      expect((await post(json, {})).status).toBe(401)
      expect((await post(json, { token: "usr_b_owner" })).status).toBe(404)
      // The same record on another platform is that platform's own.
      expect((await post(json, { token: "usr_b_owner" }, other)).status).toBe(201)
    })

    it("lists (paged, filters type and name), reads and deletes; another tenant's ids 404 on every route", async () => {
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((await (await post({ type: "CNAME", name: `list-${i}`, content: "t.example.net" })).json()).id)
      const first = await (await h.fetch(`${base()}?type=CNAME&limit=2`, { token: "usr_member" })).json()
      expect(first.pagination).toMatchObject({ hasMore: true, total: 4 })
      const second = await (await h.fetch(`${base()}?type=CNAME&limit=2&cursor=${first.pagination.nextCursor}`, { token: "usr_member" })).json()
      expect([...first.data, ...second.data].map((r: { name: string }) => r.name)).toEqual(["app", "list-0", "list-1", "list-2"])
      expect(second.pagination).toEqual({ hasMore: false, nextCursor: null, total: 4 })
      const byName = await (await h.fetch(`${base()}?name=LIST-1`, { apiKey: "core_a" })).json()
      expect(byName.data.map((r: { id: string }) => r.id)).toEqual([ids[1]])
      for (const bad of ["type=PTR", "limit=0", "cursor=%%%", "name=a%20b"]) {
        expect((await h.fetch(`${base()}?${bad}`, { token: "usr_member" })).status, bad).toBe(400)
      }

      const got = await h.fetch(`${base()}/${ids[0]}`, { token: "usr_member" })
      expect(got.status).toBe(200)
      expect(await got.json()).toMatchObject({ id: ids[0], name: "list-0" })
      for (const [path, init] of [[`${base()}/${ids[0]}`, {}], [`${base()}/${ids[0]}`, { method: "DELETE" }], [base(), {}]] as const) {
        expect((await h.fetch(path, { ...init, token: "usr_b_owner" })).status, path).toBe(404)
      }
      expect((await h.fetch(`${base(other)}/${ids[0]}`, { token: "static" })).status).toBe(404)
      expect((await h.fetch(`${base(other)}/${ids[0]}`, { method: "DELETE", token: "static" })).status).toBe(404)
      expect((await h.fetch(`${base()}/dns_01JDQ3V6X4TQ7K9ZC2M8N5P0RS`, { token: "static" })).status).toBe(404)
      expect((await h.fetch(`${base()}/nope`, { token: "static" })).status).toBe(404)

      applied.length = 0
      expect((await h.fetch(`${base()}/${ids[0]}`, { method: "DELETE", token: "usr_member" })).status).toBe(403)
      const removed = await h.fetch(`${base()}/${ids[0]}`, { method: "DELETE", token: "usr_admin" })
      expect(removed.status).toBe(200)
      expect(await removed.json()).toEqual({ success: true })
      expect(applied).toEqual([`remove ${ids[0]}`])
      expect((await query(`SELECT count(*)::int AS n FROM registry.dns_records WHERE id = '${ids[0]}'`))[0]!.n).toBe(0)
      expect((await h.fetch(`${base()}/${ids[0]}`, { method: "DELETE", token: "usr_admin" })).status).toBe(404)
    })
  })
}
