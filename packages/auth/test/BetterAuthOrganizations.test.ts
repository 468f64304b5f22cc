import * as Node from "@core/http/node"
import { TestDatabase } from "@core/kernel/testing"
import { createAuthClient } from "better-auth/client"
import { organizationClient } from "better-auth/client/plugins"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { app, freshEmail, freshSlug, PASSWORD, stackLayer } from "./OrganizationsSupport.js"

/**
 * better-auth's own client with its organization plugin against the organization routes served by
 * a real Node server on 127.0.0.1. Each client keeps its session token as a bearer (read from
 * `set-auth-token`, as better-auth's bearer plugin documents; Node has no cookie jar).
 */
for (const driver of TestDatabase.drivers) {
  describe(`better-auth organization client on ${driver}`, () => {
    const runtime = ManagedRuntime.make(stackLayer({ driver }))
    let server: Node.Served

    const signedUpClient = async (name: string) => {
      let bearer: string | undefined
      const auth = createAuthClient({
        baseURL: server.url,
        plugins: [organizationClient()],
        fetchOptions: {
          auth: { type: "Bearer", token: () => bearer },
          onSuccess: (context) => {
            const token = context.response.headers.get("set-auth-token")
            if (token !== null) bearer = token
          }
        }
      })
      const email = freshEmail(name.toLowerCase())
      const signedUp = await auth.signUp.email({ name, email, password: PASSWORD })
      expect(signedUp.error).toBeNull()
      return { auth, email, id: signedUp.data!.user.id }
    }

    beforeAll(async () => {
      const context = (await runtime.runtime()).context
      server = await Node.serve(app, { layer: Layer.succeedContext(context) })
    })
    afterAll(async () => {
      await server.close()
      await runtime.dispose()
    })

    it("creates, lists, activates, reads, updates and deletes an organization", async () => {
      const { auth, id } = await signedUpClient("Olive")
      const slug = freshSlug("client")
      expect((await auth.organization.checkSlug({ slug })).data).toEqual({ status: true })
      const created = await auth.organization.create({ name: "Client Org", slug })
      expect(created.error).toBeNull()
      expect(created.data).toMatchObject({ name: "Client Org", slug, members: [{ userId: id, role: "owner" }] })
      const orgId = created.data!.id

      const checked = await auth.organization.checkSlug({ slug })
      expect(checked.error).toMatchObject({ status: 400, code: "ORGANIZATION_SLUG_ALREADY_TAKEN" })

      const listed = await auth.organization.list()
      expect(listed.error).toBeNull()
      expect(listed.data?.map((o) => o.id)).toEqual([orgId])

      expect((await auth.organization.setActive({ organizationId: null })).data).toBeNull()
      expect((await auth.getSession()).data?.session.activeOrganizationId).toBeNull()
      const active = await auth.organization.setActive({ organizationSlug: slug })
      expect(active.data).toMatchObject({ id: orgId })
      expect((await auth.getSession()).data?.session.activeOrganizationId).toBe(orgId)

      const full = await auth.organization.getFullOrganization()
      expect(full.error).toBeNull()
      expect(full.data).toMatchObject({ id: orgId, members: [{ userId: id, role: "owner", user: { id } }], invitations: [] })

      const updated = await auth.organization.update({ organizationId: orgId, data: { name: "Renamed" } })
      expect(updated.data).toMatchObject({ id: orgId, name: "Renamed" })

      const duplicate = await auth.organization.create({ name: "Again", slug })
      expect(duplicate.error).toMatchObject({ status: 409, code: "ORGANIZATION_ALREADY_EXISTS", message: "Organization already exists" })

      const deleted = await auth.organization.delete({ organizationId: orgId })
      expect(deleted.error).toBeNull()
      expect((await auth.organization.list()).data).toEqual([])
    })

    it("invites, accepts, lists and changes members, and refuses the only owner's leave", async () => {
      const owner = await signedUpClient("Owen")
      const guest = await signedUpClient("Gina")
      const created = await owner.auth.organization.create({ name: "Team", slug: freshSlug("team") })
      const orgId = created.data!.id

      const invited = await owner.auth.organization.inviteMember({ email: guest.email, role: "member", organizationId: orgId })
      expect(invited.error).toBeNull()
      expect(invited.data).toMatchObject({ email: guest.email, role: "member", status: "pending", organizationId: orgId })

      const listedInvitations = await owner.auth.organization.listInvitations({ query: { organizationId: orgId } })
      expect(listedInvitations.data?.map((i) => i.id)).toEqual([invited.data!.id])

      const seen = await guest.auth.organization.getInvitation({ query: { id: invited.data!.id } })
      expect(seen.data).toMatchObject({ organizationId: orgId, inviterEmail: owner.email })

      const accepted = await guest.auth.organization.acceptInvitation({ invitationId: invited.data!.id })
      expect(accepted.error).toBeNull()
      expect(accepted.data).toMatchObject({ invitation: { status: "accepted" }, member: { userId: guest.id, role: "member" } })

      const members = await guest.auth.organization.listMembers({ query: { organizationId: orgId } })
      expect(members.data?.total).toBe(2)
      const guestMember = members.data!.members.find((m) => m.userId === guest.id)!

      const denied = await guest.auth.organization.removeMember({ memberIdOrEmail: owner.email, organizationId: orgId })
      expect(denied.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER" })

      const promoted = await owner.auth.organization.updateMemberRole({ memberId: guestMember.id, role: "admin", organizationId: orgId })
      expect(promoted.data).toMatchObject({ id: guestMember.id, role: "admin" })

      const onlyOwner = await owner.auth.organization.leave({ organizationId: orgId })
      expect(onlyOwner.error).toMatchObject({ status: 400, code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER" })

      const left = await guest.auth.organization.leave({ organizationId: orgId })
      expect(left.error).toBeNull()
      const after = await owner.auth.organization.listMembers({ query: { organizationId: orgId } })
      expect(after.data?.members.map((m) => m.userId)).toEqual([owner.id])
    })

    it("rejects and cancels invitations; another tenant sees nothing", async () => {
      const owner = await signedUpClient("Rita")
      const guest = await signedUpClient("Sam")
      const outsider = await signedUpClient("Otto")
      const orgId = (await owner.auth.organization.create({ name: "Closed", slug: freshSlug("closed") })).data!.id

      const first = await owner.auth.organization.inviteMember({ email: guest.email, role: "member", organizationId: orgId })
      const rejected = await guest.auth.organization.rejectInvitation({ invitationId: first.data!.id })
      expect(rejected.data).toMatchObject({ invitation: { status: "rejected" }, member: null })

      const second = await owner.auth.organization.inviteMember({ email: guest.email, role: "member", organizationId: orgId })
      const foreignCancel = await outsider.auth.organization.cancelInvitation({ invitationId: second.data!.id })
      expect(foreignCancel.error).toMatchObject({ status: 404, code: "INVITATION_NOT_FOUND" })
      const canceled = await owner.auth.organization.cancelInvitation({ invitationId: second.data!.id })
      expect(canceled.data).toMatchObject({ status: "canceled" })

      const foreignFull = await outsider.auth.organization.getFullOrganization({ query: { organizationId: orgId } })
      expect(foreignFull.error).toMatchObject({ status: 404, code: "ORGANIZATION_NOT_FOUND" })
      const foreignMembers = await outsider.auth.organization.listMembers({ query: { organizationId: orgId } })
      expect(foreignMembers.error).toMatchObject({ status: 404, code: "ORGANIZATION_NOT_FOUND" })
      const foreignActive = await outsider.auth.organization.setActive({ organizationId: orgId })
      expect(foreignActive.error).toMatchObject({ status: 404, code: "ORGANIZATION_NOT_FOUND" })
    })
  })
}
