import { Crypto } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  auditRows,
  envelope,
  type Harness,
  makeHarness,
  seedOperator,
  seedOrg,
  seedTenant,
  STATIC_KEY
} from "./AuthorizationSupport.js"

let h: Harness
let tenant: Effect.Effect.Success<typeof seedTenant>
let other: Effect.Effect.Success<typeof seedTenant>
let operator: Effect.Effect.Success<typeof seedOperator>

beforeAll(async () => {
  h = await makeHarness()
  tenant = await h.run(seedTenant)
  other = await h.run(seedTenant)
  operator = await h.run(seedOperator)
})
afterAll(() => h.dispose())

const create = (token: string, json: Record<string, unknown>) =>
  h.fetch("/api/core/apikeys", { method: "POST", token, json })

const validate = (key: unknown, token: string | null = STATIC_KEY) =>
  h.fetch("/api/core/apikey/validate", { method: "POST", json: { key }, ...(token === null ? {} : { token }) })

const keyRow = (id: string) =>
  h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Record<string, unknown>>`SELECT * FROM iam.api_keys WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]))))

describe("POST /api/core/apikeys", () => {
  it("creates a key bound to the organization's platform, shown once, stored as its hash, audited without it", async () => {
    const response = await create(tenant.admin.token, {
      name: "ci",
      organizationId: tenant.org.id,
      permissions: ["deploy:manage", "deploy:read", "deploy:manage"]
    })
    expect(response.status).toBe(201)
    expect(response.headers.get("cache-control")).toBe("no-store")
    const created = await response.json()
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[0-9A-Z]{26}$/),
      key: expect.stringMatching(/^core_[A-Za-z0-9_-]{43}$/),
      start: created.key.slice(0, 11),
      name: "ci",
      organizationId: tenant.org.id,
      platformId: tenant.org.platformId,
      permissions: ["deploy:manage", "deploy:read"],
      createdBy: tenant.admin.id,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      createdAt: expect.any(String)
    })
    const row = await keyRow(created.id)
    expect(row.key_hash).toBe(Crypto.sha256Hex(created.key))
    expect(JSON.stringify(row)).not.toContain(created.key)
    const [entry] = await h.run(auditRows("apikey.create"))
    expect(entry).toMatchObject({ actorId: tenant.admin.id, organizationId: tenant.org.id, targetId: created.id })
    expect(JSON.stringify(entry)).not.toContain(created.key.slice(11))
    expect(h.logs.join("\n")).not.toContain(created.key.slice(11))
  })

  it("gives a key created without permissions the catalogue's read permissions its creator holds; an explicit [] holds none", async () => {
    const reads = ["apikeys:read", "audit:read", "billing:read", "deploy:read", "entities:read", "events:read", "features:read", "members:read",
      "org:read", "platforms:read", "provisioning:read", "resources:read", "secrets:read", "stacks:read", "vault:read"]
    const defaulted = await create(tenant.admin.token, { name: "default", organizationId: tenant.org.id })
    expect(defaulted.status).toBe(201)
    expect((await defaulted.json()).permissions).toEqual(reads)
    const none = await create(tenant.admin.token, { organizationId: tenant.org.id, permissions: [] })
    expect((await none.json()).permissions).toEqual([])
    // A key creating a key: the default is the reads it holds itself, never more.
    const parent = await (await create(tenant.admin.token, { organizationId: tenant.org.id, permissions: ["apikeys:manage", "members:read"] })).json()
    const child = await h.fetch("/api/core/apikeys", { method: "POST", apiKey: parent.key, json: { organizationId: tenant.org.id } })
    expect([child.status, (await child.json()).permissions]).toEqual([201, ["members:read"]])
  })

  it("answers 400 for broken rules, a foreign platformId and an expiry in the past", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "organizationId"],
      [{ organizationId: "" }, "organizationId"],
      [{ organizationId: tenant.org.id, name: "" }, "name"],
      [{ organizationId: tenant.org.id, name: "x".repeat(101) }, "name"],
      [{ organizationId: tenant.org.id, name: "a\u0000b" }, "name"],
      [{ organizationId: tenant.org.id, permissions: ["deploy:fly"] }, "permissions.0"],
      [{ organizationId: tenant.org.id, expiresAt: "tomorrow" }, "expiresAt"],
      [{ organizationId: tenant.org.id, platformId: "plt_other" }, "platformId"],
      [{ organizationId: tenant.org.id, expiresAt: "2001-01-01T00:00:00Z" }, "expiresAt"]
    ]
    for (const [json, path] of cases) {
      const response = await create(tenant.owner.token, json)
      expect(response.status, path).toBe(400)
      const body = await response.json()
      expect(body.error.code).toBe("VALIDATION_ERROR")
      expect(body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    }
  })

  it("answers 409 for an organization without a platform", async () => {
    const bare = await h.run(seedOrg({ platformId: null }))
    const response = await create(STATIC_KEY, { organizationId: bare.id })
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual(
      envelope("CONFLICT", "The organization has no platform; API keys are bound to a platform")
    )
  })

  it("refuses permissions the caller lacks; 403 to members, 404 to other tenants, 401 without credentials", async () => {
    const escalate = await create(tenant.admin.token, { organizationId: tenant.org.id, permissions: ["billing:manage"] })
    expect(escalate.status).toBe(403)
    expect(await escalate.json()).toEqual(envelope("FORBIDDEN", "You cannot hand out permissions you do not hold: billing:manage"))
    expect((await create(tenant.member.token, { organizationId: tenant.org.id })).status).toBe(403)
    const stranger = await create(other.owner.token, { organizationId: tenant.org.id })
    expect(stranger.status).toBe(404)
    expect(await stranger.json()).toEqual(envelope("NOT_FOUND", "Organization not found"))
    expect((await h.fetch("/api/core/apikeys", { method: "POST", json: { organizationId: tenant.org.id } })).status).toBe(401)
    expect((await create(operator.token, { organizationId: tenant.org.id, permissions: ["*"] })).status).toBe(201)
  })
})

describe("GET /api/core/apikeys", () => {
  it("lists keys newest first without the key or its hash, to holders of apikeys:read", async () => {
    const created = await (await create(other.owner.token, { organizationId: other.org.id, name: "listed" })).json()
    for (const who of [other.owner, other.member]) {
      const response = await h.fetch(`/api/core/apikeys?organizationId=${other.org.id}`, { token: who.token })
      expect(response.status).toBe(200)
      const body = await response.json()
      expect(body.data[0]).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== "key")))
      const text = JSON.stringify(body)
      expect(text).not.toContain(created.key)
      expect(text).not.toContain("keyHash")
      expect(text).not.toContain(Crypto.sha256Hex(created.key))
    }
  })

  it("answers 400 without organizationId, 404 to other tenants, 401 without credentials", async () => {
    expect((await h.fetch("/api/core/apikeys", { token: tenant.owner.token })).status).toBe(400)
    expect((await h.fetch("/api/core/apikeys?organizationId=%00", { token: tenant.owner.token })).status).toBe(400)
    const stranger = await h.fetch(`/api/core/apikeys?organizationId=${other.org.id}`, { token: tenant.owner.token })
    expect(stranger.status).toBe(404)
    expect((await h.fetch(`/api/core/apikeys?organizationId=${other.org.id}`)).status).toBe(401)
  })
})

describe("POST /api/core/apikey/validate", () => {
  it("answers the key's organization, platform, permissions and platform status to the static key", async () => {
    const created = await (await create(tenant.owner.token, { organizationId: tenant.org.id, permissions: ["platforms:read"] })).json()
    const response = await validate(created.key)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      valid: true,
      keyId: created.id,
      organizationId: tenant.org.id,
      platformId: tenant.org.platformId,
      permissions: ["platforms:read"],
      platformStatus: "active"
    })
    expect((await keyRow(created.id)).last_used_at).not.toBeNull()
    await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO iam.platform_status (platform_id, status) VALUES (${tenant.org.platformId}, 'suspended')`))
    expect((await (await validate(created.key)).json()).platformStatus).toBe("suspended")
    expect((await validate(created.key, operator.token)).status).toBe(200)
  })

  it("answers the same 401 for unknown, malformed, revoked and expired keys", async () => {
    const revoked = await (await create(tenant.owner.token, { organizationId: tenant.org.id })).json()
    await h.fetch(`/api/core/apikeys/${revoked.id}`, { method: "DELETE", token: tenant.owner.token })
    const expiring = await (await create(tenant.owner.token, { organizationId: tenant.org.id, expiresAt: "2999-01-01T00:00:00Z" })).json()
    await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE iam.api_keys SET expires_at = '2001-01-01T00:00:00Z' WHERE id = ${expiring.id}`))
    const unknown = `core_${Crypto.randomToken(32)}`
    for (const key of [unknown, "abc", "core_short", revoked.key, expiring.key]) {
      const response = await validate(key)
      expect(response.status, key).toBe(401)
      expect(await response.json()).toEqual(envelope("UNAUTHORIZED", "Invalid API key"))
    }
  })

  it("answers 400 for an empty or missing key", async () => {
    for (const json of [{ key: "" }, {}, { key: 5 }]) {
      const response = await h.fetch("/api/core/apikey/validate", { method: "POST", token: STATIC_KEY, json })
      expect(response.status).toBe(400)
      expect((await response.json()).error.details.issues[0].path).toBe("key")
    }
  })

  it("is for the gateway: 401 without credentials and 403 to a signed-in user while a static key is set", async () => {
    const created = await (await create(tenant.owner.token, { organizationId: tenant.org.id })).json()
    const none = await validate(created.key, null)
    expect(none.status).toBe(401)
    const user = await validate(created.key, tenant.owner.token)
    expect(user.status).toBe(403)
  })

  it("answers anyone in the development bypass (no static key configured)", async () => {
    const dev = await makeHarness({ devBypass: true })
    try {
      const operatorless = await dev.run(seedTenant)
      const created = await (await dev.fetch("/api/core/apikeys", {
        method: "POST",
        token: operatorless.owner.token,
        json: { organizationId: operatorless.org.id }
      })).json()
      const response = await dev.fetch("/api/core/apikey/validate", { method: "POST", json: { key: created.key } })
      expect(response.status).toBe(200)
      expect((await response.json()).organizationId).toBe(operatorless.org.id)
    } finally {
      await dev.dispose()
    }
  })
})

describe("DELETE /api/core/apikeys/{id}", () => {
  it("revokes with an empty 204, audits once, keeps the row, and is idempotent", async () => {
    const created = await (await create(tenant.admin.token, { organizationId: tenant.org.id, name: "old" })).json()
    const response = await h.fetch(`/api/core/apikeys/${created.id}`, { method: "DELETE", token: tenant.admin.token })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe("")
    expect((await keyRow(created.id)).revoked_at).not.toBeNull()
    expect((await validate(created.key)).status).toBe(401)
    expect((await h.fetch(`/api/core/apikeys/${created.id}`, { method: "DELETE", token: tenant.admin.token })).status).toBe(204)
    const entries = (await h.run(auditRows("apikey.revoke"))).filter((e) => e.targetId === created.id)
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ actorId: tenant.admin.id, metadata: { name: "old", start: created.start } })
    const listed = await (await h.fetch(`/api/core/apikeys?organizationId=${tenant.org.id}`, { token: tenant.admin.token })).json()
    expect(listed.data.find((k: { id: string }) => k.id === created.id).revokedAt).not.toBeNull()
  })

  it("answers 404 for unknown keys and other tenants' keys, 403 to members, 401 without credentials", async () => {
    const created = await (await create(tenant.admin.token, { organizationId: tenant.org.id })).json()
    const unknown = await h.fetch("/api/core/apikeys/key_missing", { method: "DELETE", token: tenant.admin.token })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual(envelope("NOT_FOUND", "API key not found"))
    const stranger = await h.fetch(`/api/core/apikeys/${created.id}`, { method: "DELETE", token: other.owner.token })
    expect(stranger.status).toBe(404)
    expect(await stranger.json()).toEqual(envelope("NOT_FOUND", "API key not found"))
    expect((await h.fetch(`/api/core/apikeys/${created.id}`, { method: "DELETE", token: tenant.member.token })).status).toBe(403)
    expect((await h.fetch(`/api/core/apikeys/${created.id}`, { method: "DELETE" })).status).toBe(401)
    expect((await validate(created.key)).status).toBe(200)
  })
})
