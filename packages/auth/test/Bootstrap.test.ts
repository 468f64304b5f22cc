import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Bootstrap } from "../src/organizations/Bootstrap.js"
import { auditOf, call, createOrganization, envelope, type Harness, makeHarness, query, signUp, STATIC_KEY } from "./OrganizationsSupport.js"

for (const driver of TestDatabase.drivers) {
  describe(`bootstrap on ${driver}`, () => {
    let harness: Harness
    beforeAll(async () => {
      harness = await makeHarness({ driver })
    })
    afterAll(() => harness.dispose())

    it("POST /api/core/bootstrap: anonymous 401, a plain user 403, nothing created", async () => {
      const user = await signUp(harness, "Plain")
      expect(await call(harness, "/api/core/bootstrap", { method: "POST" }))
        .toMatchObject({ status: 401, body: envelope("UNAUTHORIZED", "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)") })
      expect(await call(harness, "/api/core/bootstrap", { method: "POST", token: user.token }))
        .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "This action needs the operator role or the service key") })
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE org_type = 'core-operator'`)).toEqual([])
    })

    it("POST /api/core/bootstrap: the service key creates core-operator once (201), then answers it (200)", async () => {
      const first = await call(harness, "/api/core/bootstrap", { method: "POST", token: STATIC_KEY })
      expect(first.status).toBe(201)
      expect(first.body).toEqual({
        id: expect.stringMatching(/^org_/),
        name: "Core operators",
        slug: "core-operator",
        orgType: "core-operator",
        logo: null,
        metadata: null,
        platformId: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String)
      })
      const second = await call(harness, "/api/core/bootstrap", { method: "POST", token: STATIC_KEY })
      expect(second).toMatchObject({ status: 200, body: first.body })
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE org_type = 'core-operator'`)).toEqual([{ id: first.body.id }])
      expect(await query(harness, (sql) => sql`SELECT count(*)::int AS n FROM registry.platforms WHERE organization_id = ${first.body.id}`))
        .toEqual([{ n: 0 }])
      expect((await auditOf(harness, "bootstrap")).map((row) => [row.actorType, row.targetId, row.metadata])).toEqual([
        ["service", first.body.id, { slug: "core-operator" }]
      ])
    })

    it("concurrent bootstraps make one operator organization", async () => {
      const answers = await Promise.all([1, 2, 3].map(() => call(harness, "/api/core/bootstrap", { method: "POST", token: STATIC_KEY })))
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1)
      expect(await query(harness, (sql) => sql`SELECT count(*)::int AS n FROM iam.organizations WHERE org_type = 'core-operator'`)).toEqual([{ n: 1 }])
    })

    it("makeOwner (core-server bootstrap --email): unknown email is NotFound with a clear message", async () => {
      const exit = await harness.run(Effect.exit(Effect.flatMap(Bootstrap, (b) => b.makeOwner("nobody@example.com"))))
      expect(exit).toEqual(Exit.fail(expect.objectContaining({
        _tag: "NotFound",
        message: "No user has the email nobody@example.com; sign up first"
      })))
    })

    it("makeOwner makes the user an owner of core-operator, which makes them an operator", async () => {
      const user = await signUp(harness, "Root")
      const tenant = await signUp(harness, "Tenant")
      const org = await createOrganization(harness, tenant)
      expect((await call(harness, `/api/core/organizations/${org.slug}`, { token: user.token })).status).toBe(404)
      const result = await harness.run(Effect.flatMap(Bootstrap, (b) => b.makeOwner(user.email.toUpperCase())))
      expect(result).toMatchObject({ created: false, organization: { slug: "core-operator" }, member: { userId: user.id, role: "owner" } })
      expect(await query(harness, (sql) =>
        sql`SELECT m.role FROM iam.members m JOIN iam.organizations o ON o.id = m.organization_id
          WHERE o.org_type = 'core-operator' AND m.user_id = ${user.id}`)).toEqual([{ role: "owner" }])
      expect((await call(harness, `/api/core/organizations/${org.slug}`, { token: user.token })).status).toBe(200)
      expect((await call(harness, "/api/core/bootstrap", { method: "POST", token: user.token })).status).toBe(200)
      const again = await harness.run(Effect.flatMap(Bootstrap, (b) => b.makeOwner(user.email)))
      expect(again.member.id).toBe(result.member.id)
      expect((await auditOf(harness, "member.add")).filter((row) => row.targetId === user.id)).toEqual([{
        actorId: null,
        actorType: "system",
        organizationId: result.organization.id,
        targetId: user.id,
        metadata: { memberId: result.member.id, role: "owner" }
      }])
    })

    it("makeOwner promotes an operator member to owner", async () => {
      const user = await signUp(harness, "Promoted")
      const owner = await signUp(harness, "Boss")
      const { organization } = await harness.run(Effect.flatMap(Bootstrap, (b) => b.makeOwner(owner.email)))
      const invited = await call(harness, "/api/auth/organization/invite-member", {
        token: owner.token,
        json: { email: user.email, role: "member", organizationId: organization.id }
      })
      await call(harness, "/api/auth/organization/accept-invitation", { token: user.token, json: { invitationId: invited.body.id } })
      const promoted = await harness.run(Effect.flatMap(Bootstrap, (b) => b.makeOwner(user.email)))
      expect(promoted.member).toMatchObject({ userId: user.id, role: "owner" })
      expect((await auditOf(harness, "member.role_change")).at(-1)).toMatchObject({
        actorType: "system",
        targetId: user.id,
        metadata: { from: "member", to: "owner" }
      })
    })

    it("the operator organization cannot be deleted through the plugin", async () => {
      const owner = await signUp(harness, "Keeper")
      const { organization } = await harness.run(Effect.flatMap(Bootstrap, (b) => b.makeOwner(owner.email)))
      expect(await call(harness, "/api/auth/organization/delete", { token: owner.token, json: { organizationId: organization.id } }))
        .toMatchObject({ status: 403, body: { code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION" } })
    })
  })
}
