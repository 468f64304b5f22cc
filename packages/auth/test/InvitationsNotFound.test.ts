import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshEmail, type Harness, libraryError, makeHarness, makeTenants, query, type TestUser } from "./OrganizationsSupport.js"

/**
 * Issue 27 (security): an invitation id of another organization answered 403 "You are not the
 * recipient of the invitation", which told that it exists. Every invitation route taking an id
 * answers it exactly as an id that names nothing: 404, the same body (decision 0562).
 */
const NOTHING = `inv_${"0".repeat(25)}Z`

/** A body without its request id (the envelope's only part that differs between two answers). */
const withoutRequestId = (body: any) =>
  body?.error === undefined ? body : { ...body, error: { ...body.error, requestId: "<request id>" } }

for (const driver of TestDatabase.drivers) {
  describe(`invitation ids that are not the caller's, on ${driver}`, () => {
    let harness: Harness
    let owner: TestUser
    let member: TestUser
    let stranger: TestUser
    let org: { id: string }
    let other: { id: string }
    let invitationId: string

    beforeAll(async () => {
      harness = await makeHarness({ driver })
      ;({ owner, member, stranger, org, other } = await makeTenants(harness))
      const invited = await call(harness, `/api/core/organizations/${org.id}/invitations`, {
        token: owner.token,
        json: { email: freshEmail("Guest") }
      })
      expect(invited.status).toBe(201)
      invitationId = invited.body.id
    })
    afterAll(() => harness.dispose())

    /** Every route that takes an invitation id, as `who` calls it with `id`. */
    const routes = (who: TestUser, id: string): ReadonlyArray<[string, () => ReturnType<typeof call>]> => [
      ["GET get-invitation", () => call(harness, `/api/auth/organization/get-invitation?id=${id}`, { token: who.token })],
      ["POST get-invitation", () => call(harness, "/api/auth/organization/get-invitation", { token: who.token, json: { id } })],
      ["accept-invitation", () => call(harness, "/api/auth/organization/accept-invitation", { token: who.token, json: { invitationId: id } })],
      ["reject-invitation", () => call(harness, "/api/auth/organization/reject-invitation", { token: who.token, json: { invitationId: id } })],
      ["cancel-invitation", () => call(harness, "/api/auth/organization/cancel-invitation", { token: who.token, json: { invitationId: id } })],
      ["DELETE in the caller's organization", () =>
        call(harness, `/api/core/organizations/${other.id}/invitations/${id}`, { token: who.token, method: "DELETE" })]
    ]

    it("answers another organization's invitation id exactly as an id that names nothing (404)", async () => {
      const theirs = routes(stranger, invitationId)
      const nothing = routes(stranger, NOTHING)
      for (let i = 0; i < theirs.length; i++) {
        const [name, send] = theirs[i]!
        const refused = await send()
        const unknown = await nothing[i]![1]()
        expect(refused.status, name).toBe(404)
        expect([refused.status, withoutRequestId(refused.body)], name).toEqual([unknown.status, withoutRequestId(unknown.body)])
        if (refused.body.error === undefined) expect(refused.body, name).toEqual(libraryError("INVITATION_NOT_FOUND", "Invitation not found"))
        else expect(refused.body.error, name).toMatchObject({ code: "NOT_FOUND", details: null })
      }
    })

    it("answers a member of the organization who is not the recipient 404 too, where the route is the recipient's", async () => {
      for (const path of ["get-invitation", "accept-invitation", "reject-invitation"] as const) {
        const json = path === "get-invitation" ? { id: invitationId } : { invitationId }
        const refused = await call(harness, `/api/auth/organization/${path}`, { token: member.token, json })
        const unknown = await call(harness, `/api/auth/organization/${path}`, {
          token: member.token,
          json: path === "get-invitation" ? { id: NOTHING } : { invitationId: NOTHING }
        })
        expect([refused.status, refused.body], path).toEqual([404, libraryError("INVITATION_NOT_FOUND", "Invitation not found")])
        expect(unknown.body, path).toEqual(refused.body)
      }
    })

    it("leaves the invitation as it was: still pending, nothing audited for the refused calls", async () => {
      expect(await query(harness, (sql) => sql`SELECT status FROM iam.invitations WHERE id = ${invitationId}`)).toEqual([{ status: "pending" }])
      const audited = await query<{ action: string }>(harness, (sql) =>
        sql`SELECT action FROM iam.audit_log WHERE target_id = ${invitationId} ORDER BY occurred_at, id`)
      expect(audited.map((row) => row.action)).toEqual(["invitation.create"])
    })
  })
}
