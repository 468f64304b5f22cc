import { Registry } from "@core/contracts"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Platforms, RegistryRouter } from "../src/index.js"
import { makeResourcesLayer, resourceBody } from "./ResourcesSupport.js"

/** The two path families of seed 002 before `/platforms/{platformId}`, and their lookups. */
const FAMILIES = [
  { name: "/api/v1/platforms", base: (p: string) => `/api/v1/platforms/${p}`, lookup: "/api/v1/lookup" },
  { name: "/api/v1/resources/platforms", base: (p: string) => `/api/v1/resources/platforms/${p}`, lookup: "/api/v1/resources/lookup" }
] as const
type Family = (typeof FAMILIES)[number]

/** The resource routes (`Registry.ResourceRoutes`, `ResourceFamilyRoutes`, `LookupRoutes`), on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`resource routes on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeResourcesLayer>>>
    let platform: string
    let other: string
    let tenant: string
    let otherTenant: string
    const query = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text)))
    const defaultTenant = async (platformId: string) =>
      (await query(`SELECT id FROM registry.entities WHERE platform_id = '${platformId}' AND slug = 'default'`))[0]!.id as string
    const create = (edgeName: string, init: { token?: string; apiKey?: string } = { token: "usr_admin" }, family: Family = FAMILIES[0], entity?: string, extra = {}) =>
      h.fetch(`${family.base(platform)}/entities/${entity ?? tenant}/resources`, { method: "POST", ...init, json: resourceBody(edgeName, extra) })
    const make = async (edgeName: string, extra: Record<string, unknown> = {}, entity?: string) => {
      const response = await create(edgeName, { token: "usr_admin" }, FAMILIES[0], entity, extra)
      expect(response.status, edgeName).toBe(201)
      return Registry.ResourceRecord.parse(await response.json())
    }
    const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code

    beforeAll(async () => {
      h = await makeHttpHarness(RegistryRouter, makeResourcesLayer(driver))
      platform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "res-a", organizationId: "org_a" }))).then((p) => p.id)
      other = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "res-b", organizationId: "org_b" }))).then((p) => p.id)
      tenant = await defaultTenant(platform)
      otherTenant = await defaultTenant(other)
    })
    afterAll(() => h.dispose())

    it("creates a pending resource under either family: 201, every ResourceRecord field, stackId as given, an ETag", async () => {
      for (const family of FAMILIES) {
        const edgeName = `create-${family.name.length}`
        const response = await create(edgeName, { token: "usr_admin" }, family, undefined, { edgeUrl: "https://api.example.com/x" })
        expect(response.status, family.name).toBe(201)
        const record = await response.json()
        expect(Object.keys(record).sort()).toEqual([
          "config", "createdAt", "deletedAt", "edgeId", "edgeName", "edgeUrl", "entityId", "environment", "id", "platformId",
          "provisionJobId", "resourceType", "serviceName", "stackId", "status", "updatedAt"
        ])
        expect(record).toMatchObject({
          platformId: platform, entityId: tenant, stackId: "stk_any-stack-id", resourceType: "worker", serviceName: "api",
          environment: "prod", edgeName, edgeId: null, edgeUrl: "https://api.example.com/x", status: "pending",
          provisionJobId: null, config: {}, deletedAt: null
        })
        expect(record.id).toMatch(/^res_[0-9A-Z]{26}$/)
        expect(response.headers.get("etag")).toBe("\"1\"")
        const rows = await query(`SELECT stack_id, status, edge_name, deleted_at FROM registry.resources WHERE id = '${record.id}'`)
        expect(rows).toEqual([{ stack_id: "stk_any-stack-id", status: "pending", edge_name: edgeName, deleted_at: null }])
      }
    })

    it("accepts every resourceType and environment of the seed; the owner, a manage key, operators and the service key write", async () => {
      const writers = [{ token: "usr_owner" }, { apiKey: "core_a_manage" }, { token: "usr_operator" }, { token: "static" }]
      for (const [i, resourceType] of Registry.ResourceType.options.entries()) {
        const environment = Registry.ResourceEnvironment.options[i % 3]
        const response = await create(`type-${resourceType}`, writers[i % writers.length], FAMILIES[i % 2], undefined, { resourceType, environment })
        expect(response.status, resourceType).toBe(201)
        expect(await response.json()).toMatchObject({ resourceType, environment })
      }
    })

    it("answers 400 VALIDATION_ERROR naming the field for every bad input, never 500", async () => {
      const cases: Array<[unknown, string]> = [
        [resourceBody("v", { resourceType: "lambda" }), "resourceType"],
        [resourceBody("v", { environment: "qa" }), "environment"],
        [resourceBody("v", { status: undefined, edgeUrl: "not a url" }), "edgeUrl"],
        [resourceBody("v", { stackId: "" }), "stackId"],
        [resourceBody("v", { serviceName: "" }), "serviceName"],
        [resourceBody(""), "edgeName"],
        [resourceBody("x".repeat(201)), "edgeName"],
        [resourceBody("v", { serviceName: 7 }), "serviceName"],
        [{ ...resourceBody("v"), stackId: undefined }, "stackId"]
      ]
      for (const [json, field] of cases) {
        const response = await h.fetch(`/api/v1/platforms/${platform}/entities/${tenant}/resources`, { method: "POST", token: "usr_admin", json })
        expect(response.status, field).toBe(400)
        const body = await response.json()
        expect(body.error.code).toBe("VALIDATION_ERROR")
        expect(body.error.details.issues.map((issue: { path: string }) => issue.path), field).toContain(field)
      }
      for (const json of [null, [], "x"]) {
        expect((await h.fetch(`/api/v1/platforms/${platform}/entities/${tenant}/resources`, { method: "POST", token: "usr_admin", json })).status).toBe(400)
      }
      expect((await h.fetch(`/api/v1/platforms/${platform}/entities/nope/resources`, { method: "POST", token: "usr_admin", json: resourceBody("v") })).status).toBe(404)
      expect((await query(`SELECT count(*)::int AS n FROM registry.resources WHERE edge_name = 'v'`))[0]!.n).toBe(0)
    })

    it("refuses members and read keys (403), anonymous callers (401), another tenant (404) — in both families", async () => {
      for (const family of FAMILIES) {
        expect((await create("nope", { token: "usr_member" }, family)).status).toBe(403)
        expect((await create("nope", { apiKey: "core_a" }, family)).status).toBe(403)
        expect((await create("nope", {}, family)).status).toBe(401)
        const foreign = await create("nope", { token: "usr_b_owner" }, family)
        expect([foreign.status, await codeOf(foreign)]).toEqual([404, "NOT_FOUND"])
        expect((await create("nope", { apiKey: "core_b" }, family)).status).toBe(404)
      }
      expect((await query(`SELECT count(*)::int AS n FROM registry.resources WHERE edge_name = 'nope'`))[0]!.n).toBe(0)
    })

    it("wants a live entity of the platform: another platform's, an unknown or a deleted one is 404", async () => {
      const crossed = await create("cross", { token: "static" }, FAMILIES[0], otherTenant)
      expect(crossed.status).toBe(404)
      expect((await crossed.json()).error.message).toBe("Entity not found")
      expect((await create("cross", { token: "static" }, FAMILIES[1], "ent_01JDQ3V6X4TQ7K9ZC2M8N5P0RS")).status).toBe(404)
      const gone = await h.fetch(`/api/v1/platforms/${platform}/entities`, { method: "POST", token: "usr_admin", json: { name: "Gone", slug: "gone", type: "tenant" } })
      const goneId = (await gone.json()).id as string
      expect((await h.fetch(`/api/v1/platforms/${platform}/entities/${goneId}`, { method: "DELETE", token: "usr_admin" })).status).toBe(200)
      expect((await create("cross", { token: "usr_admin" }, FAMILIES[0], goneId)).status).toBe(404)
      // A live subtenant is fine.
      const sub = await h.fetch(`/api/v1/platforms/${platform}/entities`, { method: "POST", token: "usr_admin", json: { name: "Sub", slug: "sub", type: "subtenant", parentId: tenant } })
      expect((await create("on-sub", { token: "usr_admin" }, FAMILIES[1], (await sub.json()).id)).status).toBe(201)
    })

    it("keeps an edgeName unique among live resources (409 CONFLICT naming edgeName), free again once deleted", async () => {
      const first = await make("unique-edge")
      const again = await create("unique-edge", { token: "usr_admin" }, FAMILIES[1])
      expect(again.status).toBe(409)
      expect((await again.json()).error).toMatchObject({ code: "CONFLICT", details: { field: "edgeName" } })
      // Across platforms too: the edge name is global.
      expect((await h.fetch(`/api/v1/platforms/${other}/entities/${otherTenant}/resources`, { method: "POST", token: "usr_b_owner", json: resourceBody("unique-edge") })).status).toBe(409)
      expect((await h.fetch(`/api/v1/platforms/${platform}/resources/${first.id}`, { method: "DELETE", token: "usr_admin" })).status).toBe(200)
      expect((await create("unique-edge")).status).toBe(201)
    })

    it("a race for one edgeName: one 201, one 409 (the partial unique index), never a 500", async () => {
      const statuses = (await Promise.all([create("racer"), create("racer", { token: "usr_owner" }, FAMILIES[1]), create("racer", { token: "static" })]))
        .map((r) => r.status).sort()
      expect(statuses).toEqual([201, 409, 409])
      expect((await query(`SELECT count(*)::int AS n FROM registry.resources WHERE edge_name = 'racer'`))[0]!.n).toBe(1)
    })

    it("reads one resource: the same answer and ETag in both families; another tenant's ids 404, even to an operator under the wrong platform", async () => {
      const record = await make("read-me")
      const answers = await Promise.all(FAMILIES.map((family) => h.fetch(`${family.base(platform)}/resources/${record.id}`, { token: "usr_member" })))
      expect(answers.map((r) => r.status)).toEqual([200, 200])
      const [a, b] = await Promise.all(answers.map((r) => r.json()))
      expect(a).toEqual(record)
      expect(b).toEqual(a)
      expect(answers[0]!.headers.get("etag")).toBe(answers[1]!.headers.get("etag"))
      const foreign = await h.fetch(`/api/v1/platforms/${other}/entities/${otherTenant}/resources`, { method: "POST", token: "usr_b_owner", json: resourceBody("b-thing") })
      const foreignId = (await foreign.json()).id as string
      for (const family of FAMILIES) {
        expect((await h.fetch(`${family.base(platform)}/resources/${record.id}`, { token: "usr_b_owner" })).status).toBe(404)
        expect((await h.fetch(`${family.base(other)}/resources/${foreignId}`, { token: "usr_owner" })).status).toBe(404)
        expect((await h.fetch(`${family.base(platform)}/resources/${foreignId}`, { token: "usr_operator" })).status).toBe(404)
        expect((await h.fetch(`${family.base(other)}/resources/${foreignId}`, { token: "static" })).status).toBe(200)
        expect((await h.fetch(`${family.base(platform)}/resources/res_01JDQ3V6X4TQ7K9ZC2M8N5P0RS`, { token: "static" })).status).toBe(404)
        expect((await h.fetch(`${family.base(platform)}/resources/nope`, { token: "usr_member" })).status).toBe(404)
        expect((await h.fetch(`${family.base(platform)}/resources/${record.id}`)).status).toBe(401)
        expect((await h.fetch(`${family.base(platform)}/resources/${record.id}`, { apiKey: "core_none" })).status).toBe(403)
      }
    })

    it("PATCH sets any seed status and edgeUrl on a live resource (both families); If-Match: 412 when stale; members 403; other tenant 404", async () => {
      const record = await make("patch-me")
      const path = (family: Family) => `${family.base(platform)}/resources/${record.id}`
      let etag = "\"1\""
      for (const [i, status] of Registry.ResourceStatus.options.filter((s) => s !== "deleted").entries()) {
        const response = await h.fetch(path(FAMILIES[i % 2]), { method: "PATCH", token: "usr_admin", headers: { "if-match": etag }, json: { status } })
        expect(response.status, status).toBe(200)
        expect((await response.json()).status).toBe(status)
        etag = response.headers.get("etag")!
      }
      // Setting the status it has (pending) changes nothing, so no new version.
      expect(etag).toBe("\"4\"")
      const stale = await h.fetch(path(FAMILIES[1]), { method: "PATCH", token: "usr_admin", headers: { "if-match": "\"2\"" }, json: { status: "active" } })
      expect([stale.status, await codeOf(stale)]).toEqual([412, "PRECONDITION_FAILED"])
      const url = await h.fetch(path(FAMILIES[0]), { method: "PATCH", token: "usr_owner", json: { edgeUrl: "https://patched.example.com" } })
      expect(await url.json()).toMatchObject({ edgeUrl: "https://patched.example.com", status: "failed" })
      expect((await h.fetch(path(FAMILIES[0]), { method: "PATCH", token: "usr_member", json: { status: "active" } })).status).toBe(403)
      expect((await h.fetch(path(FAMILIES[1]), { method: "PATCH", token: "usr_b_owner", json: { status: "active" } })).status).toBe(404)
      for (const json of [{ status: "gone" }, { edgeUrl: "nope" }, { edgeUrl: 5 }]) {
        const bad = await h.fetch(path(FAMILIES[0]), { method: "PATCH", token: "usr_admin", json })
        expect([bad.status, await codeOf(bad)], JSON.stringify(json)).toEqual([400, "VALIDATION_ERROR"])
      }
      // status deleted soft-deletes; a deleted resource is final (409 INVALID_STATE).
      const deleted = await h.fetch(path(FAMILIES[1]), { method: "PATCH", token: "usr_admin", json: { status: "deleted" } })
      expect(await deleted.json()).toMatchObject({ status: "deleted", deletedAt: expect.any(String) })
      const final = await h.fetch(path(FAMILIES[0]), { method: "PATCH", token: "usr_operator", json: { status: "active" } })
      expect([final.status, await codeOf(final)]).toEqual([409, "INVALID_STATE"])
    })

    it("DELETE soft-deletes ({ success: true }) in both families; the row stays with deletedAt; members 403, other tenant 404", async () => {
      for (const family of FAMILIES) {
        const record = await make(`delete-${family.name.length}`)
        const path = `${family.base(platform)}/resources/${record.id}`
        expect((await h.fetch(path, { method: "DELETE", token: "usr_member" })).status).toBe(403)
        expect((await h.fetch(path, { method: "DELETE", token: "usr_b_owner" })).status).toBe(404)
        const response = await h.fetch(path, { method: "DELETE", token: "usr_admin" })
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ success: true })
        const rows = await query(`SELECT status, deleted_at FROM registry.resources WHERE id = '${record.id}'`)
        expect(rows[0]!.status).toBe("deleted")
        expect(rows[0]!.deleted_at).not.toBeNull()
        expect((await h.fetch(path, { method: "DELETE", token: "usr_admin" })).status).toBe(200)
        expect((await (await h.fetch(path, { token: "usr_member" })).json()).status).toBe("deleted")
      }
    })

    it("lists by keyset with the filters resourceType, environment, status, entityId; the same pages in both families", async () => {
      const lister = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "L", slug: "res-list", organizationId: null })))
      const root = await defaultTenant(lister.id)
      const made: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const response = await h.fetch(`/api/v1/platforms/${lister.id}/entities/${root}/resources`, {
          method: "POST",
          token: "static",
          json: resourceBody(`list-${i}`, { resourceType: i < 3 ? "kv" : "queue", environment: i % 2 === 0 ? "dev" : "prod" })
        })
        made.push((await response.json()).id)
      }
      for (const family of FAMILIES) {
        const seen: Array<string> = []
        let cursor = ""
        for (;;) {
          const page = await (await h.fetch(`${family.base(lister.id)}/resources?limit=2${cursor === "" ? "" : `&cursor=${cursor}`}`, { token: "usr_operator" })).json()
          expect(page.pagination.total).toBe(5)
          seen.push(...page.data.map((r: { id: string }) => r.id))
          if (!page.pagination.hasMore) {
            expect(page.pagination.nextCursor).toBeNull()
            break
          }
          cursor = page.pagination.nextCursor
        }
        expect(seen).toEqual(made)
        const filtered = await (await h.fetch(`${family.base(lister.id)}/resources?resourceType=kv&environment=dev`, { token: "static" })).json()
        expect(filtered.data.map((r: { id: string }) => r.id)).toEqual([made[0], made[2]])
        expect(filtered.pagination).toEqual({ hasMore: false, nextCursor: null, total: 2 })
        const byEntity = await (await h.fetch(`${family.base(lister.id)}/resources?entityId=${root}&status=pending`, { token: "static" })).json()
        expect(byEntity.pagination.total).toBe(5)
        const entityList = await (await h.fetch(`${family.base(lister.id)}/entities/${root}/resources?resourceType=queue`, { token: "static" })).json()
        expect(entityList.data.map((r: { id: string }) => r.id)).toEqual(made.slice(3))
        expect((await h.fetch(`${family.base(lister.id)}/entities/${tenant}/resources`, { token: "static" })).status).toBe(404)
        for (const bad of ["resourceType=lambda", "environment=qa", "status=gone", "entityId=x", "limit=0", "limit=101", "cursor=%%%", "cursor=abc"]) {
          const response = await h.fetch(`${family.base(lister.id)}/resources?${bad}`, { token: "static" })
          expect([response.status, await codeOf(response)], bad).toEqual([400, "VALIDATION_ERROR"])
        }
        expect((await h.fetch(`${family.base(lister.id)}/resources`, { token: "usr_owner" })).status).toBe(404)
      }
      // A deleted resource leaves the default list and shows under status=deleted.
      await h.fetch(`/api/v1/platforms/${lister.id}/resources/${made[4]}`, { method: "DELETE", token: "static" })
      expect((await (await h.fetch(`/api/v1/platforms/${lister.id}/resources`, { token: "static" })).json()).pagination.total).toBe(4)
      const deleted = await (await h.fetch(`/api/v1/resources/platforms/${lister.id}/resources?status=deleted`, { token: "static" })).json()
      expect(deleted.data.map((r: { id: string }) => r.id)).toEqual([made[4]])
      expect((await (await h.fetch(`/api/v1/platforms/${lister.id}/resources?limit=100`, { token: "static" })).json()).data).toHaveLength(4)
    })

    it("looks a live resource up by edgeName at both lookups: the caller's platform only, any for operators; else 404", async () => {
      const record = await make("look-me-up")
      for (const family of FAMILIES) {
        const own = await h.fetch(`${family.lookup}?edgeName=look-me-up`, { token: "usr_member" })
        expect(own.status).toBe(200)
        expect(await own.json()).toEqual(record)
        expect(own.headers.get("etag")).toBe("\"1\"")
        expect((await h.fetch(`${family.lookup}?edgeName=look-me-up`, { apiKey: "core_a" })).status).toBe(200)
        expect((await h.fetch(`${family.lookup}?edgeName=look-me-up`, { token: "usr_operator" })).status).toBe(200)
        expect((await h.fetch(`${family.lookup}?edgeName=look-me-up`, { token: "static" })).status).toBe(200)
        const foreign = await h.fetch(`${family.lookup}?edgeName=look-me-up`, { token: "usr_b_owner" })
        expect([foreign.status, await codeOf(foreign)]).toEqual([404, "NOT_FOUND"])
        expect((await h.fetch(`${family.lookup}?edgeName=look-me-up`, { token: "usr_lonely" })).status).toBe(404)
        expect((await h.fetch(`${family.lookup}?edgeName=nothing-here`, { token: "static" })).status).toBe(404)
        const missing = await h.fetch(family.lookup, { token: "static" })
        expect([missing.status, await codeOf(missing)]).toEqual([400, "VALIDATION_ERROR"])
        expect((await h.fetch(`${family.lookup}?edgeName=`, { token: "static" })).status).toBe(400)
        expect((await h.fetch(`${family.lookup}?edgeName=look-me-up`)).status).toBe(401)
      }
      await h.fetch(`/api/v1/platforms/${platform}/resources/${record.id}`, { method: "DELETE", token: "usr_admin" })
      expect((await h.fetch(`/api/v1/lookup?edgeName=look-me-up`, { token: "static" })).status).toBe(404)
    })
  })
}
