import { TestDatabase } from "@core/kernel/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Bootstrap } from "../src/organizations/Bootstrap.js"
import {
  auditOf,
  call,
  createOrganization,
  envelope,
  freshSlug,
  type Harness,
  join,
  libraryError,
  makeHarness,
  makeTenants,
  query,
  signUp,
  STATIC_KEY,
  type TestUser
} from "./OrganizationsSupport.js"

const activeOf = async (harness: Harness, user: TestUser) =>
  (await query<{ active: string | null }>(harness, (sql) =>
    sql`SELECT active_organization_id AS active FROM iam.sessions WHERE user_id = ${user.id}`))[0].active

const notFound = libraryError("ORGANIZATION_NOT_FOUND", "Organization not found")

for (const driver of TestDatabase.drivers) {
  describe(`organization plugin routes on ${driver}`, () => {
    let harness: Harness
    let owner: TestUser
    let admin: TestUser
    let member: TestUser
    let stranger: TestUser
    let org: { id: string; slug: string; platformId: string }
    let other: { id: string; slug: string; platformId: string }

    beforeAll(async () => {
      harness = await makeHarness({ driver })
      ;({ owner, admin, member, stranger, org, other } = await makeTenants(harness))
    })
    afterAll(() => harness.dispose())

    it("create answers the organization with its owner and makes it active", async () => {
      const user = await signUp(harness, "Creator")
      const slug = freshSlug("created")
      const { status, body, headers } = await call(harness, "/api/auth/organization/create", {
        token: user.token,
        json: { name: "Created", slug, logo: "https://example.com/logo.png", metadata: { plan: "free" } }
      })
      expect(status).toBe(200)
      expect(headers.get("cache-control")).toBe("no-store")
      expect(body).toEqual({
        id: expect.stringMatching(/^org_/),
        name: "Created",
        slug,
        logo: "https://example.com/logo.png",
        metadata: { plan: "free" },
        createdAt: expect.any(String),
        members: [{
          id: expect.stringMatching(/^mem_/),
          organizationId: body.id,
          userId: user.id,
          role: "owner",
          createdAt: expect.any(String)
        }]
      })
      expect(await activeOf(harness, user)).toBe(body.id)
      const kept = await call(harness, "/api/auth/organization/create", {
        token: user.token,
        json: { name: "Second", slug: freshSlug("kept"), keepCurrentActiveOrganization: true }
      })
      expect(kept.status).toBe(200)
      expect(await activeOf(harness, user)).toBe(body.id)
    })

    it("create refuses a taken slug, bad input and anonymous callers in better-auth's shape", async () => {
      expect(await call(harness, "/api/auth/organization/create", { token: owner.token, json: { name: "Dup", slug: org.slug } }))
        .toMatchObject({ status: 409, body: libraryError("ORGANIZATION_ALREADY_EXISTS", "Organization already exists") })
      const invalid = await call(harness, "/api/auth/organization/create", { token: owner.token, json: { name: "", slug: "Bad Slug" } })
      expect(invalid.status).toBe(400)
      expect(invalid.body).toEqual({
        code: "VALIDATION_ERROR",
        message: expect.stringContaining("[body.name]"),
        issues: [
          { path: "name", message: expect.any(String) },
          { path: "slug", message: "Must match ^[a-z0-9-]+$" }
        ]
      })
      expect(await call(harness, "/api/auth/organization/create", { json: { name: "Anon", slug: freshSlug() } }))
        .toMatchObject({ status: 401, body: libraryError("UNAUTHORIZED", "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)") })
      expect(await call(harness, "/api/auth/organization/create", { token: STATIC_KEY, json: { name: "Svc", slug: freshSlug() } }))
        .toMatchObject({ status: 401 })
    })

    it("list answers the caller's organizations on GET and POST", async () => {
      for (const method of ["GET", "POST"]) {
        const { status, body } = await call(harness, "/api/auth/organization/list", { token: member.token, method })
        expect(status).toBe(200)
        expect(body).toEqual([{ id: org.id, name: `Org ${org.slug}`, slug: org.slug, logo: null, metadata: null, createdAt: expect.any(String) }])
      }
      expect((await call(harness, "/api/auth/organization/list", { token: stranger.token })).body.map((o: { id: string }) => o.id))
        .toEqual([other.id])
    })

    it("set-active by id, by slug, and null; another tenant's organization is not found", async () => {
      const byId = await call(harness, "/api/auth/organization/set-active", { token: member.token, json: { organizationId: org.id } })
      expect(byId).toMatchObject({ status: 200, body: { id: org.id, slug: org.slug } })
      expect(await activeOf(harness, member)).toBe(org.id)
      expect(await call(harness, "/api/auth/organization/set-active", { token: member.token, json: { organizationId: null } }))
        .toMatchObject({ status: 200, body: null })
      expect(await activeOf(harness, member)).toBeNull()
      expect(await call(harness, "/api/auth/organization/set-active", { token: member.token, json: { organizationSlug: org.slug } }))
        .toMatchObject({ status: 200, body: { id: org.id } })
      for (const json of [{ organizationId: other.id }, { organizationSlug: other.slug }, { organizationId: "org_missing" }]) {
        expect(await call(harness, "/api/auth/organization/set-active", { token: member.token, json }))
          .toMatchObject({ status: 404, body: notFound })
      }
      expect(await activeOf(harness, member)).toBe(org.id)
    })

    it("get-full-organization answers members and invitations, on GET and POST", async () => {
      const invited = await call(harness, "/api/auth/organization/invite-member", {
        token: owner.token,
        json: { email: "full@example.com", role: "member", organizationId: org.id }
      })
      expect(invited.status).toBe(200)
      const get = await call(harness, `/api/auth/organization/get-full-organization?organizationId=${org.id}`, { token: admin.token })
      const post = await call(harness, "/api/auth/organization/get-full-organization", { token: admin.token, json: { organizationSlug: org.slug } })
      for (const { status, body } of [get, post]) {
        expect(status).toBe(200)
        expect(body).toMatchObject({ id: org.id, slug: org.slug })
        expect(body.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
          [owner.id, "owner"],
          [admin.id, "admin"],
          [member.id, "member"]
        ])
        expect(body.members[0].user).toEqual({ id: owner.id, name: "Owner", email: owner.email, image: null })
        expect(body.invitations.map((i: { id: string }) => i.id)).toContain(invited.body.id)
      }
      const limited = await call(harness, `/api/auth/organization/get-full-organization?organizationId=${org.id}&membersLimit=1`, { token: admin.token })
      expect(limited.body.members).toHaveLength(1)
    })

    it("get-full-organization answers the active organization, null without one, 404 for another tenant's", async () => {
      const loner = await signUp(harness, "Loner")
      expect(await call(harness, "/api/auth/organization/get-full-organization", { token: loner.token }))
        .toMatchObject({ status: 200, body: null })
      const active = await call(harness, "/api/auth/organization/get-full-organization", { token: owner.token })
      expect(active.body.id).toBe(org.id)
      for (const path of [`?organizationId=${other.id}`, `?organizationSlug=${other.slug}`, "?organizationId=org_nope"]) {
        expect(await call(harness, `/api/auth/organization/get-full-organization${path}`, { token: member.token }))
          .toMatchObject({ status: 404, body: notFound })
      }
    })

    it("check-slug answers free and taken slugs", async () => {
      expect(await call(harness, "/api/auth/organization/check-slug", { token: member.token, json: { slug: freshSlug("free") } }))
        .toMatchObject({ status: 200, body: { status: true } })
      expect(await call(harness, "/api/auth/organization/check-slug", { token: member.token, json: { slug: other.slug } }))
        .toMatchObject({ status: 400, body: libraryError("ORGANIZATION_SLUG_ALREADY_TAKEN", "Organization slug already taken") })
      expect(await call(harness, "/api/auth/organization/check-slug", { token: member.token, json: { slug: "core-operator" } }))
        .toMatchObject({ status: 400, body: { code: "ORGANIZATION_SLUG_ALREADY_TAKEN" } })
      expect((await call(harness, "/api/auth/organization/check-slug", { token: member.token, json: { slug: "UPPER" } })).status).toBe(400)
      expect((await call(harness, "/api/auth/organization/check-slug", { json: { slug: "x" } })).status).toBe(401)
    })

    it("update needs org:update: owners and admins yes, members no, other tenants not found", async () => {
      const renamed = await call(harness, "/api/auth/organization/update", {
        token: admin.token,
        json: { organizationId: org.id, data: { name: "Renamed", metadata: { tier: "gold" } } }
      })
      expect(renamed).toMatchObject({ status: 200, body: { id: org.id, name: "Renamed", slug: org.slug, metadata: { tier: "gold" } } })
      expect(await call(harness, "/api/auth/organization/update", { token: member.token, json: { organizationId: org.id, data: { name: "No" } } }))
        .toMatchObject({
          status: 403,
          body: libraryError("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION", "You are not allowed to update this organization")
        })
      expect(await call(harness, "/api/auth/organization/update", { token: member.token, json: { organizationId: other.id, data: { name: "X" } } }))
        .toMatchObject({ status: 404, body: notFound })
      expect(await call(harness, "/api/auth/organization/update", { token: owner.token, json: { organizationId: org.id, data: { slug: other.slug } } }))
        .toMatchObject({ status: 400, body: libraryError("ORGANIZATION_SLUG_ALREADY_TAKEN", "Organization slug already taken") })
      expect((await call(harness, "/api/auth/organization/update", { token: owner.token, json: { organizationId: org.id, data: { name: "" } } })).status)
        .toBe(400)
      expect(await query(harness, (sql) => sql`SELECT name FROM iam.organizations WHERE id = ${other.id}`)).toEqual([{ name: `Org ${other.slug}` }])
      const audits = (await auditOf(harness, "org.update")).filter((row) => row.organizationId === org.id)
      expect(audits).toEqual([{ actorId: admin.id, actorType: "user", organizationId: org.id, targetId: org.id, metadata: { fields: ["name", "metadata"] } }])
    })

    it("delete needs org:delete (owners): admins are refused, other tenants not found, the owner deletes", async () => {
      const doomed = await createOrganization(harness, owner)
      await join(harness, doomed.id, owner, admin, "admin")
      expect(await call(harness, "/api/auth/organization/delete", { token: admin.token, json: { organizationId: doomed.id } }))
        .toMatchObject({
          status: 403,
          body: libraryError("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION", "You are not allowed to delete this organization")
        })
      expect(await call(harness, "/api/auth/organization/delete", { token: stranger.token, json: { organizationId: doomed.id } }))
        .toMatchObject({ status: 404, body: notFound })
      const deleted = await call(harness, "/api/auth/organization/delete", { token: owner.token, json: { organizationId: doomed.id } })
      expect(deleted).toMatchObject({ status: 200, body: { id: doomed.id, slug: doomed.slug } })
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE id = ${doomed.id}`)).toEqual([])
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.members WHERE organization_id = ${doomed.id}`)).toEqual([])
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.sessions WHERE active_organization_id = ${doomed.id}`)).toEqual([])
      expect((await auditOf(harness, "org.delete")).map((row) => [row.actorId, row.targetId])).toEqual([[owner.id, doomed.id]])
    })
  })

  describe(`documented organization routes on ${driver}`, () => {
    let harness: Harness
    let operator: TestUser
    let owner: TestUser
    let stranger: TestUser
    let org: { id: string; slug: string; platformId: string }

    beforeAll(async () => {
      harness = await makeHarness({ driver })
      operator = await signUp(harness, "Operator")
      owner = await signUp(harness, "Owner")
      stranger = await signUp(harness, "Stranger")
      await harness.run(Effect.flatMap(Bootstrap, (b) => b.makeOwner(operator.email)))
      org = await createOrganization(harness, owner)
    })
    afterAll(() => harness.dispose())

    it("POST /api/core/organizations: the service key creates a tenant with its owner and platform (201)", async () => {
      const slug = freshSlug("svc")
      const { status, body } = await call(harness, "/api/core/organizations", { token: STATIC_KEY, json: { name: "Svc", slug, ownerId: owner.id } })
      expect(status).toBe(201)
      expect(body).toEqual({
        id: expect.stringMatching(/^org_/),
        name: "Svc",
        slug,
        orgType: "tenant",
        logo: null,
        metadata: null,
        platformId: expect.stringMatching(/^plt_/),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        members: [{
          id: expect.stringMatching(/^mem_/),
          organizationId: body.id,
          userId: owner.id,
          role: "owner",
          createdAt: expect.any(String),
          user: { id: owner.id, name: "Owner", email: owner.email, image: null }
        }]
      })
      expect(await query(harness, (sql) => sql`SELECT tier FROM registry.platforms WHERE id = ${body.platformId}`)).toEqual([{ tier: "free" }])
      expect((await auditOf(harness, "org.create")).find((row) => row.organizationId === body.id)).toMatchObject({ actorType: "service", actorId: null })
    })

    it("POST /api/core/organizations: operators may, others are refused", async () => {
      const byOperator = await call(harness, "/api/core/organizations", { token: operator.token, json: { name: "Op", slug: freshSlug("op"), ownerId: stranger.id } })
      expect(byOperator.status).toBe(201)
      const slug = freshSlug("no")
      expect(await call(harness, "/api/core/organizations", { token: owner.token, json: { name: "No", slug, ownerId: owner.id } }))
        .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "This action needs the operator role or the service key") })
      expect(await call(harness, "/api/core/organizations", { json: { name: "No", slug, ownerId: owner.id } }))
        .toMatchObject({ status: 401, body: envelope("UNAUTHORIZED", "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)") })
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`)).toEqual([])
    })

    it("POST /api/core/organizations: every field rule is a 400, a taken slug a 409", async () => {
      const good = { name: "Ok", slug: freshSlug("ok"), ownerId: owner.id }
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, name: "" }, "name"],
        [{ ...good, name: "n".repeat(101) }, "name"],
        [{ ...good, slug: "" }, "slug"],
        [{ ...good, slug: "s".repeat(64) }, "slug"],
        [{ ...good, slug: "UPPER" }, "slug"],
        [{ ...good, ownerId: "" }, "ownerId"],
        [{ name: "Ok", slug: good.slug }, "ownerId"],
        [{ ...good, orgType: "partner" }, "orgType"],
        [{ ...good, ownerId: "usr_unknown" }, "ownerId"]
      ]
      for (const [json, path] of cases) {
        const { status, body } = await call(harness, "/api/core/organizations", { token: STATIC_KEY, json })
        expect(status).toBe(400)
        expect(body.error.code).toBe("VALIDATION_ERROR")
        expect(new Set(body.error.details.issues.map((issue: { path: string }) => issue.path))).toEqual(new Set([path]))
      }
      expect(await call(harness, "/api/core/organizations", { token: STATIC_KEY, json: { ...good, slug: org.slug } }))
        .toMatchObject({ status: 409, body: envelope("CONFLICT", "Organization already exists", { reason: "ORGANIZATION_ALREADY_EXISTS" }) })
      expect(await call(harness, "/api/core/organizations", { token: STATIC_KEY, json: { ...good, slug: freshSlug("ops"), orgType: "core-operator" } }))
        .toMatchObject({ status: 409 })
    })

    it("GET /api/core/organizations/{slug}: members, operators and the service read it; others get 404", async () => {
      for (const token of [owner.token, operator.token, STATIC_KEY]) {
        const { status, body } = await call(harness, `/api/core/organizations/${org.slug}`, { token })
        expect(status).toBe(200)
        expect(body).toMatchObject({ id: org.id, slug: org.slug, orgType: "tenant", platformId: org.platformId })
        expect(body.members.map((m: { userId: string }) => m.userId)).toEqual([owner.id])
      }
      expect(await call(harness, `/api/core/organizations/${org.slug}`, { token: stranger.token }))
        .toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Organization not found") })
      expect(await call(harness, "/api/core/organizations/no-such-org", { token: owner.token }))
        .toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Organization not found") })
      expect((await call(harness, `/api/core/organizations/${org.slug}`)).status).toBe(401)
    })
  })
}
