import * as Node from "@core/http/node"
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from "@core/sdk"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { iamOrganizations } from "../../sdk/src/resources/iam-organizations.js"
import { createTransport } from "../../sdk/src/transport.js"
import { app, freshEmail, freshSlug, PASSWORD, stackLayer, STATIC_KEY } from "./OrganizationsSupport.js"

/** The SDK's organizations resource against the identity routes on a real server (base path ""). */
describe("SDK client.iam organizations", () => {
  const runtime = ManagedRuntime.make(stackLayer())
  let server: Node.Served

  const iam = (token?: string) =>
    iamOrganizations(createTransport({ baseUrl: server.url, retry: 0, ...(token === undefined ? {} : { token }) }), "")

  const signUp = async (name: string) => {
    const email = freshEmail(name.toLowerCase())
    const response = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, email, password: PASSWORD })
    })
    const body = await response.json() as { token: string; user: { id: string } }
    return { id: body.user.id, email, token: body.token }
  }

  beforeAll(async () => {
    server = await Node.serve(app, { layer: Layer.succeedContext((await runtime.runtime()).context) })
  })
  afterAll(async () => {
    await server.close()
    await runtime.dispose()
  })

  it("covers the organization lifecycle and maps better-auth codes onto the SDK's errors", async () => {
    const owner = await signUp("Ann")
    const me = iam(owner.token)
    const slug = freshSlug("sdk")
    expect(await me.organizations.checkSlug(slug)).toEqual({ status: true })
    const created = await me.organizations.create({ name: "SDK", slug })
    expect(created.members[0]).toMatchObject({ userId: owner.id, role: "owner" })
    expect((await me.organizations.list()).map((o) => o.id)).toEqual([created.id])
    expect(await me.organizations.setActive({ organizationId: null })).toBeNull()
    expect(await me.organizations.setActive({ organizationSlug: slug })).toMatchObject({ id: created.id })
    expect(await me.organizations.getFull()).toMatchObject({ id: created.id, members: [{ userId: owner.id }] })
    expect(await me.organizations.update({ organizationId: created.id, data: { name: "Renamed" } })).toMatchObject({ name: "Renamed" })
    const detail = await me.organizations.get(slug)
    expect(detail).toMatchObject({ id: created.id, orgType: "tenant", platformId: expect.stringMatching(/^plt_/) })

    const taken = await me.organizations.create({ name: "Again", slug }).catch((error: unknown) => error)
    expect(taken).toBeInstanceOf(ConflictError)
    expect(taken).toMatchObject({ status: 409, code: "ORGANIZATION_ALREADY_EXISTS", message: "Organization already exists" })
    const invalid = await me.organizations.create({ name: "", slug: "x" }).catch((error: unknown) => error)
    expect(invalid).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "name" }] } })
    const anonymous = await iam().organizations.list().catch((error: unknown) => error)
    expect(anonymous).toBeInstanceOf(UnauthorizedError)

    const stranger = await signUp("Sid")
    const hidden = await iam(stranger.token).organizations.get(slug).catch((error: unknown) => error)
    expect(hidden).toBeInstanceOf(NotFoundError)
    expect(hidden).toMatchObject({ code: "NOT_FOUND", message: "Organization not found", requestId: expect.any(String) })

    expect(await me.organizations.delete(created.id)).toMatchObject({ id: created.id })
  })

  it("sets up with the cookie, creates for an owner and bootstraps with the service key", async () => {
    const owner = await signUp("Cole")
    const slug = freshSlug("setup")
    const refused = await iam(owner.token).organizations.setup({ name: "Setup", slug }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(UnauthorizedError)
    const setUp = await iam().organizations.setup({ name: "Setup", slug }, { headers: { cookie: `core.session_token=${owner.token}` } })
    expect(setUp).toEqual({ orgId: expect.stringMatching(/^org_/), platformId: expect.stringMatching(/^plt_/), slug, name: "Setup" })

    const service = iam(STATIC_KEY)
    const forOwner = await service.organizations.createForOwner({ name: "Owned", slug: freshSlug("owned"), ownerId: owner.id, orgType: "tenant" })
    expect(forOwner.members).toMatchObject([{ userId: owner.id, role: "owner" }])
    const operators = await service.organizations.bootstrap()
    expect(operators).toMatchObject({ slug: "core-operator", orgType: "core-operator" })
    expect(await service.organizations.bootstrap()).toEqual(operators)
    const denied = await iam(owner.token).organizations.bootstrap().catch((error: unknown) => error)
    expect(denied).toBeInstanceOf(ForbiddenError)
  })

  it("covers members and invitations, both plugin and documented, with paging", async () => {
    const owner = await signUp("Dora")
    const guest = await signUp("Eli")
    const admin = iam(owner.token)
    const org = await admin.organizations.create({ name: "Team", slug: freshSlug("team") })

    const invited = await admin.invitations.invite({ email: guest.email, role: "member", organizationId: org.id })
    expect(await admin.invitations.listAll(org.id)).toMatchObject([{ id: invited.id, status: "pending" }])
    expect(await iam(guest.token).invitations.get(invited.id)).toMatchObject({ inviterEmail: owner.email })
    const accepted = await iam(guest.token).invitations.accept(invited.id)
    expect(accepted.member).toMatchObject({ userId: guest.id, role: "member" })
    expect(await iam(guest.token).members.active()).toMatchObject({ userId: guest.id })

    const members = await admin.members.list({ organizationId: org.id })
    expect(members.total).toBe(2)
    const guestMember = members.members.find((m) => m.userId === guest.id)!
    expect(await admin.members.updateRole({ memberId: guestMember.id, role: "admin", organizationId: org.id })).toMatchObject({ role: "admin" })
    expect(await iam(guest.token).members.leave(org.id)).toMatchObject({ userId: guest.id })

    const emails = [0, 1, 2].map((i) => freshEmail(`bulk${i}`))
    for (const email of emails) await admin.invitations.create(org.id, { email })
    const page = await admin.invitations.list(org.id, { limit: 2 })
    expect(page.data).toHaveLength(2)
    expect(page.cursor).not.toBe("")
    const all: Array<string> = []
    for await (const invitation of admin.invitations.all(org.id, { limit: 2 })) all.push(invitation.email)
    expect(all.slice(-3)).toEqual(emails.map((e) => e.toLowerCase()))
    const revoked = await admin.invitations.create(org.id, { email: freshEmail("revoke"), role: "admin" })
    expect(await admin.invitations.revoke(org.id, revoked.id)).toEqual({ id: revoked.id })

    const rejected = await admin.invitations.invite({ email: guest.email, role: "member", organizationId: org.id })
    expect(await iam(guest.token).invitations.reject(rejected.id)).toMatchObject({ invitation: { status: "rejected" }, member: null })
    const canceled = await admin.invitations.invite({ email: guest.email, role: "member", organizationId: org.id })
    expect(await admin.invitations.cancel(canceled.id)).toMatchObject({ status: "canceled" })

    const third = await signUp("Fay")
    await admin.invitations.invite({ email: third.email, role: "member", organizationId: org.id }).then((i) => iam(third.token).invitations.accept(i.id))
    const thirdMember = (await admin.members.list({ organizationId: org.id })).members.find((m) => m.userId === third.id)!
    expect(await admin.members.remove({ memberIdOrEmail: thirdMember.id, organizationId: org.id })).toMatchObject({ member: { userId: third.id } })
  })
})
