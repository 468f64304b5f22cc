import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  auditOf,
  call,
  createApiKey,
  createOrganization,
  envelope,
  freshEmail,
  type Harness,
  join,
  libraryError,
  makeHarness,
  makeTenants,
  signUp
} from "./OrganizationsSupport.js"

/**
 * API keys on the organization routes (issue: after `core login --token core_…`, `core orgs list`
 * and `core members list` answered 401). A key sees its own organization, and reads and writes in
 * it with exactly its own permissions; another organization is not found, a missing permission is
 * 403, and the routes about a person's own session stay user-only (docs/decisions/0172).
 */
let h: Harness
let tenants: Awaited<ReturnType<typeof makeTenants>>
let reader: string
let manager: string
let bare: string
let foreign: string

const asKey = (key: string, path: string, json?: unknown, method?: string) =>
  call(h, path, { apiKey: key, ...(json === undefined ? {} : { json }), ...(method === undefined ? {} : { method }) })

const notFound = libraryError("ORGANIZATION_NOT_FOUND", "Organization not found")

beforeAll(async () => {
  h = await makeHarness()
  tenants = await makeTenants(h)
  const { owner, stranger, org, other } = tenants
  reader = (await createApiKey(h, owner, org.id, ["org:read", "members:read"])).key
  manager = (await createApiKey(h, owner, org.id, ["org:read", "org:update", "members:read", "members:manage"])).key
  bare = (await createApiKey(h, owner, org.id, [])).key
  foreign = (await createApiKey(h, stranger, other.id, ["org:read", "members:*"])).key
})
afterAll(() => h.dispose())

