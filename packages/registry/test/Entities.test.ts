import { Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Entities, Platforms, RegistryMigrations, RegistryRouter } from "../src/index.js"
import { TestCallers } from "./Callers.js"

const makeLayer = (driver: "pglite" | "pg") =>
  Entities.DefaultWithoutDependencies.pipe(
    Layer.provideMerge(Platforms.Default),
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations], { driver }))
  )

/** The entity routes (`Registry.EntityRoutes`): a platform's tenant tree, on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`entity routes on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    let platform: string
    let otherPlatform: string
    let root: string
    const base = () => `/api/v1/platforms/${platform}/entities`
    const query = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text)))
    const post = (json: unknown, token = "usr_admin", path = base()) => h.fetch(path, { method: "POST", token, json })
    const make = async (slug: string, parentId?: string) => {
      const response = await post({ name: slug, slug, type: parentId === undefined ? "tenant" : "subtenant", parentId })
      expect(response.status, slug).toBe(201)
      return (await response.json()).id as string
    }

    beforeAll(async () => {
      h = await makeHttpHarness(RegistryRouter, makeLayer(driver))
      platform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "ent-a", organizationId: "org_a" }))).then((p) => p.id)
      otherPlatform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "ent-b", organizationId: "org_b" }))).then((p) => p.id)
      root = await make("root")
    })
    afterAll(() => h.dispose())

    it("gives every new platform its default tenant, in the creation's transaction", async () => {
      const rows = await query(`SELECT platform_id, type, slug, parent_id, status FROM registry.entities WHERE slug = 'default' ORDER BY platform_id`)
      expect(rows.map((r) => r.platform_id).sort()).toEqual([platform, otherPlatform].sort())
      expect(rows.every((r) => r.type === "tenant" && r.parent_id === null && r.status === "active")).toBe(true)
      const page = await (await h.fetch(`${base()}?type=tenant`, { token: "usr_member" })).json()
      expect(page.data.map((e: { slug: string }) => e.slug)).toEqual(["default", "root"])
      // A slug conflict rolls the platform back without a stray tenant.
      await expect(h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "ent-a" })))).rejects.toThrow()
      expect((await query(`SELECT count(*)::int AS n FROM registry.entities WHERE slug = 'default'`))[0]!.n).toBe(2)
    })

    it("creates tenants and subtenants: 201, every EntityRecord field; owner, admin, manage key, operator, service key", async () => {
      const response = await post({ name: "Child", slug: "child", type: "subtenant", parentId: root })
      expect(response.status).toBe(201)
      const record = await response.json()
      expect(Object.keys(record).sort()).toEqual(["createdAt", "deletedAt", "id", "name", "parentId", "platformId", "slug", "status", "type", "updatedAt"])
      expect(record).toMatchObject({ platformId: platform, parentId: root, type: "subtenant", status: "active", deletedAt: null })
      for (const [i, init] of [{ token: "usr_owner" }, { token: "usr_operator" }, { token: "static" }, { apiKey: "core_a_manage" }].entries()) {
        const created = await h.fetch(base(), { method: "POST", ...init, json: { name: "t", slug: `by-${i}`, type: "tenant" } })
        expect(created.status, JSON.stringify(init)).toBe(201)
      }
      // The forwarded path (prefix stripped) too.
      expect((await post({ name: "f", slug: "fwd", type: "tenant" }, "usr_admin", `/${platform}/entities`)).status).toBe(201)
    })

    it("refuses members and read keys (403), anonymous callers (401), another tenant (404)", async () => {
      expect((await post({ name: "x", slug: "x", type: "tenant" }, "usr_member")).status).toBe(403)
      expect((await h.fetch(base(), { method: "POST", apiKey: "core_a", json: { name: "x", slug: "x", type: "tenant" } })).status).toBe(403)
      expect((await h.fetch(base(), { method: "POST", json: { name: "x", slug: "x", type: "tenant" } })).status).toBe(401)
      const foreign = await post({ name: "x", slug: "x", type: "tenant" }, "usr_b_owner")
      expect(foreign.status).toBe(404)
      expect((await foreign.json()).error.code).toBe("NOT_FOUND")
      expect((await h.fetch(base(), { method: "POST", apiKey: "core_b", json: { name: "x", slug: "x", type: "tenant" } })).status).toBe(404)
      expect((await query(`SELECT count(*)::int AS n FROM registry.entities WHERE slug = 'x'`))[0]!.n).toBe(0)
    })

    it("answers 400 for bad input, a tenant with a parent, a subtenant without one; 404 for a parent of another platform", async () => {
      for (const json of [{}, { name: "", slug: "a", type: "tenant" }, { name: "a", slug: "A B", type: "tenant" }, { name: "a", slug: "a", type: "group" }, { name: "a", slug: "a", type: "subtenant", parentId: "" }, { name: "a", slug: "a", type: "tenant", parentId: root }, { name: "a", slug: "a", type: "subtenant" }, null]) {
        const response = await post(json)
        expect(response.status, JSON.stringify(json)).toBe(400)
        expect((await response.json()).error.code).toBe("VALIDATION_ERROR")
      }
      const otherRoot = (await query(`SELECT id FROM registry.entities WHERE platform_id = '${otherPlatform}'`))[0]!.id as string
      const crossed = await post({ name: "a", slug: "a", type: "subtenant", parentId: otherRoot })
      expect(crossed.status).toBe(404)
      expect((await crossed.json()).error.message).toBe("Parent entity not found")
    })

    it("keeps slugs unique among live siblings (409), not across parents", async () => {
      const a = await make("sib-a")
      const b = await make("sib-b")
      await make("same", a)
      await make("same", b)
      const again = await post({ name: "s", slug: "same", type: "subtenant", parentId: a })
      expect(again.status).toBe(409)
      expect((await again.json()).error).toMatchObject({ code: "CONFLICT", details: { field: "slug" } })
      expect((await post({ name: "r", slug: "root", type: "tenant" })).status).toBe(409)
    })

    it("a race for one slug among siblings: one 201, one 409 (the database's unique index)", async () => {
      const parent = await make("race-parent")
      for (const parentId of [undefined, parent]) {
        const json = { name: "r", slug: "racer", type: parentId === undefined ? "tenant" : "subtenant", parentId }
        const statuses = (await Promise.all([post(json), post(json)])).map((r) => r.status).sort()
        expect(statuses).toEqual([201, 409])
      }
    })

    it("limits the tree to 16 levels; ancestors and descendants come from the root, by one recursive query each", async () => {
      const chain = [await make("lvl-0")]
      for (let i = 1; i < 16; i++) chain.push(await make(`lvl-${i}`, chain[i - 1]))
      const deep = await post({ name: "x", slug: "lvl-16", type: "subtenant", parentId: chain[15] })
      expect(deep.status).toBe(400)
      expect((await deep.json()).error.code).toBe("VALIDATION_ERROR")
      const ancestors = await (await h.fetch(`${base()}/${chain[15]}/ancestors`, { token: "usr_member" })).json()
      expect(ancestors.data.map((e: { id: string }) => e.id)).toEqual(chain.slice(0, 15))
      const descendants = await (await h.fetch(`${base()}/${chain[0]}/descendants`, { apiKey: "core_a" })).json()
      expect(descendants.data.map((e: { id: string }) => e.id)).toEqual(chain.slice(1))
      expect((await (await h.fetch(`${base()}/${chain[0]}/ancestors`, { token: "usr_member" })).json()).data).toEqual([])
    })

    it("reads one entity; another tenant's platform or entity ids answer 404; 400 for malformed ids", async () => {
      const got = await h.fetch(`${base()}/${root}`, { token: "usr_member" })
      expect(got.status).toBe(200)
      expect(await got.json()).toMatchObject({ id: root, slug: "root", parentId: null, type: "tenant" })
      const otherRoot = (await query(`SELECT id FROM registry.entities WHERE platform_id = '${otherPlatform}'`))[0]!.id as string
      for (const path of [`${base()}/${root}`, `${base()}/${root}/ancestors`, `${base()}/${root}/descendants`, base()]) {
        expect((await h.fetch(path, { token: "usr_b_owner" })).status, path).toBe(404)
      }
      // Another platform's entity under this platform's path: 404, even to an operator.
      expect((await h.fetch(`${base()}/${otherRoot}`, { token: "usr_operator" })).status).toBe(404)
      expect((await h.fetch(`/api/v1/platforms/${otherPlatform}/entities/${otherRoot}`, { token: "static" })).status).toBe(200)
      // An id of any shape that names nothing: 404 (decision 0567).
      expect((await h.fetch(`${base()}/nope`, { token: "usr_member" })).status).toBe(404)
      expect((await h.fetch(`${base()}/${root}`)).status).toBe(401)
    })

    it("lists with paging and the type, status and parentId filters", async () => {
      const parent = await make("list-parent")
      const kids = [await make("k1", parent), await make("k2", parent), await make("k3", parent)]
      const first = await (await h.fetch(`${base()}?parentId=${parent}&limit=2`, { token: "usr_member" })).json()
      expect(first.data.map((e: { id: string }) => e.id)).toEqual(kids.slice(0, 2))
      expect(first.pagination).toMatchObject({ hasMore: true, total: 3 })
      const second = await (await h.fetch(`${base()}?parentId=${parent}&limit=2&cursor=${first.pagination.nextCursor}`, { token: "usr_member" })).json()
      expect(second.data.map((e: { id: string }) => e.id)).toEqual(kids.slice(2))
      expect(second.pagination).toMatchObject({ hasMore: false, nextCursor: null, total: 3 })
      const subtenants = await (await h.fetch(`${base()}?type=subtenant&limit=100`, { token: "usr_member" })).json()
      expect(subtenants.data.every((e: { type: string }) => e.type === "subtenant")).toBe(true)
      for (const bad of ["type=group", "status=gone", "parentId=x", "limit=0", "cursor=%%%"]) {
        expect((await h.fetch(`${base()}?${bad}`, { token: "usr_member" })).status, bad).toBe(400)
      }
    })

    it("PATCH renames and sets the status (owner, admins); members 403; a deleted entity is final (409)", async () => {
      const id = await make("patchme")
      const renamed = await h.fetch(`${base()}/${id}`, { method: "PATCH", token: "usr_owner", json: { name: "New", status: "suspended" } })
      expect(renamed.status).toBe(200)
      expect(await renamed.json()).toMatchObject({ name: "New", status: "suspended" })
      expect((await h.fetch(`${base()}/${id}`, { method: "PATCH", token: "usr_member", json: { name: "M" } })).status).toBe(403)
      expect((await h.fetch(`${base()}/${id}`, { method: "PATCH", token: "usr_b_owner", json: { name: "M" } })).status).toBe(404)
      expect((await h.fetch(`${base()}/${id}`, { method: "PATCH", token: "usr_admin", json: { status: "gone" } })).status).toBe(400)
      const deleted = await h.fetch(`${base()}/${id}`, { method: "PATCH", token: "usr_admin", json: { status: "deleted" } })
      expect(await deleted.json()).toMatchObject({ status: "deleted" })
      const final = await h.fetch(`${base()}/${id}`, { method: "PATCH", token: "usr_admin", json: { status: "active" } })
      expect(final.status).toBe(409)
      expect((await final.json()).error.code).toBe("INVALID_STATE")
    })

    it("DELETE refuses an entity with live children (409) unless cascade=true, which soft-deletes the subtree", async () => {
      const top = await make("del-top")
      const mid = await make("del-mid", top)
      const leaf = await make("del-leaf", mid)
      const refused = await h.fetch(`${base()}/${top}`, { method: "DELETE", token: "usr_admin" })
      expect(refused.status).toBe(409)
      expect((await refused.json()).error.code).toBe("CONFLICT")
      expect((await h.fetch(`${base()}/${top}`, { method: "DELETE", token: "usr_member" })).status).toBe(403)
      expect((await h.fetch(`${base()}/${top}`, { method: "DELETE", token: "usr_b_owner" })).status).toBe(404)
      const cascaded = await h.fetch(`${base()}/${top}?cascade=true`, { method: "DELETE", token: "usr_admin" })
      expect(cascaded.status).toBe(200)
      expect(await cascaded.json()).toEqual({ success: true })
      const rows = await query(`SELECT id, status, deleted_at FROM registry.entities WHERE id IN ('${top}', '${mid}', '${leaf}')`)
      expect(rows.every((r) => r.status === "deleted" && r.deleted_at !== null)).toBe(true)
      const listed = await (await h.fetch(`${base()}?status=deleted&limit=100`, { token: "usr_member" })).json()
      expect(listed.data.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining([top, mid, leaf]))
      // The slug is free again among the live siblings.
      expect((await post({ name: "again", slug: "del-top", type: "tenant" })).status).toBe(201)
      const lone = await make("del-lone")
      expect((await h.fetch(`${base()}/${lone}`, { method: "DELETE", token: "usr_owner" })).status).toBe(200)
    })
  })
}
