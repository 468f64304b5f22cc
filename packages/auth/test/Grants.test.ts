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
  seedUser,
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

const held = (userId: string, orgId: string) => h.run(Effect.flatMap(Access, (a) => a.effectivePermissions(userId, orgId)))

const grantRows = (id: string) =>
  h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ permission: string; granted: boolean; grantedBy: string }>`SELECT permission AS "permission",
      granted AS "granted", granted_by AS "grantedBy" FROM iam.grants WHERE id = ${id}`))

const post = (token: string, json: unknown) => h.fetch("/api/core/grants", { method: "POST", token, json })

describe("POST /api/core/grants", () => {
  it("grants a permission to a member (201), which takes effect at once, and audits it", async () => {
    expect(await held(tenant.member.id, tenant.org.id)).not.toContain("apikeys:manage")
    const response = await post(tenant.admin.token, {
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "apikeys:manage",
      granted: true,
      grantedBy: tenant.admin.id
    })
    expect(response.status).toBe(201)
    const grant = await response.json()
    expect(grant).toEqual({
      id: expect.stringMatching(/^grt_[0-9A-Z]{26}$/),
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "apikeys:manage",
      granted: true,
      grantedBy: tenant.admin.id,
      expiresAt: null,
      active: true,
      createdAt: expect.any(String)
    })
    expect(await grantRows(grant.id)).toEqual([{ permission: "apikeys:manage", granted: true, grantedBy: tenant.admin.id }])
    expect(await held(tenant.member.id, tenant.org.id)).toContain("apikeys:manage")
    expect((await h.run(auditRows("grant.create"))).at(-1)).toMatchObject({
      actorId: tenant.admin.id,
      organizationId: tenant.org.id,
      targetId: tenant.member.id,
      metadata: { grantId: grant.id, permission: "apikeys:manage", granted: true, expiresAt: null }
    })
  })

  it("denies a permission (granted: false); the denial wins over the role mapping", async () => {
    expect(await held(tenant.member.id, tenant.org.id)).toContain("org:read")
    const response = await post(tenant.admin.token, {
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "org:read",
      granted: false,
      grantedBy: tenant.admin.id,
      expiresAt: 99_999_999_999
    })
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({ granted: false, expiresAt: 99_999_999_999, active: true })
    expect(await held(tenant.member.id, tenant.org.id)).not.toContain("org:read")
    expect((await h.run(auditRows("grant.deny"))).length).toBe(1)
  })

  it("answers 400 VALIDATION_ERROR for each broken field rule", async () => {
    const valid = {
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "org:read",
      granted: true,
      grantedBy: tenant.owner.id
    }
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...valid, userId: undefined }, "userId"],
      [{ ...valid, userId: "" }, "userId"],
      [{ ...valid, orgId: "" }, "orgId"],
      [{ ...valid, permission: "" }, "permission"],
      [{ ...valid, permission: "org:fly" }, "permission"],
      [{ ...valid, granted: undefined }, "granted"],
      [{ ...valid, granted: "yes" }, "granted"],
      [{ ...valid, grantedBy: "" }, "grantedBy"],
      [{ ...valid, grantedBy: undefined }, "grantedBy"],
      [{ ...valid, userId: "usr\u0000" }, "userId"],
      [{ ...valid, expiresAt: 0 }, "expiresAt"],
      [{ ...valid, expiresAt: -5 }, "expiresAt"],
      [{ ...valid, expiresAt: 100_000_000_000 }, "expiresAt"],
      [{ ...valid, expiresAt: 1.5 }, "expiresAt"],
      [{ ...valid, expiresAt: "1700000000" }, "expiresAt"]
    ]
    for (const [json, path] of cases) {
      const response = await post(tenant.owner.token, json)
      expect(response.status, path).toBe(400)
      const body = await response.json()
      expect(body.error.code).toBe("VALIDATION_ERROR")
      expect(body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    }
  })

  it("requires grantedBy to be the calling user (the static key may name anyone)", async () => {
    const json = { userId: tenant.member.id, orgId: tenant.org.id, permission: "audit:read", granted: true, grantedBy: tenant.owner.id }
    const response = await post(tenant.admin.token, json)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual(envelope("VALIDATION_ERROR", "Invalid request body", {
      issues: [{ path: "grantedBy", message: "Must be the id of the calling user" }]
    }))
    expect((await post(STATIC_KEY, { ...json, grantedBy: "billing-service" })).status).toBe(201)
  })

  it("answers 404 when the user is not a member of the organization", async () => {
    const stranger = await h.run(seedUser("stranger"))
    const response = await post(tenant.owner.token, {
      userId: stranger.id,
      orgId: tenant.org.id,
      permission: "org:read",
      granted: true,
      grantedBy: tenant.owner.id
    })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual(envelope("NOT_FOUND", "The user is not a member of this organization"))
  })

  it("refuses to grant what the caller lacks, and lets only * holders deny an owner", async () => {
    const escalate = await post(tenant.admin.token, {
      userId: tenant.admin.id,
      orgId: tenant.org.id,
      permission: "billing:manage",
      granted: true,
      grantedBy: tenant.admin.id
    })
    expect(escalate.status).toBe(403)
    expect(await escalate.json()).toEqual(envelope("FORBIDDEN", "You cannot hand out permissions you do not hold: billing:manage"))
    const denyOwner = await post(tenant.admin.token, {
      userId: tenant.owner.id,
      orgId: tenant.org.id,
      permission: "members:manage",
      granted: false,
      grantedBy: tenant.admin.id
    })
    expect(denyOwner.status).toBe(403)
    const ownerDeniesAdmin = await post(tenant.owner.token, {
      userId: tenant.admin.id,
      orgId: tenant.org.id,
      permission: "audit:read",
      granted: false,
      grantedBy: tenant.owner.id
    })
    expect(ownerDeniesAdmin.status).toBe(201)
  })

  it("answers 401 without credentials, 403 to members, 404 to other tenants; operators may", async () => {
    const json = (grantedBy: string) => ({
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "org:read",
      granted: true,
      grantedBy
    })
    expect((await h.fetch("/api/core/grants", { method: "POST", json: json("x") })).status).toBe(401)
    expect((await post(tenant.member.token, json(tenant.member.id))).status).toBe(403)
    const stranger = await post(other.owner.token, json(other.owner.id))
    expect(stranger.status).toBe(404)
    expect(await stranger.json()).toEqual(envelope("NOT_FOUND", "Organization not found"))
    expect((await post(operator.token, json(operator.id))).status).toBe(201)
  })
})

