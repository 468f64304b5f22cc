import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, it } from "vitest"
import { call, type Tenant, tenantOf } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * The identity attacks of the security review (decisions 0555–0562), as an attacker sends them: the real
 * all-in-one server, its gateway at `/api/v1`, real sessions and real API keys.
 * - keys minted by a key outlived it (decision 0560);
 * - the owner of a suspended platform created a new organization with a new active platform (0561);
 * - another organization's invitation id answered 403 "You are not the recipient" (0562).
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY
const operator = { authorization: `Bearer ${STATIC_KEY}` }

/** A body without its request id, the only part two answers to the same refusal may differ in. */
const withoutRequestId = (body: any) =>
  body?.error === undefined ? body : { ...body, error: { ...body.error, requestId: "<request id>" } }

for (const driver of TestDatabase.drivers) {
  describe(`identity attacks through the gateway, on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })
    const iam = (path: string) => `/api/v1/iam${path}`

    it("refuses every key a key created, at any depth, as soon as that key is revoked", async () => {
      const owner = await tenantOf(server.base, "Keys", `keys-${driver}`)
      const permissions = ["apikeys:manage", "apikeys:read"]
      const mint = async (headers: Record<string, string>, name: string) => {
        const created = await call(server.base, "POST", iam("/api/core/apikeys"), headers, { organizationId: owner.orgId, name, permissions })
        expect(created.status, JSON.stringify(created.body)).toBe(201)
        return created.body as { id: string; key: string; createdBy: string }
      }
      const root = await mint(owner.bearer, "root")
      const child = await mint({ "x-api-key": root.key }, "child")
      const grandchild = await mint({ "x-api-key": child.key }, "grandchild")
      expect([child.createdBy, grandchild.createdBy]).toEqual([root.id, child.id])
      const use = async (key: string) =>
        (await call(server.base, "GET", iam(`/api/core/apikeys?organizationId=${owner.orgId}`), { "x-api-key": key })).status
      // Each key is used (and so cached by the gateway) before the revocation.
      expect([await use(root.key), await use(child.key), await use(grandchild.key)]).toEqual([200, 200, 200])

      const revoked = await call(server.base, "DELETE", iam(`/api/core/apikeys/${root.id}`), owner.bearer)
      expect(revoked.status).toBe(204)
      expect(revoked.headers.get("x-core-invalidate")).toBeNull()
      for (const key of [root, child, grandchild]) {
        const refused = await call(server.base, "GET", iam(`/api/core/apikeys?organizationId=${owner.orgId}`), { "x-api-key": key.key })
        expect([refused.status, refused.body.error.code], key.id).toEqual([401, "UNAUTHORIZED"])
      }
      const listed = await call(server.base, "GET", iam(`/api/core/apikeys?organizationId=${owner.orgId}`), owner.bearer)
      const states = Object.fromEntries((listed.body.data as Array<{ id: string; revokedAt: string | null }>).map((k) => [k.id, k.revokedAt !== null]))
      expect([states[root.id], states[child.id], states[grandchild.id]]).toEqual([true, true, true])
      const audit = await call(server.base, "GET", iam(`/api/audit/events?action=apikey.revoke`), owner.bearer)
      const entries = (audit.body.data as Array<{ targetId: string; metadata: { revokedWith?: string } }>)
        .filter((entry) => [child.id, grandchild.id].includes(entry.targetId))
      expect(entries.map((entry) => entry.metadata.revokedWith)).toEqual([root.id, root.id])
    }, SLOW)

    it("refuses the owner of a suspended platform a new organization (451), creating nothing", async () => {
      const owner = await tenantOf(server.base, "Suspended", `suspended-${driver}`)
      const helper = await tenantOf(server.base, "Helper", `helper-${driver}`)
      // The owner also works in a healthy organization, and acts in it when its own is suspended.
      const invited = await call(server.base, "POST", iam(`/api/core/organizations/${helper.orgId}/invitations`), helper.bearer,
        { email: `suspended-${driver}@example.com`, role: "admin" })
      expect(invited.status).toBe(201)
      expect((await call(server.base, "POST", iam("/api/auth/organization/accept-invitation"), owner.bearer, { invitationId: invited.body.id })).status).toBe(200)
      const suspended = await call(server.base, "POST", `/api/v1/platforms/${owner.platformId}/suspend`, operator, { reason: "abuse" })
      expect(suspended.status).toBe(200)
      // The registry's sink wrote identity's platform status in the suspension's transaction.
      const message = `Platform ${owner.platformId} has been suspended: its owners cannot create organizations until it is restored`
      const slug = `evade-${driver}`
      const refused = await call(server.base, "POST", iam("/api/auth/organization/create"), owner.bearer, { name: "Evade", slug })
      expect([refused.status, refused.body]).toEqual([451, { code: "PLATFORM_SUSPENDED", message }])
      const setup = await call(server.base, "POST", iam("/api/core/org-setup"), { cookie: `core.session_token=${owner.token}` }, { name: "Evade", slug })
      expect([setup.status, setup.body.error.code, setup.body.error.message]).toEqual([451, "PLATFORM_SUSPENDED", message])
      expect((await call(server.base, "GET", iam(`/api/core/organizations/${slug}`), operator)).status).toBe(404)
      const platforms = await call(server.base, "GET", `/api/v1/platforms?slug=${slug}`, operator)
      expect([platforms.status, platforms.body.data]).toEqual([200, []])
    }, SLOW)

    it("answers another organization's invitation id exactly as an id that names nothing (404)", async () => {
      const inviter: Tenant = await tenantOf(server.base, "Inviter", `inviter-${driver}`)
      const stranger: Tenant = await tenantOf(server.base, "Stranger", `stranger-${driver}`)
      const invited = await call(server.base, "POST", iam(`/api/core/organizations/${inviter.orgId}/invitations`), inviter.bearer,
        { email: `guest-${driver}@example.com` })
      expect(invited.status).toBe(201)
      const nothing = `inv_${"0".repeat(25)}Z`
      const sends: ReadonlyArray<[string, (id: string) => Promise<{ status: number; body: any }>]> = [
        ["GET get-invitation", (id) => call(server.base, "GET", iam(`/api/auth/organization/get-invitation?id=${id}`), stranger.bearer)],
        ["accept-invitation", (id) => call(server.base, "POST", iam("/api/auth/organization/accept-invitation"), stranger.bearer, { invitationId: id })],
        ["reject-invitation", (id) => call(server.base, "POST", iam("/api/auth/organization/reject-invitation"), stranger.bearer, { invitationId: id })],
        ["cancel-invitation", (id) => call(server.base, "POST", iam("/api/auth/organization/cancel-invitation"), stranger.bearer, { invitationId: id })],
        ["DELETE", (id) => call(server.base, "DELETE", iam(`/api/core/organizations/${stranger.orgId}/invitations/${id}`), stranger.bearer)]
      ]
      for (const [name, send] of sends) {
        const theirs = await send(invited.body.id)
        const unknown = await send(nothing)
        expect(theirs.status, name).toBe(404)
        expect([theirs.status, withoutRequestId(theirs.body)], name).toEqual([unknown.status, withoutRequestId(unknown.body)])
      }
      const listed = await call(server.base, "GET", iam(`/api/core/organizations/${inviter.orgId}/invitations`), inviter.bearer)
      expect(listed.body.data.find((row: { id: string }) => row.id === invited.body.id).status).toBe("pending")
    }, SLOW)
  })
}
