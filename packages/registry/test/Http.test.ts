import { Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Platforms, RegistryMigrations, RegistryRouter } from "../src/index.js"
import { TestCallers } from "./Callers.js"

const makeLayer = (driver: "pglite" | "pg") =>
  Platforms.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations], { driver }))
  )

/** The platform routes served from their declarations (`Registry.PlatformRoutes`), on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`platform routes on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    let tenantPlatform: string
    let otherPlatform: string
    const create = (name: string, slug: string, organizationId?: string) =>
      h.run(Effect.flatMap(Platforms, (p) => p.create({ name, slug, organizationId }))).then((p) => p.id)
    const query = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)))

    beforeAll(async () => {
      h = await makeHttpHarness(RegistryRouter, makeLayer(driver))
      tenantPlatform = await create("A", "tenant-a", "org_a")
      otherPlatform = await create("B", "tenant-b", "org_b")
    })
    afterAll(() => h.dispose())

    describe("POST /api/v1/platforms", () => {
      it("creates a platform for the service key or an operator: 201, starter by default, every PlatformRecord field", async () => {
        const response = await h.fetch("/api/v1/platforms", { method: "POST", token: "static", json: { name: "Acme", slug: "acme" } })
        expect(response.status).toBe(201)
        const record = await response.json()
        expect(Object.keys(record).sort()).toEqual([
          "cancellationReason", "cancelledAt", "createdAt", "deletedAt", "edgeAccountId", "id", "name", "organizationId",
          "ownerUserId", "paymentCustomerId", "repoName", "slug", "status", "suspendedAt", "suspensionReason", "tier",
          "trialEndsAt", "updatedAt"
        ])
        expect(record).toMatchObject({ name: "Acme", slug: "acme", tier: "starter", status: "active", ownerUserId: null, deletedAt: null })
        const byOperator = await h.fetch("/", {
          method: "POST",
          token: "usr_operator",
          json: { name: "Ops", slug: "ops", tier: "growth", ownerUserId: "usr_01JABCDEFGHJKMNPQRSTVWXYZ0" }
        })
        expect(byOperator.status).toBe(201)
        expect(await byOperator.json()).toMatchObject({ tier: "growth", ownerUserId: "usr_01JABCDEFGHJKMNPQRSTVWXYZ0" })
      })

      it("refuses owners, members and API keys (403), and anonymous callers (401)", async () => {
        for (const init of [{ token: "usr_owner" }, { token: "usr_member" }, { apiKey: "core_a_manage" }]) {
          expect((await h.fetch("/api/v1/platforms", { method: "POST", ...init, json: { name: "X", slug: "x" } })).status).toBe(403)
        }
        expect((await h.fetch("/api/v1/platforms", { method: "POST", json: { name: "X", slug: "x" } })).status).toBe(401)
      })

      it("answers 409 for a slug taken and 400 for bad input, never 500", async () => {
        const taken = await h.fetch("/api/v1/platforms", { method: "POST", token: "static", json: { name: "Again", slug: "tenant-a" } })
        expect(taken.status).toBe(409)
        expect((await taken.json()).error).toMatchObject({ code: "CONFLICT", details: { field: "slug" } })
        for (const json of [{}, { name: "", slug: "a" }, { name: "a", slug: "Not A Slug" }, { name: "a".repeat(201), slug: "a" }, { name: "a", slug: "a", tier: "gold" }, { name: "a", slug: "a", ownerUserId: "" }, [], "x", null]) {
          const response = await h.fetch("/api/v1/platforms", { method: "POST", token: "static", json })
          expect(response.status, JSON.stringify(json)).toBe(400)
          expect((await response.json()).error.code).toBe("VALIDATION_ERROR")
        }
      })
    })

    describe("GET /api/v1/platforms/{platformId}", () => {
      it("answers the tenant's platform to a member and to its API key, at both the documented and the forwarded path", async () => {
        const byMember = await h.fetch(`/api/v1/platforms/${tenantPlatform}`, { token: "usr_member" })
        expect(byMember.status).toBe(200)
        expect(await byMember.json()).toMatchObject({ id: tenantPlatform, slug: "tenant-a", organizationId: "org_a" })
        expect((await h.fetch(`/${tenantPlatform}`, { apiKey: "core_a" })).status).toBe(200)
      })

      it("answers 403 to a key of the tenant without platforms:read, 404 to a malformed id (as to an unknown one), 401 without credentials", async () => {
        expect((await h.fetch(`/api/v1/platforms/${tenantPlatform}`, { apiKey: "core_none" })).status).toBe(403)
        const malformed = await h.fetch("/api/v1/platforms/not-an-id", { token: "usr_member" })
        expect(malformed.status).toBe(404)
        expect((await malformed.json()).error).toMatchObject({ code: "NOT_FOUND", message: "Platform not found", details: null })
        expect((await h.fetch(`/api/v1/platforms/plt_${"x".repeat(300)}`, { token: "usr_member" })).status).toBe(404)
        expect((await h.fetch(`/api/v1/platforms/${tenantPlatform}`)).status).toBe(401)
      })

      it("lets operators and the service key read any platform; an unknown id is 404", async () => {
        expect((await h.fetch(`/api/v1/platforms/${otherPlatform}`, { token: "usr_operator" })).status).toBe(200)
        expect((await h.fetch(`/api/v1/platforms/${otherPlatform}`, { token: "static" })).status).toBe(200)
        expect((await h.fetch("/api/v1/platforms/plt_01JABCDEFGHJKMNPQRSTVWXYZ0", { token: "static" })).status).toBe(404)
      })
    })

    describe("GET /api/v1/platforms", () => {
      it("pages every platform for operators by keyset: limit, hasMore, nextCursor, total; no page repeats or skips a row", async () => {
        for (let index = 0; index < 7; index++) await create(`Page ${index}`, `page-${index}`)
        const all = await (await h.fetch("/api/v1/platforms?limit=100", { token: "static" })).json()
        const seen: Array<string> = []
        let cursor = ""
        for (;;) {
          const response = await h.fetch(`/api/v1/platforms?limit=3${cursor === "" ? "" : `&cursor=${cursor}`}`, { token: "usr_operator" })
          expect(response.status).toBe(200)
          const page = await response.json()
          expect(page.data.length).toBeLessThanOrEqual(3)
          expect(page.pagination.total).toBe(all.pagination.total)
          seen.push(...page.data.map((p: { id: string }) => p.id))
          if (!page.pagination.hasMore) {
            expect(page.pagination.nextCursor).toBeNull()
            break
          }
          cursor = page.pagination.nextCursor
        }
        expect(seen).toEqual(all.data.map((p: { id: string }) => p.id))
        expect(new Set(seen).size).toBe(seen.length)
        expect(seen.length).toBe(all.pagination.total)
        const first = await (await h.fetch("/api/v1/platforms", { token: "static" })).json()
        expect(first.data.length).toBe(Math.min(25, all.pagination.total))
      })

      it("filters by status, tier and slug", async () => {
        const bySlug = await (await h.fetch("/api/v1/platforms?slug=tenant-b", { token: "static" })).json()
        expect(bySlug).toEqual({ data: [expect.objectContaining({ id: otherPlatform })], pagination: { hasMore: false, nextCursor: null, total: 1 } })
        const growth = await (await h.fetch("/api/v1/platforms?tier=growth", { token: "static" })).json()
        expect(growth.data.every((p: { tier: string }) => p.tier === "growth")).toBe(true)
        expect(growth.data.map((p: { slug: string }) => p.slug)).toContain("ops")
        const active = await (await h.fetch("/api/v1/platforms?status=active&limit=100", { token: "static" })).json()
        expect(active.data.every((p: { status: string }) => p.status === "active")).toBe(true)
      })

      it("shows a tenant only its own platform (members and keys); a caller in no tenant sees none", async () => {
        for (const init of [{ token: "usr_member" }, { apiKey: "core_a" }]) {
          const page = await (await h.fetch("/api/v1/platforms?limit=100", init)).json()
          expect(page).toEqual({ data: [expect.objectContaining({ id: tenantPlatform })], pagination: { hasMore: false, nextCursor: null, total: 1 } })
        }
        const other = await (await h.fetch("/api/v1/platforms?slug=tenant-a", { token: "usr_b_owner" })).json()
        expect(other).toEqual({ data: [], pagination: { hasMore: false, nextCursor: null, total: 0 } })
        const none = await (await h.fetch("/api/v1/platforms", { token: "usr_lonely" })).json()
        expect(none.pagination.total).toBe(0)
        expect((await h.fetch("/api/v1/platforms", { apiKey: "core_none" })).status).toBe(403)
      })

      it("answers 400 to a bad cursor, limit or filter", async () => {
        for (const q of ["cursor=%%%", "cursor=bm90LWpzb24", "cursor=e30", "limit=0", "limit=101", "limit=x", "status=gone", "tier=gold", "slug=Not%20A%20Slug"]) {
          const response = await h.fetch(`/api/v1/platforms?${q}`, { token: "static" })
          expect(response.status, q).toBe(400)
          expect((await response.json()).error.code).toBe("VALIDATION_ERROR")
        }
      })
    })

    describe("PATCH /api/v1/platforms/{platformId}", () => {
      it("lets the owner, an admin and a managing key rename their platform; members get 403", async () => {
        const renamed = await h.fetch(`/api/v1/platforms/${tenantPlatform}`, { method: "PATCH", token: "usr_owner", json: { name: "A renamed" } })
        expect(renamed.status).toBe(200)
        expect(await renamed.json()).toMatchObject({ id: tenantPlatform, name: "A renamed", tier: "starter" })
        expect((await h.fetch(`/${tenantPlatform}`, { method: "PATCH", token: "usr_admin", json: { name: "A again" } })).status).toBe(200)
        expect((await h.fetch(`/${tenantPlatform}`, { method: "PATCH", apiKey: "core_a_manage", json: { name: "A" } })).status).toBe(200)
        expect((await h.fetch(`/${tenantPlatform}`, { method: "PATCH", token: "usr_member", json: { name: "Nope" } })).status).toBe(403)
        expect((await query(`SELECT name FROM registry.platforms WHERE id = '${tenantPlatform}'`))[0]).toEqual({ name: "A" })
      })

      it("keeps tier and status to operators: the owner cannot raise its tier (403), an operator can", async () => {
        const raised = await h.fetch(`/${tenantPlatform}`, { method: "PATCH", token: "usr_owner", json: { tier: "scale" } })
        expect(raised.status).toBe(403)
        expect((await h.fetch(`/${tenantPlatform}`, { method: "PATCH", token: "usr_owner", json: { status: "suspended" } })).status).toBe(403)
        const platform = await create("Tiered", "tiered", "org_c")
        const byOperator = await h.fetch(`/${platform}`, { method: "PATCH", token: "usr_operator", json: { tier: "scale", name: "Tiered 2" } })
        expect(byOperator.status).toBe(200)
        expect(await byOperator.json()).toMatchObject({ tier: "scale", name: "Tiered 2", status: "active" })
      })

      it("sets status through the lifecycle, with its event; a forbidden one is 409 INVALID_STATE { from, to }", async () => {
        const platform = await create("Patched", "patched", "org_d")
        const suspended = await h.fetch(`/${platform}`, { method: "PATCH", token: "static", json: { status: "suspended" } })
        expect(await suspended.json()).toMatchObject({ status: "suspended", suspendedAt: expect.any(String) })
        const active = await h.fetch(`/${platform}`, { method: "PATCH", token: "static", json: { status: "active" } })
        expect(await active.json()).toMatchObject({ status: "active", suspendedAt: null })
        const deleted = await h.fetch(`/${platform}`, { method: "PATCH", token: "static", json: { status: "deleted" } })
        expect(await deleted.json()).toMatchObject({ status: "deleted", deletedAt: expect.any(String) })
        const again = await h.fetch(`/${platform}`, { method: "PATCH", token: "static", json: { status: "active" } })
        expect(again.status).toBe(409)
        expect((await again.json()).error).toMatchObject({ code: "INVALID_STATE", details: { from: "deleted", to: "active" } })
        const rename = await h.fetch(`/${platform}`, { method: "PATCH", token: "static", json: { name: "Ghost" } })
        expect(rename.status).toBe(409)
        const events = await query(`SELECT from_status, to_status, trigger_type FROM registry.lifecycle_events WHERE platform_id = '${platform}' ORDER BY created_at, id`)
        expect(events).toEqual([
          { from_status: "active", to_status: "suspended", trigger_type: "service" },
          { from_status: "suspended", to_status: "active", trigger_type: "service" },
          { from_status: "active", to_status: "deleted", trigger_type: "service" }
        ])
      })

      it("answers 400 to bad input", async () => {
        for (const json of [{ name: "" }, { tier: "gold" }, { status: "cancelled" }, { name: "a".repeat(201) }, []]) {
          const response = await h.fetch(`/${tenantPlatform}`, { method: "PATCH", token: "static", json })
          expect(response.status, JSON.stringify(json)).toBe(400)
        }
      })
    })

    describe("DELETE /api/v1/platforms/{platformId}", () => {
      it("soft-deletes for operators: { success: true }, status deleted, deletedAt set, hidden from the list; the owner gets 403", async () => {
        const platform = await create("Doomed", "doomed", "org_a2")
        expect((await h.fetch(`/${tenantPlatform}`, { method: "DELETE", token: "usr_owner" })).status).toBe(403)
        const response = await h.fetch(`/api/v1/platforms/${platform}`, { method: "DELETE", token: "usr_operator" })
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ success: true })
        const [row] = await query(`SELECT status, deleted_at IS NOT NULL AS gone FROM registry.platforms WHERE id = '${platform}'`)
        expect(row).toEqual({ status: "deleted", gone: true })
        const listed = await (await h.fetch("/api/v1/platforms?slug=doomed", { token: "static" })).json()
        expect(listed.pagination.total).toBe(0)
        const asked = await (await h.fetch("/api/v1/platforms?slug=doomed&status=deleted", { token: "static" })).json()
        expect(asked.pagination.total).toBe(1)
        const twice = await h.fetch(`/${platform}`, { method: "DELETE", token: "usr_operator" })
        expect(twice.status).toBe(409)
      })
    })

    describe("ETag and If-Match", () => {
      it("answers every platform record with its ETag; a stale If-Match on PATCH and lifecycle actions is 412 and changes nothing", async () => {
        const created = await h.fetch("/api/v1/platforms", { method: "POST", token: "static", json: { name: "Tagged", slug: "tagged" } })
        expect(created.status).toBe(201)
        expect(created.headers.get("etag")).toBe('"1"')
        const { id } = await created.json()
        expect((await h.fetch(`/${id}`, { token: "static" })).headers.get("etag")).toBe('"1"')
        const renamed = await h.fetch(`/${id}`, { method: "PATCH", token: "static", headers: { "if-match": '"1"' }, json: { name: "Tagged 2" } })
        expect(renamed.status).toBe(200)
        expect(renamed.headers.get("etag")).toBe('"2"')
        const before = await query(`SELECT name, status, version FROM registry.platforms WHERE id = '${id}'`)
        const stalePatch = await h.fetch(`/${id}`, { method: "PATCH", token: "static", headers: { "if-match": '"1"' }, json: { name: "Lost update" } })
        expect(stalePatch.status).toBe(412)
        expect((await stalePatch.json()).error).toMatchObject({ code: "PRECONDITION_FAILED" })
        for (const action of ["suspend", "restore", "cancel", "delete"]) {
          const stale = await h.fetch(`/${id}/${action}`, { method: "POST", token: "static", headers: { "if-match": '"1"' }, json: {} })
          expect(stale.status, action).toBe(412)
        }
        expect((await h.fetch(`/${id}`, { method: "DELETE", token: "static", headers: { "if-match": '"1"' } })).status).toBe(412)
        expect(await query(`SELECT name, status, version FROM registry.platforms WHERE id = '${id}'`)).toEqual(before)
        expect(await query(`SELECT id FROM registry.lifecycle_events WHERE platform_id = '${id}'`)).toEqual([])
        const suspended = await h.fetch(`/${id}/suspend`, { method: "POST", token: "static", headers: { "if-match": 'W/"2", "9"' }, json: {} })
        expect(suspended.status).toBe(200)
        expect(suspended.headers.get("etag")).toBe('"3"')
        expect((await h.fetch(`/${id}/restore`, { method: "POST", token: "static", headers: { "if-match": "*" }, json: {} })).status).toBe(200)
      })

      it("answers another tenant 404 and a member 403 before looking at If-Match", async () => {
        expect((await h.fetch(`/${otherPlatform}`, { method: "PATCH", token: "usr_owner", headers: { "if-match": '"999"' }, json: { name: "x" } })).status).toBe(404)
        expect((await h.fetch(`/${tenantPlatform}`, { method: "PATCH", token: "usr_member", headers: { "if-match": '"999"' }, json: { name: "x" } })).status).toBe(403)
      })
    })

    describe("another tenant's ids", () => {
      it("answer 404 on every route, to sessions and API keys, and change nothing", async () => {
        const before = await query(`SELECT name, tier, status, version FROM registry.platforms WHERE id = '${otherPlatform}'`)
        for (const init of [{ token: "usr_owner" }, { token: "usr_member" }, { apiKey: "core_a_manage" }]) {
          const calls: Array<[string, string, unknown?]> = [
            ["GET", ""],
            ["PATCH", "", { name: "Mine now" }],
            ["PATCH", "", { tier: "scale" }],
            ["DELETE", ""],
            ["POST", "/suspend", {}],
            ["POST", "/restore", {}],
            ["POST", "/cancel", { reason: "x" }],
            ["POST", "/delete", {}],
            ["GET", "/lifecycle"]
          ]
          for (const [method, suffix, json] of calls) {
            const response = await h.fetch(`/api/v1/platforms/${otherPlatform}${suffix}`, { method, ...init, ...(json === undefined ? {} : { json }) })
            expect(response.status, `${method} ${suffix} ${JSON.stringify(init)}`).toBe(404)
            expect((await response.json()).error).toMatchObject({ code: "NOT_FOUND", message: "Platform not found" })
          }
        }
        expect(await query(`SELECT name, tier, status, version FROM registry.platforms WHERE id = '${otherPlatform}'`)).toEqual(before)
        expect(await query(`SELECT id FROM registry.lifecycle_events WHERE platform_id = '${otherPlatform}'`)).toEqual([])
      })
    })
  })
}
