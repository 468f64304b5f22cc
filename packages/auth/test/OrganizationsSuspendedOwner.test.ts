import { TestDatabase } from "@core/kernel/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PlatformStatus } from "../src/authorization/PlatformStatus.js"
import {
  call,
  createOrganization,
  envelope,
  freshSlug,
  type Harness,
  join,
  libraryError,
  makeHarness,
  query,
  signUp,
  type TestUser
} from "./OrganizationsSupport.js"

/**
 * Issue 27 (security): the owner of a suspended platform could still create an organization, which
 * comes with a new active platform — a way around the suspension. Every creation route a user calls
 * refuses it with 451 `PLATFORM_SUSPENDED` and writes nothing (decision 0561).
 */
const setStatus = (harness: Harness, platformId: string, status: "active" | "suspended") =>
  harness.run(Effect.flatMap(PlatformStatus, (statuses) => statuses.set({ kind: "service" }, { platformId, status })))

/** What exists of a slug: identity's organizations, the registry's platforms, `org.create` entries. */
const traces = async (harness: Harness, slug: string) => ({
  organizations: await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`),
  platforms: await query(harness, (sql) => sql`SELECT id FROM registry.platforms WHERE slug = ${slug}`),
  audited: await query(harness, (sql) =>
    sql`SELECT id FROM iam.audit_log WHERE action = 'org.create' AND metadata->>'slug' = ${slug}`)
})

const NOTHING = { organizations: [], platforms: [], audited: [] }

for (const driver of TestDatabase.drivers) {
  describe(`organization creation by the owner of a suspended platform, on ${driver}`, () => {
    let harness: Harness
    let owner: TestUser
    let member: TestUser
    let suspended: { id: string; platformId: string }
    let elsewhere: { id: string }

    beforeAll(async () => {
      harness = await makeHarness({ driver })
      owner = await signUp(harness, "Owner")
      member = await signUp(harness, "Member")
      const helper = await signUp(harness, "Helper")
      suspended = await createOrganization(harness, owner)
      await join(harness, suspended.id, owner, member, "member")
      // The owner also belongs to a healthy organization, and acts in it.
      elsewhere = await createOrganization(harness, helper)
      await join(harness, elsewhere.id, helper, owner, "admin")
      await setStatus(harness, suspended.platformId, "suspended")
    })
    afterAll(() => harness.dispose())

    const message = () => `Platform ${suspended.platformId} has been suspended: its owners cannot create organizations until it is restored`

    it("refuses the plugin's create with 451 PLATFORM_SUSPENDED and writes nothing", async () => {
      const slug = freshSlug("evade")
      const refused = await call(harness, "/api/auth/organization/create", { token: owner.token, json: { name: "Evade", slug } })
      expect([refused.status, refused.body]).toEqual([451, libraryError("PLATFORM_SUSPENDED", message())])
      expect(await traces(harness, slug)).toEqual(NOTHING)
    })

    it("refuses it while the owner's session acts in another, healthy organization", async () => {
      const active = await call(harness, "/api/auth/organization/set-active", { token: owner.token, json: { organizationId: elsewhere.id } })
      expect(active.status).toBe(200)
      const slug = freshSlug("evade")
      const refused = await call(harness, "/api/auth/organization/create", {
        token: owner.token,
        json: { name: "Evade", slug, keepCurrentActiveOrganization: true }
      })
      expect([refused.status, refused.body]).toEqual([451, libraryError("PLATFORM_SUSPENDED", message())])
      expect(await traces(harness, slug)).toEqual(NOTHING)
    })

    it("refuses org-setup (the console's call) with the 451 envelope and writes nothing", async () => {
      const slug = freshSlug("evade")
      const refused = await call(harness, "/api/core/org-setup", { cookie: owner.token, json: { name: "Evade", slug } })
      expect([refused.status, refused.body]).toEqual([451, envelope("PLATFORM_SUSPENDED", message())])
      expect(await traces(harness, slug)).toEqual(NOTHING)
    })

    it("refuses the owner deleting the suspended organization (which would free it to create another), 451", async () => {
      const refused = await call(harness, "/api/auth/organization/delete", { token: owner.token, json: { organizationId: suspended.id } })
      const message = `Platform ${suspended.platformId} has been suspended: its owners cannot delete the organization until it is restored`
      expect([refused.status, refused.body]).toEqual([451, libraryError("PLATFORM_SUSPENDED", message)])
      expect(await query(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE id = ${suspended.id}`)).toEqual([{ id: suspended.id }])
    })

    it("lets a plain member of the suspended organization create one, and the owner again once restored", async () => {
      const mine = freshSlug("member")
      expect((await call(harness, "/api/auth/organization/create", { token: member.token, json: { name: "Mine", slug: mine } })).status).toBe(200)
      expect((await traces(harness, mine)).platforms).toHaveLength(1)
      await setStatus(harness, suspended.platformId, "active")
      const again = freshSlug("again")
      const created = await call(harness, "/api/auth/organization/create", { token: owner.token, json: { name: "Again", slug: again } })
      expect(created.status).toBe(200)
      const after = await traces(harness, again)
      expect([after.organizations.length, after.platforms.length, after.audited.length]).toEqual([1, 1, 1])
    })
  })
}