describe("API keys on the better-auth organization routes", () => {
  it("list answers the key's own organization on GET and POST, whatever its permissions", async () => {
    const { org, other } = tenants
    for (const method of ["GET", "POST"]) {
      for (const key of [reader, bare]) {
        const { status, body } = await asKey(key, "/api/auth/organization/list", undefined, method)
        expect(status).toBe(200)
        expect(body).toEqual([{ id: org.id, name: `Org ${org.slug}`, slug: org.slug, logo: null, metadata: null, createdAt: expect.any(String) }])
      }
    }
    expect((await asKey(foreign, "/api/auth/organization/list")).body.map((o: { id: string }) => o.id)).toEqual([other.id])
  })

  it("get-full-organization and list-members read the key's organization (org:read, members:read)", async () => {
    const { owner, admin, member, org, other } = tenants
    const full = await asKey(reader, "/api/auth/organization/get-full-organization")
    expect(full.status).toBe(200)
    expect(full.body).toMatchObject({ id: org.id, slug: org.slug, invitations: expect.any(Array) })
    expect(full.body.members.map((m: { userId: string }) => m.userId)).toEqual([owner.id, admin.id, member.id])
    expect((await asKey(reader, "/api/auth/organization/get-full-organization", { organizationSlug: org.slug })).body.id).toBe(org.id)
    const members = await asKey(reader, "/api/auth/organization/list-members")
    expect(members).toMatchObject({ status: 200, body: { total: 3 } })
    expect((await asKey(reader, "/api/auth/organization/list-members", { limit: 1 })).body.members).toHaveLength(1)
    for (const path of ["get-full-organization", "list-members"]) {
      expect(await asKey(reader, `/api/auth/organization/${path}?organizationId=${other.id}`)).toMatchObject({ status: 404, body: notFound })
      expect(await asKey(reader, `/api/auth/organization/${path}?organizationSlug=${other.slug}`)).toMatchObject({ status: 404, body: notFound })
      expect(await asKey(bare, `/api/auth/organization/${path}`)).toMatchObject({
        status: 403,
        body: libraryError("YOU_ARE_NOT_ALLOWED_TO_READ_THIS_ORGANIZATION", "You are not allowed to read this organization")
      })
    }
  })

  it("invites (on behalf of its creator), lists and cancels invitations with members:manage / members:read", async () => {
    const { owner, org, other } = tenants
    const email = freshEmail("keyed")
    const invited = await asKey(manager, "/api/auth/organization/invite-member", { email, role: "member" })
    expect(invited).toMatchObject({ status: 200, body: { organizationId: org.id, email, role: "member", inviterId: owner.id, status: "pending" } })
    expect((await auditOf(h, "invitation.create")).find((row) => row.targetId === invited.body.id)).toMatchObject({ actorType: "apikey" })
    expect(await asKey(manager, "/api/auth/organization/invite-member", { email: freshEmail(), role: "owner" })).toMatchObject({
      status: 403,
      body: libraryError("YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE", "You are not allowed to invite a user with this role")
    })
    expect((await asKey(reader, "/api/auth/organization/invite-member", { email: freshEmail(), role: "member" })).status).toBe(403)
    expect(await asKey(manager, "/api/auth/organization/invite-member", { email: freshEmail(), role: "member", organizationId: other.id }))
      .toMatchObject({ status: 404, body: notFound })

    for (const listed of [await asKey(reader, "/api/auth/organization/list-invitations"), await asKey(reader, "/api/auth/organization/list-invitations", {})]) {
      expect(listed.status).toBe(200)
      expect(listed.body.map((i: { id: string }) => i.id)).toContain(invited.body.id)
    }
    expect((await asKey(reader, `/api/auth/organization/list-invitations?organizationId=${other.id}`)).status).toBe(404)
    expect((await asKey(bare, "/api/auth/organization/list-invitations")).body.code).toBe("YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS")

    const cancel = { invitationId: invited.body.id }
    expect((await asKey(foreign, "/api/auth/organization/cancel-invitation", cancel)).body)
      .toEqual(libraryError("INVITATION_NOT_FOUND", "Invitation not found"))
    expect((await asKey(reader, "/api/auth/organization/cancel-invitation", cancel)).status).toBe(403)
    expect(await asKey(manager, "/api/auth/organization/cancel-invitation", cancel))
      .toMatchObject({ status: 200, body: { id: invited.body.id, status: "canceled" } })
  })

  it("updates the organization with org:update, and changes and removes members with members:manage (never owners)", async () => {
    const { owner, org, other } = tenants
    expect(await asKey(manager, "/api/auth/organization/update", { data: { name: "Keyed" } }))
      .toMatchObject({ status: 200, body: { id: org.id, name: "Keyed" } })
    expect((await asKey(reader, "/api/auth/organization/update", { data: { name: "No" } })).status).toBe(403)
    expect(await asKey(manager, "/api/auth/organization/update", { organizationId: other.id, data: { name: "No" } }))
      .toMatchObject({ status: 404, body: notFound })
    expect((await auditOf(h, "org.update")).at(-1)).toMatchObject({ actorType: "apikey", organizationId: org.id })

    const extra = await signUp(h, "Extra")
    const extraId = (await join(h, org.id, owner, extra, "member")).id
    expect(await asKey(manager, "/api/auth/organization/update-member-role", { memberId: extraId, role: "admin" }))
      .toMatchObject({ status: 200, body: { id: extraId, role: "admin" } })
    expect((await asKey(reader, "/api/auth/organization/update-member-role", { memberId: extraId, role: "member" })).status).toBe(403)
    expect((await asKey(foreign, "/api/auth/organization/update-member-role", { memberId: extraId, role: "member" })).body.code)
      .toBe("MEMBER_NOT_FOUND")
    expect((await asKey(manager, "/api/auth/organization/remove-member", { memberIdOrEmail: owner.email })).body.code)
      .toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER")
    expect(await asKey(manager, "/api/auth/organization/remove-member", { memberIdOrEmail: extra.email }))
      .toMatchObject({ status: 200, body: { member: { id: extraId, userId: extra.id } } })
    expect((await auditOf(h, "member.remove")).at(-1)).toMatchObject({ actorType: "apikey", targetId: extra.id })
  })

  it("deletes its organization only with org:delete", async () => {
    const { owner, org } = tenants
    const doomed = await createOrganization(h, owner)
    const deleter = (await createApiKey(h, owner, doomed.id, ["org:delete"])).key
    expect((await asKey(manager, "/api/auth/organization/delete", { organizationId: org.id })).status).toBe(403)
    expect(await asKey(manager, "/api/auth/organization/delete", { organizationId: doomed.id })).toMatchObject({ status: 404, body: notFound })
    expect(await asKey(deleter, "/api/auth/organization/delete", { organizationId: doomed.id }))
      .toMatchObject({ status: 200, body: { id: doomed.id } })
  })

  it("answers 401 on the routes about a person's own session", async () => {
    const { org } = tenants
    const personal: Array<[string, unknown]> = [
      ["create", { name: "Keyed", slug: "keyed-org" }],
      ["set-active", { organizationId: org.id }],
      ["check-slug", { slug: "keyed-org" }],
      ["leave", { organizationId: org.id }],
      ["accept-invitation", { invitationId: "inv_x" }],
      ["reject-invitation", { invitationId: "inv_x" }],
      ["get-invitation", { id: "inv_x" }]
    ]
    for (const [path, json] of personal) {
      expect(await asKey(manager, `/api/auth/organization/${path}`, json), path)
        .toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } })
    }
    expect((await asKey(manager, "/api/auth/organization/get-active-member")).status).toBe(401)
  })
})

