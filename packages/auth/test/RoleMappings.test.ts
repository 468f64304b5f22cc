import { DEFAULT_ROLE_PERMISSIONS } from "@core/contracts"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Access } from "../src/authorization/Access.js"
import {
  auditRows,
  envelope,
  type Harness,
  makeHarness,
  seedOperator,
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

const mappingRow = (orgId: string, role: string) =>
  h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ permissions: unknown }>`SELECT permissions AS "permissions" FROM iam.role_mappings
      WHERE organization_id = ${orgId} AND role = ${role}`))

describe("GET /api/core/roles", () => {
  it("lists the organization's mappings by role for its owner and admin", async () => {
    for (const who of [tenant.owner, tenant.admin]) {
      const response = await h.fetch(`/api/core/roles?orgId=${tenant.org.id}`, { token: who.token })
      expect(response.status).toBe(200)
      const body = await response.json()
      expect(body.data.map((m: { role: string }) => m.role)).toEqual(["admin", "member", "owner"])
      expect(body.data[2]).toEqual({ orgId: tenant.org.id, role: "owner", permissions: ["*"], updatedAt: expect.any(String) })
      expect(body.data[0].permissions).toEqual([...DEFAULT_ROLE_PERMISSIONS.admin])
    }
  })

  it("lets operators and the static key read any organization", async () => {
    expect((await h.fetch(`/api/core/roles?orgId=${tenant.org.id}`, { token: operator.token })).status).toBe(200)
    expect((await h.fetch(`/api/core/roles?orgId=${tenant.org.id}`, { token: STATIC_KEY })).status).toBe(200)
  })

  it("answers 401 without credentials, 200 to a plain member (members:read), 403 without it, 404 to another tenant and for unknown organizations", async () => {
    const none = await h.fetch(`/api/core/roles?orgId=${tenant.org.id}`)
    expect(none.status).toBe(401)
    expect(await none.json()).toEqual(envelope("UNAUTHORIZED", "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)"))
    const member = await h.fetch(`/api/core/roles?orgId=${tenant.org.id}`, { token: tenant.member.token })
    expect(member.status).toBe(200)
    const own = await h.run(seedTenant)
    const denied = await h.fetch("/api/core/grants", {
      method: "POST",
      token: own.owner.token,
      json: { userId: own.member.id, orgId: own.org.id, permission: "members:read", granted: false, grantedBy: own.owner.id }
    })
    expect(denied.status).toBe(201)
    const refused = await h.fetch(`/api/core/roles?orgId=${own.org.id}`, { token: own.member.token })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual(envelope("FORBIDDEN", "Missing permission members:read: ask an owner or admin of the organization to grant it (core grants create --permission members:read)"))
    const stranger = await h.fetch(`/api/core/roles?orgId=${tenant.org.id}`, { token: other.admin.token })
    expect(stranger.status).toBe(404)
    expect(await stranger.json()).toEqual(envelope("NOT_FOUND", "Organization not found"))
    const unknown = await h.fetch(`/api/core/roles?orgId=org_missing`, { token: STATIC_KEY })
    expect(unknown.status).toBe(404)
  })

  it("answers 400 VALIDATION_ERROR without orgId or with an empty one", async () => {
    for (const query of ["", "?orgId=", "?orgId=%00"]) {
      const response = await h.fetch(`/api/core/roles${query}`, { token: tenant.owner.token })
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.error.code).toBe("VALIDATION_ERROR")
      expect(body.error.details.issues[0].path).toBe("orgId")
    }
  })
})

