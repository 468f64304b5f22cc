import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  auditOf,
  call,
  type Harness,
  join,
  libraryError,
  makeHarness,
  makeTenants,
  query,
  signUp,
  type TestUser
} from "./OrganizationsSupport.js"

const notFound = libraryError("ORGANIZATION_NOT_FOUND", "Organization not found")

const roleOf = async (harness: Harness, organizationId: string, user: TestUser) =>
  (await query<{ role: string }>(harness, (sql) =>
    sql`SELECT role FROM iam.members WHERE organization_id = ${organizationId} AND user_id = ${user.id}`))[0]?.role

for (const driver of TestDatabase.drivers) {
  describe(`member routes on ${driver}`, () => {
    let harness: Harness
    let owner: TestUser
    let admin: TestUser
    let member: TestUser
    let stranger: TestUser
    let org: { id: string; slug: string }
    let other: { id: string; slug: string }
    let memberId: string

    beforeAll(async () => {
      harness = await makeHarness({ driver })
      ;({ owner, admin, member, stranger, org, other, memberId } = await makeTenants(harness))
    })
    afterAll(() => harness.dispose())

    it("list-members answers members with users and the total, on GET and POST, paged", async () => {
      const get = await call(harness, `/api/auth/organization/list-members?organizationId=${org.id}`, { token: member.token })
      const post = await call(harness, "/api/auth/organization/list-members", { token: member.token, json: { organizationSlug: org.slug } })
      for (const { status, body } of [get, post]) {
        expect(status).toBe(200)
        expect(body.total).toBe(3)
        expect(body.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
          [owner.id, "owner"],
          [admin.id, "admin"],
          [member.id, "member"]
        ])
        expect(body.members[2]).toEqual({
          id: memberId,
          organizationId: org.id,
          userId: member.id,
          role: "member",
          createdAt: expect.any(String),
          user: { id: member.id, name: "Member", email: member.email, image: null }
        })
      }
      const paged = await call(harness, `/api/auth/organization/list-members?organizationId=${org.id}&limit=1&offset=1`, { token: member.token })
      expect(paged.body).toMatchObject({ total: 3, members: [{ userId: admin.id }] })
      expect((await call(harness, `/api/auth/organization/list-members?organizationId=${org.id}&limit=0`, { token: member.token })).status).toBe(400)
    })

    it("list-members: non-members get 404 (another tenant is never revealed), no session 401", async () => {
      for (const path of [`?organizationId=${other.id}`, `?organizationSlug=${other.slug}`, "?organizationId=org_missing"]) {
        expect(await call(harness, `/api/auth/organization/list-members${path}`, { token: member.token }))
          .toMatchObject({ status: 404, body: notFound })
      }
      expect((await call(harness, `/api/auth/organization/list-members?organizationId=${org.id}`)).status).toBe(401)
    })

    it("get-active-member answers the caller's membership in the active organization", async () => {
      await call(harness, "/api/auth/organization/set-active", { token: member.token, json: { organizationId: org.id } })
      expect(await call(harness, "/api/auth/organization/get-active-member", { token: member.token }))
        .toMatchObject({ status: 200, body: { id: memberId, userId: member.id, role: "member" } })
    })

    it("update-member-role needs members:manage; only owners touch owners; never the last owner", async () => {
      expect(await call(harness, "/api/auth/organization/update-member-role", { token: member.token, json: { memberId, role: "admin", organizationId: org.id } }))
        .toMatchObject({ status: 403, body: libraryError("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER", "You are not allowed to update this member") })
      expect(await call(harness, "/api/auth/organization/update-member-role", { token: admin.token, json: { memberId, role: "owner", organizationId: org.id } }))
        .toMatchObject({ status: 403, body: libraryError("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER", "You are not allowed to update this member") })
      const promoted = await call(harness, "/api/auth/organization/update-member-role", { token: admin.token, json: { memberId, role: "admin", organizationId: org.id } })
      expect(promoted).toMatchObject({ status: 200, body: { id: memberId, role: "admin", user: { email: member.email } } })
      expect(await roleOf(harness, org.id, member)).toBe("admin")
      expect((await auditOf(harness, "member.role_change")).at(-1)).toEqual({
        actorId: admin.id,
        actorType: "user",
        organizationId: org.id,
        targetId: member.id,
        metadata: { memberId, from: "member", to: "admin" }
      })
      const ownerMember = (await query<{ id: string }>(harness, (sql) =>
        sql`SELECT id FROM iam.members WHERE organization_id = ${org.id} AND user_id = ${owner.id}`))[0].id
      expect(await call(harness, "/api/auth/organization/update-member-role", { token: owner.token, json: { memberId: ownerMember, role: "member", organizationId: org.id } }))
        .toMatchObject({ status: 400, body: libraryError("YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER", "You cannot leave the organization without an owner") })
      expect(await roleOf(harness, org.id, owner)).toBe("owner")
      expect((await call(harness, "/api/auth/organization/update-member-role", { token: owner.token, json: { memberId, role: "boss", organizationId: org.id } })).status)
        .toBe(400)
      await call(harness, "/api/auth/organization/update-member-role", { token: owner.token, json: { memberId, role: "member", organizationId: org.id } })
    })

    it("update-member-role and remove-member: another tenant's member or organization is not found", async () => {
      const foreignMember = (await query<{ id: string }>(harness, (sql) =>
        sql`SELECT id FROM iam.members WHERE organization_id = ${other.id}`))[0].id
      expect(await call(harness, "/api/auth/organization/update-member-role", { token: owner.token, json: { memberId: foreignMember, role: "member", organizationId: org.id } }))
        .toMatchObject({ status: 404, body: libraryError("MEMBER_NOT_FOUND", "Member not found") })
      expect(await call(harness, "/api/auth/organization/update-member-role", { token: owner.token, json: { memberId: foreignMember, role: "member", organizationId: other.id } }))
        .toMatchObject({ status: 404, body: notFound })
      expect(await call(harness, "/api/auth/organization/remove-member", { token: owner.token, json: { memberIdOrEmail: stranger.email, organizationId: other.id } }))
        .toMatchObject({ status: 404, body: notFound })
      expect(await call(harness, "/api/auth/organization/remove-member", { token: owner.token, json: { memberIdOrEmail: foreignMember, organizationId: org.id } }))
        .toMatchObject({ status: 404, body: libraryError("MEMBER_NOT_FOUND", "Member not found") })
      expect(await roleOf(harness, other.id, stranger)).toBe("owner")
    })

    it("remove-member needs members:manage, by id or email; the owner cannot be removed by an admin nor as the last one", async () => {
      const extra = await signUp(harness, "Extra")
      const extraId = (await join(harness, org.id, owner, extra, "member")).id
      expect(await call(harness, "/api/auth/organization/remove-member", { token: member.token, json: { memberIdOrEmail: extra.email, organizationId: org.id } }))
        .toMatchObject({ status: 403, body: libraryError("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER", "You are not allowed to delete this member") })
      expect(await call(harness, "/api/auth/organization/remove-member", { token: admin.token, json: { memberIdOrEmail: owner.email, organizationId: org.id } }))
        .toMatchObject({ status: 403, body: libraryError("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER", "You are not allowed to delete this member") })
      expect(await call(harness, "/api/auth/organization/remove-member", { token: owner.token, json: { memberIdOrEmail: owner.email, organizationId: org.id } }))
        .toMatchObject({
          status: 400,
          body: libraryError("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER", "You cannot leave the organization as the only owner")
        })
      await call(harness, "/api/auth/organization/set-active", { token: extra.token, json: { organizationId: org.id } })
      const removed = await call(harness, "/api/auth/organization/remove-member", { token: admin.token, json: { memberIdOrEmail: extraId, organizationId: org.id } })
      expect(removed).toEqual(expect.objectContaining({
        status: 200,
        body: { member: { id: extraId, organizationId: org.id, userId: extra.id, role: "member", createdAt: expect.any(String) } }
      }))
      expect(await roleOf(harness, org.id, extra)).toBeUndefined()
      expect(await query(harness, (sql) => sql`SELECT active_organization_id AS a FROM iam.sessions WHERE user_id = ${extra.id}`))
        .toEqual([{ a: null }])
      expect((await auditOf(harness, "member.remove")).at(-1)).toMatchObject({ actorId: admin.id, targetId: extra.id })
      expect((await call(harness, `/api/auth/organization/list-members?organizationId=${org.id}`, { token: extra.token })).status).toBe(404)
    })

    it("leave: members leave; the only owner cannot; a second owner lets the first go", async () => {
      const leaver = await signUp(harness, "Leaver")
      await join(harness, org.id, owner, leaver, "member")
      expect(await call(harness, "/api/auth/organization/leave", { token: leaver.token, json: { organizationId: org.id } }))
        .toMatchObject({ status: 200, body: { userId: leaver.id, role: "member" } })
      expect(await roleOf(harness, org.id, leaver)).toBeUndefined()
      expect(await call(harness, "/api/auth/organization/leave", { token: leaver.token, json: { organizationId: org.id } }))
        .toMatchObject({ status: 404, body: notFound })
      expect(await call(harness, "/api/auth/organization/leave", { token: owner.token, json: { organizationId: org.id } }))
        .toMatchObject({
          status: 400,
          body: libraryError("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER", "You cannot leave the organization as the only owner")
        })
      const heir = await signUp(harness, "Heir")
      await join(harness, org.id, owner, heir, "owner")
      expect((await call(harness, "/api/auth/organization/leave", { token: owner.token, json: { organizationId: org.id } })).status).toBe(200)
      expect(await roleOf(harness, org.id, owner)).toBeUndefined()
      expect((await auditOf(harness, "member.leave")).map((row) => row.actorId)).toEqual([leaver.id, owner.id])
      expect((await call(harness, "/api/auth/organization/leave", { token: owner.token, json: {} })).status).toBe(400)
    })
  })
}
