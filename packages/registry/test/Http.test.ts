import { Callers, Ids, Unauthorized } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Platforms, RegistryMigrations, RegistryRouter } from "../src/index.js"

/**
 * The registry's routes served from their declarations (`Registry.PlatformRoutes`) on the shared
 * harness, with a small `Callers` of the same Tag standing in for identity: bearer `usr_*` tokens are
 * users whose active organization is `org_a`, `core_a` is an API key of `org_a`.
 */
const TestCallers = Layer.succeed(Callers, {
  resolve: (request) => {
    const key = request.headers["x-api-key"]
    if (key === "core_a") {
      return Effect.succeed({ kind: "apikey", keyId: "key_a", organizationId: "org_a", platformId: "plt_a", permissions: ["platforms:read"] })
    }
    if (key === "core_none") {
      return Effect.succeed({ kind: "apikey", keyId: "key_n", organizationId: "org_a", platformId: "plt_a", permissions: [] })
    }
    if (key !== undefined) return Effect.fail(new Unauthorized({ message: "Invalid API key" }))
    const bearer = request.headers.authorization?.slice(7)
    if (bearer === undefined) return Effect.succeed(undefined)
    if (bearer === "static") return Effect.succeed({ kind: "service" })
    return Effect.succeed({ kind: "user", userId: bearer, sessionId: "ses_1", email: `${bearer}@example.com`, organizationId: "org_a", via: "bearer" })
  },
  isOperator: (userId) => Effect.succeed(userId === "usr_operator"),
  permissionsOf: (userId, organizationId) =>
    Effect.succeed(organizationId === "org_a" && userId === "usr_member" ? ["platforms:read"] : undefined)
})

const TestLayer = Platforms.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
  Layer.provideMerge(TestDatabase.layer([RegistryMigrations]))
)

let h: HttpHarness<Layer.Layer.Success<typeof TestLayer>>
let tenantPlatform: string
let otherPlatform: string

beforeAll(async () => {
  h = await makeHttpHarness(RegistryRouter, TestLayer)
  tenantPlatform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "tenant-a", organizationId: "org_a" })))).id
  otherPlatform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "tenant-b", organizationId: "org_b" })))).id
})
afterAll(() => h.dispose())

describe("POST /api/v1/platforms", () => {
  it("creates a platform for the service key or an operator: 201, starter by default, a PlatformRecord", async () => {
    const response = await h.fetch("/api/v1/platforms", { method: "POST", token: "static", json: { name: "Acme", slug: "acme" } })
    expect(response.status).toBe(201)
    const record = await response.json()
    expect(record).toMatchObject({ name: "Acme", slug: "acme", tier: "starter", status: "active", edgeAccountId: null, deletedAt: null })
    const byOperator = await h.fetch("/", { method: "POST", token: "usr_operator", json: { name: "Ops", slug: "ops", tier: "growth" } })
    expect(byOperator.status).toBe(201)
    expect((await byOperator.json()).tier).toBe("growth")
  })

  it("refuses members and API keys (403: authenticated, not the operator), and anonymous callers (401)", async () => {
    expect((await h.fetch("/api/v1/platforms", { method: "POST", token: "usr_member", json: { name: "X", slug: "x" } })).status).toBe(403)
    expect((await h.fetch("/api/v1/platforms", { method: "POST", apiKey: "core_a", json: { name: "X", slug: "x" } })).status).toBe(403)
    expect((await h.fetch("/api/v1/platforms", { method: "POST", json: { name: "X", slug: "x" } })).status).toBe(401)
  })

  it("answers 409 for a slug taken and 400 for bad input, never 500", async () => {
    const taken = await h.fetch("/api/v1/platforms", { method: "POST", token: "static", json: { name: "Again", slug: "tenant-a" } })
    expect(taken.status).toBe(409)
    expect((await taken.json()).error).toMatchObject({ code: "CONFLICT", details: { field: "slug" } })
    for (const json of [{}, { name: "", slug: "a" }, { name: "a", slug: "Not A Slug" }, { name: "a".repeat(201), slug: "a" }, { name: "a", slug: "a", tier: "gold" }, [], "x", null]) {
      const response = await h.fetch("/api/v1/platforms", { method: "POST", token: "static", json })
      expect(response.status, JSON.stringify(json)).toBe(400)
    }
  })
})

describe("GET /api/v1/platforms/{platformId}", () => {
  it("answers the tenant's platform to a member and to its API key, at both the documented and the forwarded path", async () => {
    const byMember = await h.fetch(`/api/v1/platforms/${tenantPlatform}`, { token: "usr_member" })
    expect(byMember.status).toBe(200)
    expect(await byMember.json()).toMatchObject({ id: tenantPlatform, slug: "tenant-a", organizationId: "org_a" })
    const byKey = await h.fetch(`/${tenantPlatform}`, { apiKey: "core_a" })
    expect(byKey.status).toBe(200)
  })

  it("answers another tenant's platform as not found (404), to members and keys alike", async () => {
    for (const init of [{ token: "usr_member" }, { apiKey: "core_a" }]) {
      const response = await h.fetch(`/api/v1/platforms/${otherPlatform}`, init)
      expect(response.status).toBe(404)
      expect((await response.json()).error).toMatchObject({ code: "NOT_FOUND", message: "Platform not found" })
    }
  })

  it("answers 403 to a key of the tenant without platforms:read, 400 to a malformed id, 401 without credentials", async () => {
    expect((await h.fetch(`/api/v1/platforms/${tenantPlatform}`, { apiKey: "core_none" })).status).toBe(403)
    const malformed = await h.fetch("/api/v1/platforms/not-an-id", { token: "usr_member" })
    expect(malformed.status).toBe(400)
    expect((await malformed.json()).error).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "platformId" }] } })
    // Past the router's 100-character parameter limit the route does not match at all: 404, not 500.
    expect((await h.fetch(`/api/v1/platforms/plt_${"x".repeat(300)}`, { token: "usr_member" })).status).toBe(404)
    expect((await h.fetch(`/api/v1/platforms/${tenantPlatform}`)).status).toBe(401)
  })

  it("lets operators and the service key read any platform", async () => {
    expect((await h.fetch(`/api/v1/platforms/${otherPlatform}`, { token: "usr_operator" })).status).toBe(200)
    expect((await h.fetch(`/api/v1/platforms/${otherPlatform}`, { token: "static" })).status).toBe(200)
  })
})