describe("POST /api/core/roles", () => {
  it("creates a role mapping (sorted, deduplicated), invalidates cached permissions and audits it", async () => {
    const response = await h.fetch("/api/core/roles", {
      method: "POST",
      token: tenant.admin.token,
      json: { orgId: tenant.org.id, role: "support", permissions: ["org:read", "members:read", "org:read"] }
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      orgId: tenant.org.id,
      role: "support",
      permissions: ["members:read", "org:read"],
      updatedAt: expect.any(String)
    })
    expect((await mappingRow(tenant.org.id, "support"))[0].permissions).toEqual(["members:read", "org:read"])
    const [entry] = await h.run(auditRows("role.upsert"))
    expect(entry).toMatchObject({
      actorId: tenant.admin.id,
      actorType: "user",
      organizationId: tenant.org.id,
      targetId: "support",
      metadata: { permissions: ["members:read", "org:read"], previous: null }
    })
  })

  it("replaces an existing mapping and the change is seen at once", async () => {
    const before = await h.run(Effect.flatMap(Access, (a) => a.effectivePermissions(tenant.member.id, tenant.org.id)))
    expect(before).not.toContain("deploy:manage")
    const response = await h.fetch("/api/core/roles", {
      method: "POST",
      token: tenant.owner.token,
      json: { orgId: tenant.org.id, role: "member", permissions: ["deploy:manage", "org:read"] }
    })
    expect(response.status).toBe(200)
    const after = await h.run(Effect.flatMap(Access, (a) => a.effectivePermissions(tenant.member.id, tenant.org.id)))
    expect(after).toEqual(["deploy:manage", "org:read"])
  })

  it("accepts an empty permission list", async () => {
    const response = await h.fetch("/api/core/roles", {
      method: "POST",
      token: tenant.admin.token,
      json: { orgId: tenant.org.id, role: "guest", permissions: [] }
    })
    expect(response.status).toBe(200)
    expect((await response.json()).permissions).toEqual([])
  })

  it("answers 400 VALIDATION_ERROR for each broken field rule and unknown permissions", async () => {
    const cases: Array<[unknown, string]> = [
      [{ role: "x", permissions: [] }, "orgId"],
      [{ orgId: "", role: "x", permissions: [] }, "orgId"],
      [{ orgId: tenant.org.id, permissions: [] }, "role"],
      [{ orgId: tenant.org.id, role: "", permissions: [] }, "role"],
      [{ orgId: tenant.org.id, role: "x" }, "permissions"],
      [{ orgId: tenant.org.id, role: "x", permissions: "org:read" }, "permissions"],
      [{ orgId: tenant.org.id, role: "x", permissions: ["org:read", "org:fly"] }, "permissions.1"],
      [{ orgId: tenant.org.id, role: "x", permissions: [42] }, "permissions.0"],
      [{ orgId: "org\u0000x", role: "x", permissions: [] }, "orgId"],
      [{ orgId: tenant.org.id, role: "x\u0000", permissions: [] }, "role"]
    ]
    for (const [json, path] of cases) {
      const response = await h.fetch("/api/core/roles", { method: "POST", token: tenant.owner.token, json })
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.error.code).toBe("VALIDATION_ERROR")
      expect(body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    }
  })

  it("answers 400 INVALID_JSON and 415 for a body that is not JSON", async () => {
    const invalid = await h.fetch("/api/core/roles", {
      method: "POST",
      token: tenant.owner.token,
      headers: { "content-type": "application/json" },
      body: "{"
    })
    expect(invalid.status).toBe(400)
    expect((await invalid.json()).error.code).toBe("INVALID_JSON")
    const text = await h.fetch("/api/core/roles", { method: "POST", token: tenant.owner.token, body: "role=x" })
    expect(text.status).toBe(415)
  })

  it("refuses to hand out permissions the caller does not hold, and owner changes to non-owners", async () => {
    const escalate = await h.fetch("/api/core/roles", {
      method: "POST",
      token: tenant.admin.token,
      json: { orgId: tenant.org.id, role: "admin", permissions: ["org:delete", "org:read"] }
    })
    expect(escalate.status).toBe(403)
    expect(await escalate.json()).toEqual(
      envelope("FORBIDDEN", "You cannot hand out permissions you do not hold: org:delete")
    )
    const owner = await h.fetch("/api/core/roles", {
      method: "POST",
      token: tenant.admin.token,
      json: { orgId: tenant.org.id, role: "owner", permissions: ["org:read"] }
    })
    expect(owner.status).toBe(403)
    expect((await mappingRow(tenant.org.id, "owner"))[0].permissions).toEqual(["*"])
  })

  it("answers 403 to a member, 404 to another tenant's admin, and lets an operator change any organization", async () => {
    const json = { orgId: tenant.org.id, role: "support", permissions: ["org:read"] }
    expect((await h.fetch("/api/core/roles", { method: "POST", token: tenant.member.token, json })).status).toBe(403)
    const stranger = await h.fetch("/api/core/roles", { method: "POST", token: other.owner.token, json })
    expect(stranger.status).toBe(404)
    expect(await stranger.json()).toEqual(envelope("NOT_FOUND", "Organization not found"))
    expect((await h.fetch("/api/core/roles", { method: "POST", token: operator.token, json })).status).toBe(200)
    expect((await h.fetch("/api/core/roles", { method: "POST", token: STATIC_KEY, json })).status).toBe(200)
  })
})

describe("DELETE /api/core/roles/{orgId}/{role}", () => {
  it("deletes a mapping with an empty 204, audits it, and 404s the second time", async () => {
    await h.fetch("/api/core/roles", {
      method: "POST",
      token: tenant.admin.token,
      json: { orgId: tenant.org.id, role: "temp", permissions: ["org:read"] }
    })
    const response = await h.fetch(`/api/core/roles/${tenant.org.id}/temp`, { method: "DELETE", token: tenant.admin.token })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe("")
    expect(await mappingRow(tenant.org.id, "temp")).toEqual([])
    const entries = await h.run(auditRows("role.delete"))
    expect(entries.at(-1)).toMatchObject({ actorId: tenant.admin.id, targetId: "temp", metadata: { previous: ["org:read"] } })
    const again = await h.fetch(`/api/core/roles/${tenant.org.id}/temp`, { method: "DELETE", token: tenant.admin.token })
    expect(again.status).toBe(404)
    expect(await again.json()).toEqual(envelope("NOT_FOUND", "Role mapping not found"))
  })

  it("keeps the owner mapping from non-owners, and answers 403 to members and 404 to other tenants", async () => {
    const admin = await h.fetch(`/api/core/roles/${tenant.org.id}/owner`, { method: "DELETE", token: tenant.admin.token })
    expect(admin.status).toBe(403)
    const member = await h.fetch(`/api/core/roles/${tenant.org.id}/admin`, { method: "DELETE", token: tenant.member.token })
    expect(member.status).toBe(403)
    const stranger = await h.fetch(`/api/core/roles/${tenant.org.id}/admin`, { method: "DELETE", token: other.owner.token })
    expect(stranger.status).toBe(404)
    expect((await mappingRow(tenant.org.id, "admin")).length).toBe(1)
    expect((await h.fetch(`/api/core/roles/${tenant.org.id}/admin`, { method: "DELETE" })).status).toBe(401)
  })

  it("lets the owner delete a mapping, whose members then hold nothing", async () => {
    const response = await h.fetch(`/api/core/roles/${other.org.id}/member`, { method: "DELETE", token: other.owner.token })
    expect(response.status).toBe(204)
    const held = await h.run(Effect.flatMap(Access, (a) => a.effectivePermissions(other.member.id, other.org.id)))
    expect(held).toEqual([])
  })
})
