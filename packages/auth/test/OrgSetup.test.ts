import { DEFAULT_ROLE_PERMISSIONS } from "@core/contracts"
import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  auditOf,
  call,
  envelope,
  FailingPlatformSetup,
  freshSlug,
  type Harness,
  makeHarness,
  query,
  signUp,
  STATIC_KEY
} from "./OrganizationsSupport.js"

for (const driver of TestDatabase.drivers) {
  describe(`POST /api/core/org-setup on ${driver}`, () => {
    let harness: Harness
    beforeAll(async () => {
      harness = await makeHarness({ driver })
    })
    afterAll(() => harness.dispose())

    it("creates the organization, its owner, default role mappings and a free platform (201)", async () => {
      const owner = await signUp(harness, "Olga")
      const slug = freshSlug("acme")
      const { status, body } = await call(harness, "/api/core/org-setup", { cookie: owner.token, json: { name: "Acme", slug } })
      expect(status).toBe(201)
      expect(body).toEqual({ orgId: expect.stringMatching(/^org_/), platformId: expect.stringMatching(/^plt_/), slug, name: "Acme" })

      const organizations = await query(harness, (sql) =>
        sql`SELECT name, slug, org_type AS "orgType", platform_id AS "platformId" FROM iam.organizations WHERE id = ${body.orgId}`)
      expect(organizations).toEqual([{ name: "Acme", slug, orgType: "tenant", platformId: body.platformId }])
      const members = await query(harness, (sql) =>
        sql`SELECT user_id AS "userId", role FROM iam.members WHERE organization_id = ${body.orgId}`)
      expect(members).toEqual([{ userId: owner.id, role: "owner" }])
      const mappings = await query<{ role: string; permissions: unknown }>(harness, (sql) =>
        sql`SELECT role, permissions FROM iam.role_mappings WHERE organization_id = ${body.orgId} ORDER BY role`)
      expect(mappings.map((m) => ({ role: m.role, permissions: typeof m.permissions === "string" ? JSON.parse(m.permissions) : m.permissions })))
        .toEqual([
          { role: "admin", permissions: DEFAULT_ROLE_PERMISSIONS.admin },
          { role: "member", permissions: DEFAULT_ROLE_PERMISSIONS.member },
          { role: "owner", permissions: ["*"] }
        ])
      const platforms = await query(harness, (sql) =>
        sql`SELECT id, organization_id AS "organizationId", owner_user_id AS "ownerUserId", name, slug, tier, status
          FROM registry.platforms WHERE id = ${body.platformId}`)
      expect(platforms).toEqual([{
        id: body.platformId,
        organizationId: body.orgId,
        ownerUserId: owner.id,
        name: "Acme",
        slug,
        tier: "free",
        status: "active"
      }])
      const sessions = await query(harness, (sql) =>
        sql`SELECT active_organization_id AS "active" FROM iam.sessions WHERE user_id = ${owner.id}`)
      expect(sessions).toEqual([{ active: body.orgId }])
      const created = (await auditOf(harness, "org.create")).filter((row) => row.organizationId === body.orgId)
      expect(created).toEqual([{
        actorId: owner.id,
        actorType: "user",
        organizationId: body.orgId,
        targetId: body.orgId,
        metadata: { slug, orgType: "tenant", platformId: body.platformId }
      }])
    })

    it("answers 401 without a session cookie, also for a valid bearer or the service key", async () => {
      const user = await signUp(harness, "Bea")
      const json = { name: "Nope", slug: freshSlug() }
      expect(await call(harness, "/api/core/org-setup", { json })).toEqual(expect.objectContaining({
        status: 401,
        body: envelope("UNAUTHORIZED", "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)")
      }))
      const bearer = await call(harness, "/api/core/org-setup", { token: user.token, json })
      expect(bearer.status).toBe(401)
      expect(bearer.body.error.code).toBe("UNAUTHORIZED")
      const service = await call(harness, "/api/core/org-setup", { token: STATIC_KEY, json })
      expect(service.status).toBe(401)
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${json.slug}`)).toEqual([])
    })

    it("answers 400 VALIDATION_ERROR for every rule of name and slug", async () => {
      const user = await signUp(harness, "Cid")
      const cases: Array<[unknown, string]> = [
        [{ slug: "ok" }, "name"],
        [{ name: "", slug: "ok" }, "name"],
        [{ name: "x".repeat(101), slug: "ok" }, "name"],
        [{ name: "Ok" }, "slug"],
        [{ name: "Ok", slug: "" }, "slug"],
        [{ name: "Ok", slug: "a".repeat(64) }, "slug"],
        [{ name: "Ok", slug: "Not_Valid" }, "slug"],
        [{ name: "Ok", slug: "has space" }, "slug"],
        [{ name: 5, slug: "ok" }, "name"]
      ]
      for (const [json, path] of cases) {
        const { status, body } = await call(harness, "/api/core/org-setup", { cookie: user.token, json })
        expect(status).toBe(400)
        expect(body.error.code).toBe("VALIDATION_ERROR")
        expect(body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path)
      }
      const edges = await call(harness, "/api/core/org-setup", {
        cookie: user.token,
        json: { name: "x".repeat(100), slug: `${"a".repeat(55)}-${Date.now().toString(36).slice(-7)}` }
      })
      expect(edges.status).toBe(201)
    })

    it("answers 409 CONFLICT when the slug is taken, and keeps the first organization alone", async () => {
      const user = await signUp(harness, "Dan")
      const slug = freshSlug("taken")
      expect((await call(harness, "/api/core/org-setup", { cookie: user.token, json: { name: "First", slug } })).status).toBe(201)
      const { status, body } = await call(harness, "/api/core/org-setup", { cookie: user.token, json: { name: "Second", slug } })
      expect(status).toBe(409)
      expect(body).toEqual(envelope("CONFLICT", "Organization already exists", { reason: "ORGANIZATION_ALREADY_EXISTS" }))
      expect(await query(harness, (sql) => sql`SELECT name FROM iam.organizations WHERE slug = ${slug}`)).toEqual([{ name: "First" }])
      expect(await query(harness, (sql) => sql`SELECT name FROM registry.platforms WHERE slug = ${slug}`)).toEqual([{ name: "First" }])
    })

    it("answers 409 when only the registry has the slug, and leaves no organization behind", async () => {
      const user = await signUp(harness, "Eve")
      const slug = freshSlug("registry")
      await query(harness, (sql) =>
        sql`INSERT INTO registry.platforms (id, name, slug) VALUES ('plt_01JX0000000000000000000000', 'Direct', ${slug}) RETURNING id`)
      const { status, body } = await call(harness, "/api/core/org-setup", { cookie: user.token, json: { name: "Late", slug } })
      expect(status).toBe(409)
      expect(body.error.code).toBe("CONFLICT")
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`)).toEqual([])
    })

    it("refuses the operator organization's slug for a tenant", async () => {
      const user = await signUp(harness, "Fay")
      const { status } = await call(harness, "/api/core/org-setup", { cookie: user.token, json: { name: "Ops", slug: "core-operator" } })
      expect(status).toBe(409)
    })
  })

  describe(`org-setup with a failing registry on ${driver}`, () => {
    let harness: Harness
    beforeAll(async () => {
      harness = await makeHarness({ driver, platformSetup: FailingPlatformSetup })
    })
    afterAll(() => harness.dispose())

    it("rolls the organization back (502 UPSTREAM_UNAVAILABLE, no rows remain)", async () => {
      const user = await signUp(harness, "Gus")
      const slug = freshSlug("rollback")
      const { status, body } = await call(harness, "/api/core/org-setup", { cookie: user.token, json: { name: "Rollback", slug } })
      expect(status).toBe(502)
      expect(body).toEqual(envelope("UPSTREAM_UNAVAILABLE", "The registry could not create the platform"))
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`)).toEqual([])
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.members WHERE user_id = ${user.id}`)).toEqual([])
      expect(await query(harness, (sql) => sql`SELECT organization_id FROM iam.role_mappings`)).toEqual([])
      expect(await auditOf(harness, "org.create")).toEqual([])
    })

    it("rolls back the plugin's create the same way", async () => {
      const user = await signUp(harness, "Hal")
      const slug = freshSlug("plugin")
      const { status, body } = await call(harness, "/api/auth/organization/create", { token: user.token, json: { name: "P", slug } })
      expect(status).toBe(502)
      expect(body).toEqual({ code: "UPSTREAM_UNAVAILABLE", message: "The registry could not create the platform" })
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`)).toEqual([])
    })

    it("rolls back the operator's create the same way", async () => {
      const user = await signUp(harness, "Ida")
      const slug = freshSlug("operator")
      const { status } = await call(harness, "/api/core/organizations", {
        token: STATIC_KEY,
        json: { name: "O", slug, ownerId: user.id }
      })
      expect(status).toBe(502)
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`)).toEqual([])
    })
  })
}
