import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, makeHarness, seedTenant } from "./AuthorizationSupport.js"

/**
 * Every identity route whose declaration accepts an API key works with one (issue: `core login
 * --token core_…`, then `core keys list`, `audit list` answered 401): a key holds exactly its own
 * permissions, in its own organization only.
 */
let h: Harness
let tenant: Effect.Effect.Success<typeof seedTenant>
let other: Effect.Effect.Success<typeof seedTenant>

const createKey = async (token: string, organizationId: string, permissions: ReadonlyArray<string>) => {
  const response = await h.fetch("/api/core/apikeys", { method: "POST", token, json: { name: "ci", organizationId, permissions } })
  expect(response.status).toBe(201)
  return (await response.json()) as { id: string; key: string }
}

const asKey = (key: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
  h.fetch(path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), "x-api-key": key } })

let reader: { id: string; key: string }
let manager: { id: string; key: string }
let bare: { id: string; key: string }

beforeAll(async () => {
  h = await makeHarness()
  tenant = await h.run(seedTenant)
  other = await h.run(seedTenant)
  reader = await createKey(tenant.owner.token, tenant.org.id, ["apikeys:read", "audit:read", "members:read"])
  manager = await createKey(tenant.owner.token, tenant.org.id, ["apikeys:*", "members:manage"])
  bare = await createKey(tenant.owner.token, tenant.org.id, [])
})
afterAll(() => h.dispose())

describe("API keys as callers of identity routes", () => {
  it("lists keys with apikeys:read; 403 without it; 404 for another organization", async () => {
    const listed = await asKey(reader.key, `/api/core/apikeys?organizationId=${tenant.org.id}`)
    expect(listed.status).toBe(200)
    const body = (await listed.json()) as { data: Array<{ id: string }> }
    expect(body.data.map((key) => key.id)).toEqual(expect.arrayContaining([reader.id, manager.id, bare.id]))
    const forbidden = await asKey(bare.key, `/api/core/apikeys?organizationId=${tenant.org.id}`)
    expect(forbidden.status).toBe(403)
    expect((await forbidden.json()).error).toMatchObject({ code: "FORBIDDEN", message: "Missing permission apikeys:read" })
    const foreign = await asKey(reader.key, `/api/core/apikeys?organizationId=${other.org.id}`)
    expect(foreign.status).toBe(404)
    expect((await foreign.json()).error.code).toBe("NOT_FOUND")
  })

  it("reads its own organization's audit log with audit:read, and never another's", async () => {
    const page = await asKey(reader.key, "/api/audit/events")
    expect(page.status).toBe(200)
    const entries = ((await page.json()) as { data: Array<{ organizationId: string | null; action: string }> }).data
    expect(entries.length).toBeGreaterThan(0)
    expect(entries.every((entry) => entry.organizationId === tenant.org.id)).toBe(true)
    expect((await asKey(reader.key, `/api/audit/events?organizationId=${other.org.id}`)).status).toBe(404)
    expect((await asKey(bare.key, "/api/audit/events")).status).toBe(403)
  })

  it("manages keys with apikeys:manage, and is recorded in the audit log as the key", async () => {
    const created = await h.fetch("/api/core/apikeys", {
      method: "POST",
      headers: { "x-api-key": manager.key, "content-type": "application/json" },
      body: JSON.stringify({ name: "child", organizationId: tenant.org.id, permissions: ["apikeys:read"] })
    })
    expect(created.status).toBe(201)
    const child = (await created.json()) as { id: string; createdBy: string }
    const revoked = await asKey(manager.key, `/api/core/apikeys/${child.id}`, { method: "DELETE" })
    expect(revoked.status).toBe(204)
    const log = await asKey(reader.key, "/api/audit/events?action=apikey.revoke")
    const entries = ((await log.json()) as { data: Array<{ actorId: string; actorType: string; targetId: string }> }).data
    expect(entries.find((entry) => entry.targetId === child.id)).toMatchObject({ actorId: manager.id, actorType: "apikey" })
  })

  it("cannot hand out permissions the key does not hold", async () => {
    const response = await h.fetch("/api/core/apikeys", {
      method: "POST",
      headers: { "x-api-key": manager.key, "content-type": "application/json" },
      body: JSON.stringify({ organizationId: tenant.org.id, permissions: ["org:delete"] })
    })
    expect(response.status).toBe(403)
  })

  it("reads role mappings and grants with members:manage", async () => {
    expect((await asKey(manager.key, `/api/core/roles?orgId=${tenant.org.id}`)).status).toBe(200)
    expect((await asKey(manager.key, `/api/core/grants?orgId=${tenant.org.id}`)).status).toBe(200)
    expect((await asKey(reader.key, `/api/core/roles?orgId=${tenant.org.id}`)).status).toBe(403)
  })

  it("answers 401 to a revoked or unknown key", async () => {
    expect((await asKey(`core_${"x".repeat(43)}`, `/api/core/apikeys?organizationId=${tenant.org.id}`)).status).toBe(401)
    await h.fetch(`/api/core/apikeys/${bare.id}`, { method: "DELETE", token: tenant.owner.token })
    expect((await asKey(bare.key, "/api/audit/events")).status).toBe(401)
  })

  it("cannot act as the operator or the service", async () => {
    const response = await asKey(manager.key, "/internal/platform-status", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ platformId: tenant.org.platformId, status: "suspended" })
    })
    expect(response.status).toBe(403)
  })
})