describe("GET /api/core/grants", () => {
  it("lists an organization's grants newest first, filtered by user, with expired ones inactive", async () => {
    const user = await h.run(seedUser("listed"))
    await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO iam.members (id, organization_id, user_id, role) VALUES ('mem_listed', ${other.org.id}, ${user.id}, 'member')`))
    const first = await (await post(other.owner.token, {
      userId: user.id,
      orgId: other.org.id,
      permission: "stacks:manage",
      granted: true,
      grantedBy: other.owner.id,
      expiresAt: 1
    })).json()
    const second = await (await post(other.owner.token, {
      userId: user.id,
      orgId: other.org.id,
      permission: "deploy:manage",
      granted: true,
      grantedBy: other.owner.id
    })).json()
    const response = await h.fetch(`/api/core/grants?orgId=${other.org.id}&userId=${user.id}`, { token: other.admin.token })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.data.map((g: { id: string }) => g.id)).toEqual([second.id, first.id])
    expect(body.data[1]).toMatchObject({ permission: "stacks:manage", expiresAt: 1, active: false })
    expect(body.data[0]).toMatchObject({ permission: "deploy:manage", expiresAt: null, active: true })
    expect(await held(user.id, other.org.id)).toContain("deploy:manage")
    expect(await held(user.id, other.org.id)).not.toContain("stacks:manage")
    const all = await (await h.fetch(`/api/core/grants?orgId=${other.org.id}`, { token: other.owner.token })).json()
    expect(all.data.length).toBeGreaterThanOrEqual(2)
    expect(all.data.every((g: { orgId: string }) => g.orgId === other.org.id)).toBe(true)
  })

  it("answers 400 without orgId, 401 without credentials, 200 to members (members:read) and 404 to other tenants", async () => {
    const missing = await h.fetch("/api/core/grants", { token: tenant.owner.token })
    expect(missing.status).toBe(400)
    expect((await missing.json()).error.details.issues[0].path).toBe("orgId")
    expect((await h.fetch(`/api/core/grants?orgId=${tenant.org.id}&userId=`, { token: tenant.owner.token })).status).toBe(400)
    expect((await h.fetch(`/api/core/grants?orgId=${tenant.org.id}`)).status).toBe(401)
    expect((await h.fetch(`/api/core/grants?orgId=${tenant.org.id}`, { token: tenant.member.token })).status).toBe(200)
    expect((await h.fetch(`/api/core/grants?orgId=${tenant.org.id}`, { token: other.owner.token })).status).toBe(404)
    expect((await h.fetch(`/api/core/grants?orgId=${tenant.org.id}`, { token: operator.token })).status).toBe(200)
  })
})

describe("DELETE /api/core/grants/{id}", () => {
  it("deletes a grant with an empty 204, takes effect at once, audits it, and 404s afterwards", async () => {
    const grant = await (await post(tenant.owner.token, {
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "secrets:manage",
      granted: true,
      grantedBy: tenant.owner.id
    })).json()
    expect(await held(tenant.member.id, tenant.org.id)).toContain("secrets:manage")
    const response = await h.fetch(`/api/core/grants/${grant.id}`, { method: "DELETE", token: tenant.admin.token })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe("")
    expect(await grantRows(grant.id)).toEqual([])
    expect(await held(tenant.member.id, tenant.org.id)).not.toContain("secrets:manage")
    expect((await h.run(auditRows("grant.delete"))).at(-1)).toMatchObject({
      actorId: tenant.admin.id,
      targetId: tenant.member.id,
      metadata: { grantId: grant.id, permission: "secrets:manage", granted: true }
    })
    const again = await h.fetch(`/api/core/grants/${grant.id}`, { method: "DELETE", token: tenant.admin.token })
    expect(again.status).toBe(404)
    expect(await again.json()).toEqual(envelope("NOT_FOUND", "Grant not found"))
  })

  it("an owner who denied themselves a permission lifts that denial (members:manage, not the denied permission)", async () => {
    const own = await h.run(seedTenant)
    const denial = await post(own.owner.token, {
      userId: own.owner.id,
      orgId: own.org.id,
      permission: "billing:manage",
      granted: false,
      grantedBy: own.owner.id
    })
    expect(denial.status).toBe(201)
    const { id } = await denial.json()
    expect(await held(own.owner.id, own.org.id)).not.toContain("billing:manage")
    const lifted = await h.fetch(`/api/core/grants/${id}`, { method: "DELETE", token: own.owner.token })
    expect(lifted.status).toBe(204)
    expect(await grantRows(id)).toEqual([])
    expect(await held(own.owner.id, own.org.id)).toEqual(["*"])
  })

  it("lifting a denial needs members:manage; a denial of an owner or of oneself needs an owner", async () => {
    const own = await h.run(seedTenant)
    const deny = async (userId: string, permission: string) =>
      (await (await post(own.owner.token, { userId, orgId: own.org.id, permission, granted: false, grantedBy: own.owner.id })).json()).id as string
    const remove = (id: string, token: string) => h.fetch(`/api/core/grants/${id}`, { method: "DELETE", token })

    const ofMember = await deny(own.member.id, "billing:manage")
    expect((await remove(ofMember, own.member.token)).status).toBe(403)
    expect((await remove(ofMember, own.admin.token)).status).toBe(204)
    expect(await grantRows(ofMember)).toEqual([])

    const ofOwner = await deny(own.owner.id, "audit:read")
    const byAdmin = await remove(ofOwner, own.admin.token)
    expect(byAdmin.status).toBe(403)
    expect(await byAdmin.json()).toEqual(envelope("FORBIDDEN", "Only an owner can lift a denial of an owner or of oneself"))
    const ofAdmin = await deny(own.admin.id, "vault:read")
    const bySelf = await remove(ofAdmin, own.admin.token)
    expect(bySelf.status).toBe(403)
    expect(await bySelf.json()).toEqual(envelope("FORBIDDEN", "Only an owner can lift a denial of an owner or of oneself"))
    expect((await grantRows(ofOwner)).length + (await grantRows(ofAdmin)).length).toBe(2)
    expect((await remove(ofAdmin, own.owner.token)).status).toBe(204)
    expect((await remove(ofOwner, STATIC_KEY)).status).toBe(204)
  })

  it("answers 404 to another tenant, 403 to members, 401 without credentials, and keeps the grant", async () => {
    const grant = await (await post(tenant.owner.token, {
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "vault:read",
      granted: false,
      grantedBy: tenant.owner.id
    })).json()
    const stranger = await h.fetch(`/api/core/grants/${grant.id}`, { method: "DELETE", token: other.owner.token })
    expect(stranger.status).toBe(404)
    expect(await stranger.json()).toEqual(envelope("NOT_FOUND", "Grant not found"))
    expect((await h.fetch(`/api/core/grants/${grant.id}`, { method: "DELETE", token: tenant.member.token })).status).toBe(403)
    expect((await h.fetch(`/api/core/grants/${grant.id}`, { method: "DELETE" })).status).toBe(401)
    expect((await grantRows(grant.id)).length).toBe(1)
    expect((await h.fetch(`/api/core/grants/${grant.id}`, { method: "DELETE", token: operator.token })).status).toBe(204)
  })
})
