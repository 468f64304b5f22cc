import { Registry, toOpenApi } from "@core/contracts"
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

describe("the entity routes' catalogue", () => {
  it("documents the ETag of one entity and the 412 of its PATCH and DELETE", () => {
    const document = toOpenApi({ title: "registry", version: "0", routes: Registry.EntityRoutes })
    const responses = (path: string, method: string) => document.paths[path][method].responses as Record<string, { headers?: Record<string, unknown> }>
    const one = "/api/v1/platforms/{platformId}/entities/{entityId}"
    expect(Object.keys(responses("/api/v1/platforms/{platformId}/entities", "post")["201"].headers ?? {})).toEqual(["etag"])
    for (const method of ["get", "patch"]) expect(Object.keys(responses(one, method)["200"].headers ?? {}), method).toEqual(["etag"])
    for (const method of ["patch", "delete"]) expect(responses(one, method), method).toHaveProperty("412")
    expect(responses(one, "get")).not.toHaveProperty("412")
  })
})

/** An entity's ETag (its version) and If-Match on its PATCH and DELETE (decision 0261), on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`entity ETags on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    let platform: string
    let otherPlatform: string
    const base = () => `/api/v1/platforms/${platform}/entities`
    const query = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text)))
    const state = (ids: ReadonlyArray<string>) =>
      query(`SELECT id, name, status, version, updated_at, deleted_at FROM registry.entities
        WHERE id IN (${ids.map((id) => `'${id}'`).join(", ")}) ORDER BY id`)
    const make = async (slug: string, parentId?: string) => {
      const response = await h.fetch(base(), {
        method: "POST",
        token: "usr_admin",
        json: { name: slug, slug, type: parentId === undefined ? "tenant" : "subtenant", parentId }
      })
      expect(response.status, slug).toBe(201)
      return (await response.json()).id as string
    }
    const patch = (id: string, json: unknown, ifMatch?: string, token = "usr_admin") =>
      h.fetch(`${base()}/${id}`, { method: "PATCH", token, json, ...(ifMatch === undefined ? {} : { headers: { "if-match": ifMatch } }) })
    const remove = (id: string, ifMatch?: string, suffix = "", token = "usr_admin") =>
      h.fetch(`${base()}/${id}${suffix}`, { method: "DELETE", token, ...(ifMatch === undefined ? {} : { headers: { "if-match": ifMatch } }) })

    beforeAll(async () => {
      h = await makeHttpHarness(RegistryRouter, makeLayer(driver))
      platform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "etag-a", organizationId: "org_a" }))).then((p) => p.id)
      otherPlatform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "etag-b", organizationId: "org_b" }))).then((p) => p.id)
    })
    afterAll(() => h.dispose())

    it("answers create (201), read and PATCH with the entity's ETag, its version bumped by every change", async () => {
      const created = await h.fetch(base(), { method: "POST", token: "usr_admin", json: { name: "Tagged", slug: "tagged", type: "tenant" } })
      expect(created.status).toBe(201)
      expect(created.headers.get("etag")).toBe('"1"')
      const { id } = await created.json()
      const read = await h.fetch(`${base()}/${id}`, { token: "usr_member" })
      expect(read.status).toBe(200)
      expect(read.headers.get("etag")).toBe('"1"')
      // The forwarded path (prefix stripped) and an API key read the same tag.
      expect((await h.fetch(`/${platform}/entities/${id}`, { apiKey: "core_a" })).headers.get("etag")).toBe('"1"')
      const renamed = await patch(id, { name: "Tagged 2" }, '"1"')
      expect(renamed.status).toBe(200)
      expect(renamed.headers.get("etag")).toBe('"2"')
      const record = await renamed.json()
      expect(record).toMatchObject({ id, name: "Tagged 2", status: "active" })
      // The tag is a header only: the seed's EntityRecord has no version field.
      expect(Object.keys(record).sort()).toEqual(["createdAt", "deletedAt", "id", "name", "parentId", "platformId", "slug", "status", "type", "updatedAt"])
      // Without If-Match a change still goes through (428 is not required), and bumps the version.
      const suspended = await patch(id, { status: "suspended" })
      expect(suspended.status).toBe(200)
      expect(suspended.headers.get("etag")).toBe('"3"')
      expect(await query(`SELECT version FROM registry.entities WHERE id = '${id}'`)).toEqual([{ version: 3 }])
      // A list carries no per-item tag.
      expect((await h.fetch(`${base()}?type=tenant`, { token: "usr_member" })).headers.get("etag")).toBeNull()
    })

    it("a stale If-Match on PATCH and DELETE is 412 PRECONDITION_FAILED and changes nothing; W/, lists of tags and * pass", async () => {
      const id = await make("stale")
      expect((await patch(id, { name: "Second" }, '"1"')).headers.get("etag")).toBe('"2"')
      const before = await state([id])
      const stalePatch = await patch(id, { name: "Lost update" }, '"1"')
      expect(stalePatch.status).toBe(412)
      expect((await stalePatch.json()).error).toMatchObject({
        code: "PRECONDITION_FAILED",
        message: "The entity has changed since it was read (If-Match does not match its ETag)"
      })
      for (const ifMatch of ['"1"', '"3"', "2", '"2"x', "", "W/"]) {
        expect((await patch(id, { status: "suspended" }, ifMatch)).status, ifMatch).toBe(412)
        const staleDelete = await remove(id, ifMatch)
        expect(staleDelete.status, ifMatch).toBe(412)
        expect((await staleDelete.json()).error.code).toBe("PRECONDITION_FAILED")
      }
      expect(await state([id])).toEqual(before)
      const weak = await patch(id, { name: "Third" }, 'W/"2"')
      expect(weak.status).toBe(200)
      expect(weak.headers.get("etag")).toBe('"3"')
      const listed = await patch(id, { name: "Fourth" }, '"9", "3"')
      expect(listed.status).toBe(200)
      expect(listed.headers.get("etag")).toBe('"4"')
      expect((await patch(id, { name: "Fifth" }, "*")).headers.get("etag")).toBe('"5"')
      expect(await remove(id, '"5"').then((r) => r.json())).toEqual({ success: true })
      expect(await query(`SELECT status, version FROM registry.entities WHERE id = '${id}'`)).toEqual([{ status: "deleted", version: 6 }])
    })

    it("a cascade bumps every deleted descendant's version, so a tag read before it is stale after it", async () => {
      const top = await make("cascade-top")
      const mid = await make("cascade-mid", top)
      const leaf = await make("cascade-leaf", mid)
      const leafTag = (await h.fetch(`${base()}/${leaf}`, { token: "usr_member" })).headers.get("etag")!
      expect(leafTag).toBe('"1"')
      // A stale tag on the top refuses the whole cascade: nothing below changes either.
      expect((await remove(top, '"7"', "?cascade=true")).status).toBe(412)
      expect((await state([top, mid, leaf])).map((row) => [row.status, row.version])).toEqual([["active", 1], ["active", 1], ["active", 1]])
      expect((await remove(top, '"1"', "?cascade=true")).status).toBe(200)
      expect((await state([top, mid, leaf])).map((row) => [row.status, row.version])).toEqual([["deleted", 2], ["deleted", 2], ["deleted", 2]])
      // The leaf's old tag is stale (412, checked before the deleted entity's 409), its new one reaches the 409.
      expect((await patch(leaf, { name: "x" }, leafTag)).status).toBe(412)
      const final = await patch(leaf, { name: "x" }, '"2"')
      expect(final.status).toBe(409)
      expect((await final.json()).error.code).toBe("INVALID_STATE")
      // Deleting a deleted entity again is a no-op, but still honours If-Match.
      expect((await remove(leaf, leafTag)).status).toBe(412)
      expect((await remove(leaf, '"2"')).status).toBe(200)
      expect((await state([leaf]))[0]!.version).toBe(2)
    })

    it("PATCH status deleted is one change: the version moves by one", async () => {
      const id = await make("patch-deleted")
      const deleted = await patch(id, { name: "Gone", status: "deleted" }, '"1"')
      expect(deleted.status).toBe(200)
      expect(deleted.headers.get("etag")).toBe('"2"')
      expect(await deleted.json()).toMatchObject({ id, name: "Gone", status: "deleted" })
      expect(await query(`SELECT name, status, version FROM registry.entities WHERE id = '${id}'`)).toEqual([{ name: "Gone", status: "deleted", version: 2 }])
      // A PATCH that keeps a live entity's fields is still a change: its tag moves.
      const kept = await make("patch-kept")
      expect((await patch(kept, { name: "patch-kept" }, '"1"')).headers.get("etag")).toBe('"2"')
    })

    it("answers another tenant 404 and a member 403 before looking at If-Match, and changes nothing", async () => {
      const id = await make("guarded")
      const otherRoot = (await query(`SELECT id FROM registry.entities WHERE platform_id = '${otherPlatform}'`))[0]!.id as string
      const before = await state([id, otherRoot])
      const foreignPatch = await patch(id, { name: "x" }, '"999"', "usr_b_owner")
      expect(foreignPatch.status).toBe(404)
      expect((await foreignPatch.json()).error.code).toBe("NOT_FOUND")
      expect((await remove(id, '"999"', "", "usr_b_owner")).status).toBe(404)
      expect((await patch(id, { name: "x" }, '"999"', "usr_member")).status).toBe(403)
      expect((await remove(id, '"999"', "", "usr_member")).status).toBe(403)
      // Another platform's entity under this platform's path: 404 (not 412), even to an operator.
      expect((await patch(otherRoot, { name: "x" }, '"999"', "usr_operator")).status).toBe(404)
      expect((await remove(otherRoot, '"999"', "", "usr_operator")).status).toBe(404)
      expect((await patch(otherRoot, { name: "x" }, '"1"', "usr_operator")).status).toBe(404)
      expect((await h.fetch(`${base()}/${otherRoot}/descendants`, { token: "usr_operator" })).status).toBe(404)
      expect((await h.fetch(`${base()}/ent_01JDQ3V6X4TQ7K9ZC2M8N5P0RS/descendants`, { token: "usr_member" })).status).toBe(404)
      expect(await state([id, otherRoot])).toEqual(before)
    })

    it("descendants: the live subtree, nearest level first, without the entity itself; a deleted entity's is empty", async () => {
      const top = await make("tree-top")
      const a = await make("tree-a", top)
      const b = await make("tree-b", top)
      const a1 = await make("tree-a1", a)
      const b1 = await make("tree-b1", b)
      expect((await remove(b1)).status).toBe(200)
      const answer = await h.fetch(`${base()}/${top}/descendants`, { token: "usr_member" })
      expect(answer.status).toBe(200)
      expect((await answer.json()).data.map((e: { id: string }) => e.id)).toEqual([a, b, a1])
      expect((await (await h.fetch(`${base()}/${a1}/descendants`, { token: "usr_member" })).json())).toEqual({ data: [] })
      expect((await remove(top, undefined, "?cascade=true")).status).toBe(200)
      const gone = await h.fetch(`${base()}/${top}/descendants`, { token: "usr_member" })
      expect(gone.status).toBe(200)
      expect(await gone.json()).toEqual({ data: [] })
    })
  })
}
