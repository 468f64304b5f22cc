import { afterEach, describe, expect, it } from "vitest"
import { ConflictError, NotFoundError, createClient } from "../src/index.js"
import { envelope, startScriptServer, type ScriptServer } from "./script-server.js"

/**
 * `client.registry.entities` against a scripted server: each method's method, path, query and body
 * as `Registry.EntityRoutes` declares them, `all()` over the registry's nested cursor, and the
 * service's errors as the SDK's classes.
 */
let server: ScriptServer | undefined
afterEach(async () => server?.close())

const PLATFORM = "plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
const base = `/api/v1/platforms/${PLATFORM}/entities`
const entity = (id: string, slug: string, parentId: string | null = null) => ({
  id, platformId: PLATFORM, parentId, type: parentId === null ? "tenant" : "subtenant", name: slug.toUpperCase(), slug,
  status: "active", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", deletedAt: null
})
const page = (data: Array<object>, nextCursor: string | null) => ({ data, pagination: { hasMore: nextCursor !== null, nextCursor, total: 2 } })

describe("client.registry.entities", () => {
  it("calls each route of Registry.EntityRoutes with its method, path, query and body", async () => {
    const a = entity("ent_a", "acme")
    const b = entity("ent_b", "acme-eu", "ent_a")
    server = await startScriptServer([
      { status: 201, body: a },
      { status: 200, body: page([a], null) },
      { status: 200, body: a },
      { status: 200, body: { ...a, name: "Acme Inc" } },
      { status: 200, body: { data: [a] } },
      { status: 200, body: { data: [b] } },
      { status: 200, body: { success: true } },
      { status: 200, body: { success: true } }
    ])
    const entities = createClient({ baseUrl: server.url, token: "t" }).registry.entities
    expect(await entities.create(PLATFORM, { name: "ACME", slug: "acme", type: "tenant" })).toEqual(a)
    expect((await entities.list(PLATFORM, { limit: 5, type: "subtenant", status: "active", parentId: "ent_a" })).data).toEqual([a])
    expect(await entities.get(PLATFORM, "ent_a")).toEqual(a)
    expect((await entities.update(PLATFORM, "ent_a", { name: "Acme Inc" })).name).toBe("Acme Inc")
    expect((await entities.ancestors(PLATFORM, "ent_b")).data).toEqual([a])
    expect((await entities.descendants(PLATFORM, "ent_a")).data).toEqual([b])
    expect(await entities.remove(PLATFORM, "ent_b")).toEqual({ success: true })
    expect(await entities.remove(PLATFORM, "ent_a", { cascade: true })).toEqual({ success: true })
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST ${base}`,
      `GET ${base}?limit=5&type=subtenant&status=active&parentId=ent_a`,
      `GET ${base}/ent_a`,
      `PATCH ${base}/ent_a`,
      `GET ${base}/ent_b/ancestors`,
      `GET ${base}/ent_a/descendants`,
      `DELETE ${base}/ent_b`,
      `DELETE ${base}/ent_a?cascade=true`
    ])
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ name: "ACME", slug: "acme", type: "tenant" })
    expect(JSON.parse(server.requests[3]!.body)).toEqual({ name: "Acme Inc" })
  })

  it("is also client.registry.tenants, the guide's and the CLI's word: the same methods on the same routes", async () => {
    const a = entity("ent_a", "acme")
    server = await startScriptServer([{ status: 201, body: a }, { status: 200, body: page([a], null) }])
    const registry = createClient({ baseUrl: server.url, token: "t" }).registry
    expect(registry.tenants).toBe(registry.entities)
    expect(await registry.tenants.create(PLATFORM, { name: "ACME", slug: "acme", type: "tenant" })).toEqual(a)
    const listed: Array<string> = []
    for await (const tenant of registry.tenants.all(PLATFORM)) listed.push(tenant.slug)
    expect(listed).toEqual(["acme"])
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${base}`, `GET ${base}`])
  })

  it("all() walks every page of the nested cursor, keeping the filters", async () => {
    server = await startScriptServer([
      { status: 200, body: page([entity("ent_a", "a")], "n2") },
      { status: 200, body: page([entity("ent_b", "b")], null) }
    ])
    const seen: Array<string> = []
    for await (const one of createClient({ baseUrl: server.url, token: "t" }).registry.entities.all(PLATFORM, { limit: 1, type: "tenant" })) seen.push(one.slug)
    expect(seen).toEqual(["a", "b"])
    expect(server.requests.map((r) => r.url)).toEqual([`${base}?limit=1&type=tenant`, `${base}?limit=1&type=tenant&cursor=n2`])
  })

  it("answers the service's 404 and 409 as NotFoundError and ConflictError", async () => {
    server = await startScriptServer([
      { status: 404, body: envelope("NOT_FOUND", "Entity not found", "req_1") },
      { status: 409, body: envelope("CONFLICT", "The entity has live children", "req_2") }
    ])
    const entities = createClient({ baseUrl: server.url, token: "t" }).registry.entities
    await expect(entities.get(PLATFORM, "ent_x")).rejects.toBeInstanceOf(NotFoundError)
    await expect(entities.remove(PLATFORM, "ent_a")).rejects.toBeInstanceOf(ConflictError)
  })
})
