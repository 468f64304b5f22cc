import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { envelope, type Harness, makeHarness, seedTenant } from "./AuthorizationSupport.js"

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

const asKey = (key: string, path: string, init: RequestInit & { json?: unknown } = {}) => h.fetch(path, { ...init, apiKey: key })

let reader: { id: string; key: string }
let manager: { id: string; key: string }
let bare: { id: string; key: string }
/** A key holding members:read only. */
let membersReader: { id: string; key: string }
/** A key without members:read. */
let auditReader: { id: string; key: string }
/** Another organization's key holding everything there. */
let foreign: { id: string; key: string }

beforeAll(async () => {
  h = await makeHarness()
  tenant = await h.run(seedTenant)
  other = await h.run(seedTenant)
  reader = await createKey(tenant.owner.token, tenant.org.id, ["apikeys:read", "audit:read", "members:read"])
  manager = await createKey(tenant.owner.token, tenant.org.id, ["apikeys:*", "members:manage", "members:read"])
  bare = await createKey(tenant.owner.token, tenant.org.id, [])
  membersReader = await createKey(tenant.owner.token, tenant.org.id, ["members:read"])
  auditReader = await createKey(tenant.owner.token, tenant.org.id, ["audit:read"])
  foreign = await createKey(other.owner.token, other.org.id, ["*"])
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
    expect((await forbidden.json()).error).toMatchObject({ code: "FORBIDDEN", message: "Missing permission apikeys:read: create a key with --permission apikeys:read (core keys create), or ask an owner for one" })
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

  it("lists role mappings and grants with members:read, as the permission catalogue says; writes need members:manage", async () => {
    const roles = await asKey(membersReader.key, `/api/core/roles?orgId=${tenant.org.id}`)
    expect(roles.status).toBe(200)
    expect(((await roles.json()) as { data: Array<{ role: string }> }).data.map((m) => m.role)).toEqual(["admin", "member", "owner"])
    const grants = await asKey(membersReader.key, `/api/core/grants?orgId=${tenant.org.id}`)
    expect([grants.status, await grants.json()]).toEqual([200, { data: expect.any(Array) }])
    expect((await asKey(manager.key, `/api/core/roles?orgId=${tenant.org.id}`)).status).toBe(200)
    expect((await asKey(manager.key, `/api/core/grants?orgId=${tenant.org.id}`)).status).toBe(200)
    const manageOnly = await createKey(tenant.owner.token, tenant.org.id, ["members:manage"])
    for (const path of [`/api/core/roles?orgId=${tenant.org.id}`, `/api/core/grants?orgId=${tenant.org.id}`]) {
      for (const key of [auditReader.key, manageOnly.key]) {
        const refused = await asKey(key, path)
        expect([path, refused.status, await refused.json()]).toEqual([path, 403, envelope("FORBIDDEN", "Missing permission members:read: create a key with --permission members:read (core keys create), or ask an owner for one")])
      }
      expect((await asKey(foreign.key, path)).status).toBe(404)
    }
    const upsert = await asKey(membersReader.key, "/api/core/roles", { method: "POST", json: { orgId: tenant.org.id, role: "ci", permissions: [] } })
    expect([upsert.status, await upsert.json()]).toEqual([403, envelope("FORBIDDEN", "Missing permission members:manage: create a key with --permission members:manage (core keys create), or ask an owner for one")])
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

/** Each authorization route that takes an API key: its answer, 403 without the permission, 404 across tenants. */
describe("API keys on every authorization route", () => {
  const operatorOnly = envelope("FORBIDDEN", "This action needs the operator role or the service key")
  const orgNotFound = envelope("NOT_FOUND", "Organization not found")

  it("reads the audit log at its three paths: its organization's entries, 403 without audit:read, 404 elsewhere", async () => {
    for (const path of ["/api/audit", "/api/audit/events", "/api/audit/log"]) {
      const page = await asKey(reader.key, `${path}?organizationId=${tenant.org.id}&limit=2`)
      expect(page.status, path).toBe(200)
      const body = (await page.json()) as { data: Array<{ organizationId: string }>; hasMore: boolean; nextCursor: string | null }
      expect(body.data).toHaveLength(2)
      expect(body.data.every((entry) => entry.organizationId === tenant.org.id)).toBe(true)
      expect(body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) })
      const forbidden = await asKey(manager.key, path)
      expect([path, forbidden.status, await forbidden.json()]).toEqual([path, 403, envelope("FORBIDDEN", "Missing permission audit:read: create a key with --permission audit:read (core keys create), or ask an owner for one")])
      const elsewhere = await asKey(foreign.key, `${path}?organizationId=${tenant.org.id}`)
      expect([path, elsewhere.status, await elsewhere.json()]).toEqual([path, 404, orgNotFound])
    }
  })

  it("lists role mappings with members:read, upserts and deletes them with members:manage", async () => {
    const listed = await asKey(manager.key, `/api/core/roles?orgId=${tenant.org.id}`)
    expect(((await listed.json()) as { data: Array<{ role: string }> }).data.map((m) => m.role)).toEqual(["admin", "member", "owner"])
    const json = { orgId: tenant.org.id, role: "ci", permissions: ["apikeys:read"] }
    const upserted = await asKey(manager.key, "/api/core/roles", { method: "POST", json })
    expect(upserted.status).toBe(200)
    expect(await upserted.json()).toEqual({ ...json, updatedAt: expect.any(String) })
    for (const [key, status] of [[reader.key, 403], [foreign.key, 404]] as const) {
      expect((await asKey(key, "/api/core/roles", { method: "POST", json })).status).toBe(status)
      expect((await asKey(key, `/api/core/roles/${tenant.org.id}/ci`, { method: "DELETE" })).status).toBe(status)
    }
    expect(await (await asKey(foreign.key, `/api/core/roles?orgId=${tenant.org.id}`)).json()).toEqual(orgNotFound)
    const removed = await asKey(manager.key, `/api/core/roles/${tenant.org.id}/ci`, { method: "DELETE" })
    expect([removed.status, await removed.text()]).toEqual([204, ""])
  })

  it("creates and deletes grants with members:manage and lists them with members:read, audited as the key", async () => {
    const json = {
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "apikeys:read",
      granted: true,
      grantedBy: manager.id
    }
    for (const [key, status] of [[reader.key, 403], [foreign.key, 404]] as const) {
      expect((await asKey(key, "/api/core/grants", { method: "POST", json })).status).toBe(status)
    }
    const created = await asKey(manager.key, "/api/core/grants", { method: "POST", json })
    expect(created.status).toBe(201)
    const grant = (await created.json()) as { id: string }
    expect(grant).toEqual({ ...json, id: expect.stringMatching(/^grt_/), expiresAt: null, active: true, createdAt: expect.any(String) })
    const listed = await asKey(manager.key, `/api/core/grants?orgId=${tenant.org.id}`)
    expect(await listed.json()).toEqual({ data: [grant] })
    for (const [key, status] of [[reader.key, 403], [foreign.key, 404]] as const) {
      expect((await asKey(key, `/api/core/grants/${grant.id}`, { method: "DELETE" })).status).toBe(status)
    }
    expect((await asKey(manager.key, `/api/core/grants/${grant.id}`, { method: "DELETE" })).status).toBe(204)
    const log = await asKey(reader.key, "/api/audit/events?action=grant.*")
    const entries = ((await log.json()) as { data: Array<{ action: string; actorId: string; actorType: string }> }).data
    expect(entries.map((entry) => [entry.action, entry.actorId, entry.actorType])).toEqual([
      ["grant.delete", manager.id, "apikey"],
      ["grant.create", manager.id, "apikey"]
    ])
  })

  it("creates, lists and revokes keys only in its organization, with the permission", async () => {
    const json = { organizationId: tenant.org.id, permissions: ["apikeys:read"] }
    const denied = await asKey(reader.key, "/api/core/apikeys", { method: "POST", json })
    expect([denied.status, await denied.json()]).toEqual([403, envelope("FORBIDDEN", "Missing permission apikeys:manage: create a key with --permission apikeys:manage (core keys create), or ask an owner for one")])
    const elsewhere = await asKey(foreign.key, "/api/core/apikeys", { method: "POST", json })
    expect([elsewhere.status, await elsewhere.json()]).toEqual([404, orgNotFound])
    expect((await asKey(foreign.key, `/api/core/apikeys?organizationId=${tenant.org.id}`)).status).toBe(404)
    const created = await asKey(manager.key, "/api/core/apikeys", { method: "POST", json })
    expect([created.status, created.headers.get("cache-control")]).toEqual([201, "no-store"])
    const child = (await created.json()) as { id: string; createdBy: string; organizationId: string }
    expect(child).toMatchObject({ organizationId: tenant.org.id, permissions: ["apikeys:read"] })
    expect((await asKey(reader.key, `/api/core/apikeys/${child.id}`, { method: "DELETE" })).status).toBe(403)
    const hidden = await asKey(foreign.key, `/api/core/apikeys/${child.id}`, { method: "DELETE" })
    expect([hidden.status, await hidden.json()]).toEqual([404, envelope("NOT_FOUND", "API key not found")])
    const revoked = await asKey(manager.key, `/api/core/apikeys/${child.id}`, { method: "DELETE" })
    expect([revoked.status, revoked.headers.get("x-core-invalidate")]).toEqual([204, `key=${child.id}`])
  })

  it("is refused with 403 by the gateway's and the operator's routes, and reads the public JWKS", async () => {
    const validate = await asKey(manager.key, "/api/core/apikey/validate", { method: "POST", json: { key: reader.key } })
    expect([validate.status, await validate.json()]).toEqual([403, operatorOnly])
    const token = await asKey(manager.key, "/api/core/service-token", { method: "POST", json: { serviceId: "a", targetService: "b" } })
    expect([token.status, await token.json()]).toEqual([403, operatorOnly])
    const status = await asKey(foreign.key, "/internal/platform-status", {
      method: "POST",
      json: { platformId: other.org.platformId, status: "suspended" }
    })
    expect([status.status, await status.json()]).toEqual([403, operatorOnly])
    const jwks = await asKey(manager.key, "/.well-known/jwks.json")
    expect(jwks.status).toBe(200)
    expect(((await jwks.json()) as { keys: Array<unknown> }).keys).toHaveLength(1)
  })
})
