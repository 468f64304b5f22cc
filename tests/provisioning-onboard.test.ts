import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { call, tenantOf, until } from "./support/tenants.js"

/**
 * `POST /api/v1/provision/onboard` through the gateway of the real all-in-one server (decisions
 * 0575, 0576): an `onboardingId` never seen starts the flow from the body; the same id and body
 * answer the same job, another body 409; once the job completes the platform is the platform of a
 * new organization of the user, who owns it and reads it, and another organization cannot. On
 * PGlite, and on PostgreSQL (where the database is read too, and concurrent first calls race).
 */
const SLOW = 180_000
const STATIC_KEY = "onboard-static-key-0123456789abcdef"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }

const signUp = async (base: string, name: string, email: string) => {
  const response = await call(base, "POST", "/api/v1/iam/api/auth/sign-up/email", {}, { name, email, password: "correct horse battery" })
  expect(response.status).toBe(200)
  return { token: response.body.token as string, userId: response.body.user.id as string, bearer: { authorization: `Bearer ${response.body.token}` } }
}

for (const driver of TestDatabase.drivers) {
  describe(`POST /api/v1/provision/onboard on ${driver}`, () => {
    const scope = Effect.runSync(Scope.make())
    const env: Record<string, string> = { CORE_STATIC_API_KEY: STATIC_KEY }
    let database: pg.Client | undefined
    beforeAll(async () => {
      if (driver !== "pg") return
      env.DATABASE_URL = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope))
    }, SLOW)
    const server = useServer(env, SLOW)
    beforeAll(async () => {
      if (driver !== "pg") return
      database = new pg.Client({ connectionString: env.DATABASE_URL })
      await database.connect()
    })
    afterAll(async () => {
      await database?.end()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }, SLOW)

    it("starts the flow from the body, answers the same job again, 409 for another body, and the platform is the user's organization's", async () => {
      const { base } = server
      const ada = await signUp(base, "Ada", "ada@onboard.example")
      const other = await tenantOf(base, "Other", "onboard-other")
      const body = {
        onboardingId: "acme-2026-01", platformName: "Acme", slug: "acme-onboard", userId: ada.userId,
        tier: "growth", billingEmail: "bills@acme.example", stackTemplateId: null
      }

      const first = await call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, body)
      expect([first.status, first.body]).toEqual([202, { jobId: expect.stringMatching(/^job_/), status: "QUEUED" }])
      const again = await call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, body)
      expect([again.status, again.body]).toEqual([202, { jobId: first.body.jobId, status: "QUEUED" }])
      // The same body written otherwise (defaults spelt out, keys in another order) is the same request.
      const { stackTemplateId: _, ...withoutTemplate } = body
      const respelt = await call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, { ...withoutTemplate })
      expect(respelt.body).toEqual({ jobId: first.body.jobId, status: "QUEUED" })

      const changed = await call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, { ...body, tier: "scale", platformName: "Acme Inc" })
      expect([changed.status, changed.body.error]).toEqual([409, {
        code: "CONFLICT",
        message: "Onboarding flow acme-2026-01 was started with another platformName, tier; use a new onboardingId for another onboarding",
        requestId: expect.any(String),
        details: { onboardingId: "acme-2026-01", fields: ["platformName", "tier"] }
      }])

      const flow = await until(() => call(base, "GET", "/api/v1/onboarding/acme-2026-01", SERVICE), (r) => r.body?.status === "completed" || r.body?.status === "failed", 20_000)
      expect(flow.body).toMatchObject({
        id: "acme-2026-01", status: "completed", jobStatus: "COMPLETED", provisionJobId: first.body.jobId, userId: ada.userId,
        platformName: "Acme", slug: "acme-onboard", tier: "growth", billingEmail: "bills@acme.example", organizationId: expect.stringMatching(/^org_/)
      })
      const { platformId, organizationId } = flow.body as { platformId: string; organizationId: string }
      // Billing made its subscription with the organization's setup, on the flow's tier.
      const subscription = await call(base, "GET", `/api/v1/billing/api/billing/subscription?platformId=${platformId}`, SERVICE)
      expect([subscription.status, subscription.body]).toEqual([200, expect.objectContaining({ platformId, tier: "growth" })])
      // The flow's billing email is its customer's at the payment provider (decision 0578).
      const customer = await call(base, "GET", `/api/v1/billing/customers/${subscription.body.customerId}`, SERVICE)
      expect([customer.status, customer.body]).toEqual([200, expect.objectContaining({ id: subscription.body.customerId, email: "bills@acme.example" })])

      // The user owns the new organization, and reads its platform once it is active.
      const listed = await call(base, "GET", "/api/v1/iam/api/auth/organization/list", ada.bearer)
      expect(listed.body).toEqual([expect.objectContaining({ id: organizationId, name: "Acme", slug: "acme-onboard" })])
      await call(base, "POST", "/api/v1/iam/api/auth/organization/set-active", ada.bearer, { organizationId })
      const mine = await call(base, "GET", `/api/v1/platforms/${platformId}`, ada.bearer)
      expect([mine.status, mine.body]).toEqual([200, expect.objectContaining({ id: platformId, organizationId, ownerUserId: ada.userId, tier: "growth", status: "active" })])
      const page = await call(base, "GET", "/api/v1/platforms", ada.bearer)
      expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([platformId])
      expect((await call(base, "GET", "/api/v1/onboarding/acme-2026-01", ada.bearer)).body.status).toBe("completed")
      // Its owner may ask for its job again (the same body); another organization sees nothing of it.
      expect((await call(base, "POST", "/api/v1/provisioning/onboard", ada.bearer, body)).body).toEqual({ jobId: first.body.jobId, status: "QUEUED" })
      for (const [method, path, payload] of [
        ["GET", `/api/v1/platforms/${platformId}`, undefined],
        ["GET", "/api/v1/onboarding/acme-2026-01", undefined],
        ["POST", "/api/v1/provisioning/onboard", body]
      ] as const) {
        const hidden = await call(base, method, path, other.bearer, payload)
        expect([hidden.status, hidden.body.error.code]).toEqual([404, "NOT_FOUND"])
      }
      expect((await call(base, "GET", "/api/v1/platforms", other.bearer)).body.data.map((p: { id: string }) => p.id)).toEqual([other.platformId])

      if (database !== undefined) {
        const platforms = await database.query(`SELECT organization_id, owner_user_id, tier, slug FROM registry.platforms WHERE id = $1`, [platformId])
        expect(platforms.rows).toEqual([{ organization_id: organizationId, owner_user_id: ada.userId, tier: "growth", slug: "acme-onboard" }])
        const members = await database.query(`SELECT user_id, role FROM iam.members WHERE organization_id = $1`, [organizationId])
        expect(members.rows).toEqual([{ user_id: ada.userId, role: "owner" }])
        const organizations = await database.query(`SELECT platform_id, slug FROM iam.organizations WHERE id = $1`, [organizationId])
        expect(organizations.rows).toEqual([{ platform_id: platformId, slug: "acme-onboard" }])
        const jobs = await database.query(`SELECT count(*)::int AS n FROM provisioning.jobs WHERE type = 'onboard' AND platform_id = $1`, [platformId])
        expect(jobs.rows).toEqual([{ n: 1 }])
      }
    }, SLOW)

    it("refuses what it cannot start: a tenant, an unknown user, a slug taken, a bad id; nothing is left behind", async () => {
      const { base } = server
      const eve = await tenantOf(base, "Eve", "onboard-eve")
      const body = { onboardingId: "eve-1", platformName: "Eve's", slug: "eve-onboard", userId: eve.userId }
      const refused = await call(base, "POST", "/api/v1/provisioning/onboard", eve.bearer, body)
      expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([403, "FORBIDDEN", "Only operators and the service key start an onboarding"])
      const nobody = await call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, { ...body, userId: "usr_01JDQ3V6X4TQ7K9ZC2M8N5P0RS" })
      expect([nobody.status, nobody.body.error.code, nobody.body.error.details]).toEqual([400, "VALIDATION_ERROR", { issues: [{ path: "userId", message: "No user has this id" }] }])
      const taken = await call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, { ...body, slug: "onboard-eve" })
      expect([taken.status, taken.body.error.code, taken.body.error.message]).toEqual([409, "CONFLICT", "Platform slug already taken"])
      const badId = await call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, { ...body, onboardingId: "../x" })
      expect([badId.status, badId.body.error.details.issues[0].path]).toEqual([400, "onboardingId"])
      for (const id of ["eve-1", "../x"]) {
        expect((await call(base, "GET", `/api/v1/onboarding/${encodeURIComponent(id)}`, SERVICE)).status).toBeGreaterThanOrEqual(400)
      }
      expect((await call(base, "GET", "/api/v1/platforms?slug=eve-onboard", SERVICE)).body.data).toEqual([])
    }, SLOW)

    it.runIf(driver === "pg")("concurrent first calls with one onboardingId make one flow, one organization and one job", async () => {
      const { base } = server
      const grace = await signUp(base, "Grace", "grace@onboard.example")
      const body = { onboardingId: "race-1", platformName: "Race", slug: "race-onboard", userId: grace.userId }
      const answers = await Promise.all(Array.from({ length: 6 }, () => call(base, "POST", "/api/v1/provisioning/onboard", SERVICE, body)))
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202, 202])
      expect(new Set(answers.map((answer) => answer.body.jobId)).size).toBe(1)
      const organizations = await database!.query(`SELECT count(*)::int AS n FROM iam.organizations WHERE slug = 'race-onboard'`)
      expect(organizations.rows).toEqual([{ n: 1 }])
      const jobs = await database!.query(`SELECT count(*)::int AS n FROM provisioning.jobs WHERE type = 'onboard' AND payload->>'onboardingId' = 'race-1'`)
      expect(jobs.rows).toEqual([{ n: 1 }])
    }, SLOW)
  })
}