describe("API keys on the documented organization routes", () => {
  it("GET /api/core/organizations/{slug} answers the key's own organization with org:read", async () => {
    const { org, other } = tenants
    expect(await asKey(reader, `/api/core/organizations/${org.slug}`)).toMatchObject({ status: 200, body: { id: org.id, platformId: org.platformId } })
    expect(await asKey(reader, `/api/core/organizations/${other.slug}`)).toMatchObject({ status: 404, body: envelope("NOT_FOUND", "Organization not found") })
    expect(await asKey(bare, `/api/core/organizations/${org.slug}`))
      .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "You are not allowed to read this organization") })
  })

  it("lists, creates and revokes invitations with members:read / members:manage", async () => {
    const { owner, stranger, org, other } = tenants
    const path = `/api/core/organizations/${org.id}/invitations`
    const email = freshEmail("core-keyed")
    const created = await asKey(manager, path, { email })
    expect(created).toMatchObject({ status: 201, body: { email, role: "member", inviterId: owner.id, status: "pending" } })
    expect(await asKey(manager, path, { email: freshEmail(), inviterId: stranger.id })).toMatchObject({
      status: 409,
      body: envelope("CONFLICT", "Inviter is no longer a member of the organization", { reason: "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION" })
    })
    expect((await asKey(reader, path, { email: freshEmail() })).status).toBe(403)
    expect((await asKey(manager, `/api/core/organizations/${other.id}/invitations`, { email: freshEmail() })).status).toBe(404)

    const listed = await asKey(reader, path)
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((i: { id: string }) => i.id)).toContain(created.body.id)
    expect((await asKey(bare, path)).body).toEqual(envelope("FORBIDDEN", "You are not allowed to list invitations for this organization"))
    expect((await asKey(reader, `/api/core/organizations/${other.id}/invitations`)).status).toBe(404)

    const revoke = `${path}/${created.body.id}`
    expect((await asKey(reader, revoke, undefined, "DELETE")).status).toBe(403)
    expect((await asKey(foreign, `/api/core/organizations/${other.id}/invitations/${created.body.id}`, undefined, "DELETE")).status).toBe(404)
    expect(await asKey(manager, revoke, undefined, "DELETE")).toMatchObject({ status: 200, body: { id: created.body.id } })
  })

  it("cannot create organizations or bootstrap (403: authenticated, not an operator), nor set one up (401: the cookie only)", async () => {
    const { owner } = tenants
    const all = (await createApiKey(h, owner, tenants.org.id, ["*"])).key
    expect(await asKey(all, "/api/core/organizations", { name: "K", slug: "keyed-op", ownerId: owner.id }))
      .toMatchObject({ status: 403, body: envelope("FORBIDDEN", "This action needs the operator role or the service key") })
    expect((await asKey(all, "/api/core/bootstrap", undefined, "POST")).status).toBe(403)
    expect((await asKey(all, "/api/core/org-setup", { name: "K", slug: "keyed-setup" })).status).toBe(401)
  })
})
