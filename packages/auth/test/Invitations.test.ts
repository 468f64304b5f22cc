import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  auditOf,
  call,
  createOrganization,
  envelope,
  freshEmail,
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

const HOURS_48 = 48 * 60 * 60 * 1000

const mailTo = (harness: Harness, to: string) =>
  query<{ subject: string; text: string }>(harness, (sql) =>
    sql`SELECT subject, text_body AS text FROM iam.mail_outbox WHERE to_address = ${to} ORDER BY created_at, id`)

for (const driver of TestDatabase.drivers) {
  describe(`invitations on ${driver}`, () => {
    let harness: Harness
    let owner: TestUser
    let admin: TestUser
    let member: TestUser
    let stranger: TestUser
    let org: { id: string; slug: string }
    let other: { id: string; slug: string }

    beforeAll(async () => {
      harness = await makeHarness({ driver })
      ;({ owner, admin, member, stranger, org, other } = await makeTenants(harness))
    })
    afterAll(() => harness.dispose())

    it("POST invitations creates a pending 48-hour invitation and mails it (201)", async () => {
      const email = freshEmail("Guest")
      const before = Date.now()
      const { status, body } = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: admin.token, json: { email } })
      expect(status).toBe(201)
      expect(body).toEqual({
        id: expect.stringMatching(/^inv_/),
        organizationId: org.id,
        email: email.toLowerCase(),
        role: "member",
        status: "pending",
        expiresAt: expect.any(Number),
        inviterId: admin.id,
        createdAt: expect.any(Number)
      })
      expect(body.expiresAt - body.createdAt).toBe(HOURS_48)
      expect(body.createdAt).toBeGreaterThanOrEqual(before)
      const mail = await mailTo(harness, email.toLowerCase())
      expect(mail).toEqual([{ subject: `You are invited to join Org ${org.slug}`, text: expect.stringContaining(`https://core.example.com/accept-invitation/${body.id}`) }])
      expect((await auditOf(harness, "invitation.create")).at(-1)).toEqual({
        actorId: admin.id,
        actorType: "user",
        organizationId: org.id,
        targetId: body.id,
        metadata: { role: "member", email: email.toLowerCase() }
      })
    })

    it("POST invitations: every rule answers 400; members without members:manage 403; other tenants 404", async () => {
      const cases: Array<[unknown, string]> = [
        [{}, "email"],
        [{ email: "not-an-email" }, "email"],
        [{ email: "a@example.com", role: "boss" }, "role"],
        [{ email: "a@example.com", inviterId: "" }, "inviterId"]
      ]
      for (const [json, path] of cases) {
        const { status, body } = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json })
        expect(status).toBe(400)
        expect(body.error.code).toBe("VALIDATION_ERROR")
        expect(body.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual([path])
      }
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: member.token, json: { email: freshEmail() } }))
        .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "You are not allowed to invite users to this organization") })
      expect(await call(harness, `/api/core/organizations/${other.id}/invitations`, { token: owner.token, json: { email: freshEmail() } }))
        .toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Organization not found") })
      expect(await call(harness, `/api/core/organizations/org_missing/invitations`, { token: owner.token, json: { email: freshEmail() } }))
        .toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Organization not found") })
      expect((await call(harness, `/api/core/organizations/${org.id}/invitations`, { json: { email: freshEmail() } })).status).toBe(401)
    })

    it("POST invitations: admins cannot invite owners; members and pending invitees cannot be invited twice", async () => {
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: admin.token, json: { email: freshEmail(), role: "owner" } }))
        .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "You are not allowed to invite a user with this role") })
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email: member.email } }))
        .toMatchObject({ status: 409, body: envelope("CONFLICT", "User is already a member of this organization", { reason: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION" }) })
      const email = freshEmail()
      expect((await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email } })).status).toBe(201)
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email: email.toUpperCase() } }))
        .toMatchObject({ status: 409, body: envelope("CONFLICT", "User is already invited to this organization", { reason: "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION" }) })
    })

    it("POST invitations: the service key invites on behalf of a member named by inviterId", async () => {
      const email = freshEmail()
      const { status, body } = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: STATIC_KEY, json: { email, role: "admin", inviterId: owner.id } })
      expect(status).toBe(201)
      expect(body).toMatchObject({ inviterId: owner.id, role: "admin" })
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: STATIC_KEY, json: { email: freshEmail() } }))
        .toMatchObject({ status: 400, body: envelope("VALIDATION_ERROR", "Invalid request body", { issues: [{ path: "inviterId", message: "Required when the service key invites" }] }) })
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: STATIC_KEY, json: { email: freshEmail(), inviterId: stranger.id } }))
        .toMatchObject({ status: 409, body: { error: { code: "CONFLICT", message: "Inviter is no longer a member of the organization" } } })
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: admin.token, json: { email: freshEmail(), inviterId: owner.id } }))
        .toMatchObject({ status: 400, body: { error: { code: "VALIDATION_ERROR" } } })
    })

    it("GET invitations pages with a cursor (default 50, 1 to 100); non-members 404, no permission 403", async () => {
      const paged = await createOrganization(harness, owner)
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const { body } = await call(harness, `/api/core/organizations/${paged.id}/invitations`, { token: owner.token, json: { email: freshEmail(`p${i}`) } })
        ids.push(body.id)
      }
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const { status, body } = await call(harness, `/api/core/organizations/${paged.id}/invitations?limit=2${cursor === undefined ? "" : `&cursor=${cursor}`}`, { token: owner.token })
        expect(status).toBe(200)
        expect(body.data.length).toBeLessThanOrEqual(2)
        seen.push(...body.data.map((i: { id: string }) => i.id))
        cursor = body.cursor === "" ? undefined : body.cursor
      } while (cursor !== undefined)
      expect(seen).toEqual(ids)
      const all = await call(harness, `/api/core/organizations/${paged.id}/invitations`, { token: owner.token })
      expect(all.body).toEqual({ data: expect.any(Array), cursor: "" })
      expect(all.body.data).toHaveLength(5)
      for (const bad of ["limit=0", "limit=101", "limit=x", "cursor=!!"]) {
        expect((await call(harness, `/api/core/organizations/${paged.id}/invitations?${bad}`, { token: owner.token })).body.error.code)
          .toBe("VALIDATION_ERROR")
      }
      expect(await call(harness, `/api/core/organizations/${paged.id}/invitations`, { token: stranger.token }))
        .toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Organization not found") })
      expect((await call(harness, `/api/core/organizations/${paged.id}/invitations`, { token: member.token })).status).toBe(404)
      const viewer = await signUp(harness, "Viewer")
      await query(harness, (sql) => sql`UPDATE iam.role_mappings SET permissions = '[]'::jsonb WHERE organization_id = ${paged.id} AND role = 'member' RETURNING role`)
      await join(harness, paged.id, owner, viewer, "member")
      expect(await call(harness, `/api/core/organizations/${paged.id}/invitations`, { token: viewer.token }))
        .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "You are not allowed to list invitations for this organization") })
    })

    it("DELETE revokes a pending invitation ({ id }); not pending is 409 INVALID_STATE; another tenant's 404", async () => {
      const { body: created } = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email: freshEmail() } })
      const path = `/api/core/organizations/${org.id}/invitations/${created.id}`
      expect(await call(harness, path, { token: member.token, method: "DELETE" }))
        .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "You are not allowed to cancel this invitation") })
      expect(await call(harness, path, { token: stranger.token, method: "DELETE" }))
        .toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Invitation not found") })
      expect(await call(harness, `/api/core/organizations/${other.id}/invitations/${created.id}`, { token: stranger.token, method: "DELETE" }))
        .toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Invitation not found") })
      expect(await call(harness, path, { token: admin.token, method: "DELETE" })).toMatchObject({ status: 200, body: { id: created.id } })
      expect(await query(harness, (sql) => sql`SELECT status FROM iam.invitations WHERE id = ${created.id}`)).toEqual([{ status: "canceled" }])
      expect(await call(harness, path, { token: admin.token, method: "DELETE" }))
        .toMatchObject({ status: 409, body: envelope("INVALID_STATE", "The invitation is canceled, not pending", { from: "canceled", to: "canceled" }) })
      expect((await auditOf(harness, "invitation.cancel")).map((row) => row.targetId)).toEqual([created.id])
      const listed = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token })
      expect(listed.body.data.find((i: { id: string }) => i.id === created.id).status).toBe("canceled")
    })

    it("expired invitations read as expired, cannot be revoked, accepted or read by their recipient", async () => {
      const guest = await signUp(harness, "Late")
      const { body: created } = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email: guest.email } })
      await query(harness, (sql) => sql`UPDATE iam.invitations SET expires_at = now() - interval '1 minute' WHERE id = ${created.id} RETURNING id`)
      const listed = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token })
      expect(listed.body.data.find((i: { id: string }) => i.id === created.id).status).toBe("expired")
      expect(await call(harness, `/api/core/organizations/${org.id}/invitations/${created.id}`, { token: owner.token, method: "DELETE" }))
        .toMatchObject({ status: 409, body: { error: { code: "INVALID_STATE", details: { from: "expired", to: "canceled" } } } })
      expect(await call(harness, "/api/auth/organization/accept-invitation", { token: guest.token, json: { invitationId: created.id } }))
        .toMatchObject({ status: 404, body: libraryError("INVITATION_NOT_FOUND", "Invitation not found") })
      expect((await call(harness, `/api/auth/organization/get-invitation?id=${created.id}`, { token: guest.token })).status).toBe(404)
      expect((await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email: guest.email } })).status).toBe(201)
    })

    it("plugin: invite, get, accept — the recipient joins with the role and the organization becomes active", async () => {
      const guest = await signUp(harness, "Guest")
      const invited = await call(harness, "/api/auth/organization/invite-member", { token: owner.token, json: { email: guest.email, role: "admin", organizationId: org.id } })
      expect(invited).toMatchObject({ status: 200, body: { organizationId: org.id, email: guest.email, role: "admin", status: "pending", inviterId: owner.id } })
      expect(new Date(invited.body.expiresAt).getTime() - new Date(invited.body.createdAt).getTime()).toBe(HOURS_48)
      expect(await call(harness, `/api/auth/organization/get-invitation?id=${invited.body.id}`, { token: member.token }))
        .toMatchObject({ status: 404, body: libraryError("INVITATION_NOT_FOUND", "Invitation not found") })
      expect(await call(harness, `/api/auth/organization/get-invitation?id=${invited.body.id}`, { token: guest.token }))
        .toMatchObject({ status: 200, body: { id: invited.body.id, organizationName: `Org ${org.slug}`, organizationSlug: org.slug, inviterEmail: owner.email } })
      expect((await call(harness, "/api/auth/organization/accept-invitation", { token: member.token, json: { invitationId: invited.body.id } })).status).toBe(404)
      const accepted = await call(harness, "/api/auth/organization/accept-invitation", { token: guest.token, json: { invitationId: invited.body.id } })
      expect(accepted).toMatchObject({
        status: 200,
        body: { invitation: { id: invited.body.id, status: "accepted" }, member: { organizationId: org.id, userId: guest.id, role: "admin" } }
      })
      expect(await query(harness, (sql) => sql`SELECT role FROM iam.members WHERE organization_id = ${org.id} AND user_id = ${guest.id}`)).toEqual([{ role: "admin" }])
      expect(await query(harness, (sql) => sql`SELECT active_organization_id AS a FROM iam.sessions WHERE user_id = ${guest.id}`)).toEqual([{ a: org.id }])
      expect((await call(harness, "/api/auth/organization/accept-invitation", { token: guest.token, json: { invitationId: invited.body.id } })).status).toBe(404)
      expect((await auditOf(harness, "invitation.accept")).at(-1)).toMatchObject({ actorId: guest.id, targetId: invited.body.id })
    })

    it("plugin: reject, cancel and list; other tenants cannot cancel or list", async () => {
      const guest = await signUp(harness, "Nope")
      const first = await call(harness, "/api/auth/organization/invite-member", { token: owner.token, json: { email: guest.email, role: "member", organizationId: org.id } })
      expect(await call(harness, "/api/auth/organization/reject-invitation", { token: guest.token, json: { invitationId: first.body.id } }))
        .toMatchObject({ status: 200, body: { invitation: { id: first.body.id, status: "rejected" }, member: null } })
      const second = await call(harness, "/api/auth/organization/invite-member", { token: admin.token, json: { email: guest.email, role: "member", organizationId: org.id } })
      expect(second.status).toBe(200)
      expect(await call(harness, "/api/auth/organization/cancel-invitation", { token: stranger.token, json: { invitationId: second.body.id } }))
        .toMatchObject({ status: 404, body: libraryError("INVITATION_NOT_FOUND", "Invitation not found") })
      expect(await call(harness, "/api/auth/organization/cancel-invitation", { token: member.token, json: { invitationId: second.body.id } }))
        .toMatchObject({ status: 403, body: libraryError("YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION", "You are not allowed to cancel this invitation") })
      expect(await call(harness, "/api/auth/organization/cancel-invitation", { token: admin.token, json: { invitationId: second.body.id } }))
        .toMatchObject({ status: 200, body: { id: second.body.id, status: "canceled" } })
      const listed = await call(harness, `/api/auth/organization/list-invitations?organizationId=${org.id}`, { token: owner.token })
      expect(listed.status).toBe(200)
      expect(listed.body.filter((i: { email: string }) => i.email === guest.email).map((i: { status: string }) => i.status)).toEqual(["rejected", "canceled"])
      expect(await call(harness, `/api/auth/organization/list-invitations?organizationId=${org.id}`, { token: stranger.token }))
        .toMatchObject({ status: 404, body: libraryError("ORGANIZATION_NOT_FOUND", "Organization not found") })
      expect(await call(harness, "/api/auth/organization/invite-member", { token: stranger.token, json: { email: freshEmail(), role: "member", organizationId: org.id } }))
        .toMatchObject({ status: 404, body: libraryError("ORGANIZATION_NOT_FOUND", "Organization not found") })
      expect((await call(harness, "/api/auth/organization/invite-member", { token: owner.token, json: { email: "bad", role: "member", organizationId: org.id } })).body.code)
        .toBe("VALIDATION_ERROR")
    })

    it("plugin: resend renews a pending invitation instead of refusing it", async () => {
      const email = freshEmail()
      const first = await call(harness, "/api/auth/organization/invite-member", { token: owner.token, json: { email, role: "member", organizationId: org.id } })
      expect(await call(harness, "/api/auth/organization/invite-member", { token: owner.token, json: { email, role: "member", organizationId: org.id } }))
        .toMatchObject({ status: 400, body: libraryError("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION", "User is already invited to this organization") })
      const resent = await call(harness, "/api/auth/organization/invite-member", { token: owner.token, json: { email, role: "member", organizationId: org.id, resend: true } })
      expect(resent).toMatchObject({ status: 200, body: { id: first.body.id, status: "pending" } })
      expect(await mailTo(harness, email)).toHaveLength(2)
    })

    it("20 parallel invitations of one email (any case) leave one pending row: one 201, nineteen 409 CONFLICT, one mail", async () => {
      const email = freshEmail("Race")
      const spellings = [email, email.toUpperCase(), email.toLowerCase(), `${email[0].toUpperCase()}${email.slice(1)}`]
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
        call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email: spellings[i % spellings.length] } })))
      const created = answers.filter((answer) => answer.status === 201)
      expect(created).toHaveLength(1)
      const losers = answers.filter((answer) => answer.status !== 201)
      expect(losers).toHaveLength(19)
      for (const loser of losers) {
        expect(loser).toMatchObject({
          status: 409,
          body: envelope("CONFLICT", "User is already invited to this organization", { reason: "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION" })
        })
      }
      const rows = await query<{ id: string; status: string }>(harness, (sql) =>
        sql`SELECT id, status FROM iam.invitations WHERE organization_id = ${org.id} AND lower(email) = ${email.toLowerCase()}`)
      expect(rows).toEqual([{ id: created[0].body.id, status: "pending" }])
      expect(await mailTo(harness, email.toLowerCase())).toHaveLength(1)
    })

    it("10 parallel plugin invitations with resend: one pending row, every answer that invitation", async () => {
      const email = freshEmail("Resend")
      const answers = await Promise.all(Array.from({ length: 10 }, () =>
        call(harness, "/api/auth/organization/invite-member", { token: owner.token, json: { email, role: "member", organizationId: org.id, resend: true } })))
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200))
      const rows = await query<{ id: string }>(harness, (sql) =>
        sql`SELECT id FROM iam.invitations WHERE organization_id = ${org.id} AND lower(email) = ${email.toLowerCase()} AND status = 'pending'`)
      expect(rows).toHaveLength(1)
      expect(new Set(answers.map((answer) => answer.body.id))).toEqual(new Set([rows[0].id]))
    })

    it("the database refuses a second pending invitation of one email, whatever its case", async () => {
      const email = freshEmail("Index")
      const first = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email } })
      expect(first.status).toBe(201)
      const inserted = await harness.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.either(sql`INSERT INTO iam.invitations (id, organization_id, email, role, status, inviter_id, expires_at)
          VALUES ('inv_direct_duplicate', ${org.id}, ${email.toUpperCase()}, 'member', 'pending', ${owner.id}, now() + interval '1 day')`)))
      expect(inserted._tag).toBe("Left")
    })

    it("an expired pending invitation does not block a new one; it is stored as expired", async () => {
      const email = freshEmail("Expired")
      const first = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email } })
      await query(harness, (sql) => sql`UPDATE iam.invitations SET expires_at = now() - interval '1 minute' WHERE id = ${first.body.id} RETURNING id`)
      const second = await call(harness, `/api/core/organizations/${org.id}/invitations`, { token: owner.token, json: { email } })
      expect(second).toMatchObject({ status: 201, body: { status: "pending", email: email.toLowerCase() } })
      expect(second.body.id).not.toBe(first.body.id)
      const rows = await query<{ id: string; status: string }>(harness, (sql) =>
        sql`SELECT id, status FROM iam.invitations WHERE organization_id = ${org.id} AND email = ${email.toLowerCase()} ORDER BY created_at, id`)
      expect(rows).toEqual([{ id: first.body.id, status: "expired" }, { id: second.body.id, status: "pending" }])
    })
  })
}
