import { ForbiddenError, NotFoundError, UnauthorizedError } from "@core/sdk"
import { Effect } from "effect"
import * as Jose from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { iamAuthorization } from "../../sdk/src/resources/iam-authorization.js"
import { createTransport } from "../../sdk/src/transport.js"
import { type Harness, makeHarness, seedOperator, seedTenant, STATIC_KEY } from "./AuthorizationSupport.js"

let h: Harness
let url: string
let tenant: Effect.Effect.Success<typeof seedTenant>
let other: Effect.Effect.Success<typeof seedTenant>

/** The SDK's authorization resource against the identity routes on a real server (no gateway: base path ""). */
const iam = (token: string) => iamAuthorization(createTransport({ baseUrl: url, retry: 0, token }), "")

beforeAll(async () => {
  h = await makeHarness()
  url = (await h.listen()).url
  tenant = await h.run(seedTenant)
  other = await h.run(seedTenant)
  await h.run(seedOperator)
})
afterAll(() => h.dispose())

describe("SDK client.iam authorization", () => {
  it("manages role mappings and grants", async () => {
    const admin = iam(tenant.admin.token)
    const mapping = await admin.roles.upsert({ orgId: tenant.org.id, role: "support", permissions: ["org:read"] })
    expect(mapping).toMatchObject({ orgId: tenant.org.id, role: "support", permissions: ["org:read"] })
    expect((await admin.roles.list(tenant.org.id)).data.map((m) => m.role)).toContain("support")
    await admin.roles.delete(tenant.org.id, "support")
    expect((await admin.roles.list(tenant.org.id)).data.map((m) => m.role)).not.toContain("support")

    const grant = await admin.grants.create({
      userId: tenant.member.id,
      orgId: tenant.org.id,
      permission: "deploy:manage",
      granted: true,
      grantedBy: tenant.admin.id
    })
    expect((await admin.grants.list({ orgId: tenant.org.id, userId: tenant.member.id })).data.map((g) => g.id)).toEqual([grant.id])
    await admin.grants.delete(grant.id)
    expect((await admin.grants.list({ orgId: tenant.org.id })).data).toEqual([])
  })

  it("creates, lists, validates and revokes API keys", async () => {
    const owner = iam(tenant.owner.token)
    const gateway = iam(STATIC_KEY)
    const created = await owner.apiKeys.create({ organizationId: tenant.org.id, name: "sdk" })
    expect(created.key).toMatch(/^core_/)
    expect((await owner.apiKeys.list(tenant.org.id)).data.map((k) => k.id)).toContain(created.id)
    expect(await gateway.apiKeys.validate(created.key)).toMatchObject({ valid: true, keyId: created.id })
    await owner.apiKeys.revoke(created.id)
    await expect(gateway.apiKeys.validate(created.key)).rejects.toBeInstanceOf(UnauthorizedError)
  })

  it("issues service tokens that verify against the JWKS, and sets platform status", async () => {
    const gateway = iam(STATIC_KEY)
    const issued = await gateway.serviceTokens.create({ serviceId: "billing", targetService: "registry" })
    const jwks = Jose.createLocalJWKSet(await gateway.serviceTokens.jwks())
    const { payload } = await Jose.jwtVerify(issued.token, jwks, { issuer: "core-iam", audience: "registry" })
    expect(payload.sub).toBe("billing")
    const status = await gateway.platformStatus.set({ platformId: tenant.org.platformId!, status: "suspended" })
    expect(status).toMatchObject({ platformId: tenant.org.platformId, status: "suspended" })
  })

  it("reads the audit log page by page and iterates over all of it", async () => {
    const owner = iam(tenant.owner.token)
    const first = await owner.audit.list({ organizationId: tenant.org.id, limit: 2 })
    expect(first.data).toHaveLength(2)
    expect(first.hasMore).toBe(true)
    const all: Array<string> = []
    for await (const entry of owner.audit.all({ organizationId: tenant.org.id, limit: 2 })) all.push(entry.id)
    expect(all.length).toBeGreaterThan(2)
    expect(all.slice(0, 2)).toEqual(first.data.map((e) => e.id))
    expect(new Set(all).size).toBe(all.length)
  })

  it("throws the SDK's status-keyed errors", async () => {
    await expect(iam(tenant.member.token).roles.delete(tenant.org.id, "admin")).rejects.toBeInstanceOf(ForbiddenError)
    await expect(iam(other.owner.token).grants.list({ orgId: tenant.org.id })).rejects.toBeInstanceOf(NotFoundError)
    await expect(iam("nope").apiKeys.list(tenant.org.id)).rejects.toBeInstanceOf(UnauthorizedError)
  })
})
