import { Ids, Route } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { JobCreation, JobCreationHandlers, ProvisioningMigrations } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FeatureRecordsLive, Onboarding, OnboardingFlowsLive, Platforms, PlatformDirectoryLive, RegistryMigrations } from "../src/index.js"
import { TestCallers } from "./Callers.js"

const makeLayer = (driver: "pglite" | "pg") =>
  Layer.mergeAll(
    JobCreation.Default.pipe(Layer.provide(PlatformDirectoryLive)),
    FeatureRecordsLive,
    Platforms.Default,
    // Without identity's organizations: an onboarded platform is the operators' here (decision 0576).
    OnboardingFlowsLive.pipe(Layer.provide(Onboarding.Default))
  ).pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations, ProvisioningMigrations], { driver }))
  )

const JOB_ID = /^job_[0-9A-Z]{26}$/

/** Provisioning's job-creating routes (seed 001) over the registry's platforms and activations, on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`provisioning's job-creating routes on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    let platform: string
    let tenant: string
    let otherPlatform: string
    let otherTenant: string
    let operatorsPlatform: string
    const query = <T extends object = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown> = []) =>
      h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)))
    const defaultTenantOf = async (platformId: string) =>
      (await query<{ id: string }>(`SELECT id FROM registry.entities WHERE platform_id = $1 AND slug = 'default'`, [platformId]))[0]!.id
    const post = (path: string, json: unknown, init: { token?: string; apiKey?: string; key?: string } = { token: "usr_owner" }) =>
      h.fetch(`/api/v1/provision/${path}`, {
        method: "POST",
        json,
        ...(init.token === undefined ? {} : { token: init.token }),
        ...(init.apiKey === undefined ? {} : { apiKey: init.apiKey }),
        ...(init.key === undefined ? {} : { headers: { "idempotency-key": init.key } })
      })
    const jobOf = async (jobId: string) =>
      (await query<{ type: string; platform_id: string; organization_id: string | null; payload: unknown; status: string; target: string | null }>(
        `SELECT type, platform_id, organization_id, payload, status, target FROM provisioning.jobs WHERE id = $1`, [jobId]))[0]
    const jobCount = async () => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM provisioning.jobs`))[0]!.n

    beforeAll(async () => {
      h = await makeHttpHarness(Route.router(JobCreationHandlers, { base: "/api/v1/provision" }), makeLayer(driver))
      platform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "prov-a", organizationId: "org_a" })))).id
      otherPlatform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "prov-b", organizationId: "org_b" })))).id
      operatorsPlatform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "O", slug: "prov-o" })))).id
      tenant = await defaultTenantOf(platform)
      otherTenant = await defaultTenantOf(otherPlatform)
    }, 60_000)
    afterAll(() => h.dispose())

    it("every owner route answers 202 { jobId, status: QUEUED } and enqueues its type with the parsed body (defaults filled) and its target", async () => {
      const cases: ReadonlyArray<{ path: string; body: Record<string, unknown>; type: string; payload: Record<string, unknown>; target: string | null }> = [
        {
          path: "platform",
          body: { platformId: platform, planTier: "growth", billingEmail: "bills@a.test" },
          type: "platform.provision",
          payload: { platformId: platform, planTier: "growth", billingEmail: "bills@a.test", environment: "prod" },
          target: `platform:${platform}`
        },
        {
          path: "stack/activate",
          body: { platformId: platform, stackId: "shop", stackVersion: "1.0.0", environment: "dev" },
          type: "stack.activate",
          payload: { platformId: platform, stackId: "shop", stackVersion: "1.0.0", environment: "dev" },
          target: null
        },
        {
          path: "stack/deactivate",
          body: { platformId: platform, stackInstanceId: "sti_1" },
          type: "stack.deactivate",
          payload: { platformId: platform, stackInstanceId: "sti_1", environment: "prod", deleteData: false },
          target: "stack:sti_1"
        },
        {
          path: "app/create",
          body: { platformId: platform, stackId: "shop", appName: "web-1", appType: "fullstack" },
          type: "app.create",
          payload: { platformId: platform, stackId: "shop", appName: "web-1", appType: "fullstack", withDatabase: false },
          target: `app:${platform}:web-1`
        },
        {
          path: "domain/add",
          body: { platformId: platform, customHostname: "Shop.Example.COM", targetDnsRecordId: "dns_1" },
          type: "domain.add",
          payload: { platformId: platform, customHostname: "shop.example.com", targetDnsRecordId: "dns_1" },
          target: "domain:shop.example.com"
        },
        {
          path: "platform/deprovision",
          body: { platformId: platform, environment: "stg" },
          type: "platform.deprovision",
          payload: { platformId: platform, environment: "stg" },
          target: `platform:${platform}`
        }
      ]
      for (const c of cases) {
        const response = await post(c.path, c.body)
        expect(response.status, c.path).toBe(202)
        const body = await response.json()
        expect(body, c.path).toEqual({ jobId: expect.stringMatching(JOB_ID), status: "QUEUED" })
        expect(await jobOf(body.jobId), c.path).toEqual({
          type: c.type, platform_id: platform, organization_id: "org_a", payload: c.payload, status: "QUEUED", target: c.target
        })
      }
    })

    it("answers 400 VALIDATION_ERROR naming the field, never 500", async () => {
      const cases: ReadonlyArray<{ path: string; body: unknown; field: string }> = [
        { path: "platform", body: { platformId: platform, billingEmail: "b@a.test" }, field: "planTier" },
        { path: "platform", body: { platformId: platform, planTier: "starter", billingEmail: "not-an-email" }, field: "billingEmail" },
        { path: "platform", body: { platformId: "", planTier: "starter", billingEmail: "b@a.test" }, field: "platformId" },
        { path: "platform", body: { platformId: "x".repeat(129), planTier: "starter", billingEmail: "b@a.test" }, field: "platformId" },
        { path: "feature/activate", body: { platformId: platform, entityId: tenant, featureId: "f", environment: "prod" }, field: "featureVersion" },
        { path: "feature/activate", body: { platformId: platform, entityId: tenant, featureId: "f", featureVersion: "1", environment: "qa" }, field: "environment" },
        { path: "feature/deactivate", body: { platformId: platform, entityId: tenant, featureId: "f", environment: "prod", deleteData: "yes" }, field: "deleteData" },
        { path: "stack/activate", body: { platformId: platform, stackVersion: "1" }, field: "stackId" },
        { path: "stack/deactivate", body: { platformId: platform }, field: "stackInstanceId" },
        { path: "onboard", body: { onboardingId: "onb_1", platformName: "P", slug: "p", userId: "u", tier: "gold" }, field: "tier" },
        { path: "onboard", body: { onboardingId: "onb_1", platformName: "P", slug: "p", userId: "u", billingEmail: "x" }, field: "billingEmail" },
        { path: "app/create", body: { platformId: platform, stackId: "s", appName: "Web", appType: "app" }, field: "appName" },
        { path: "app/create", body: { platformId: platform, stackId: "s", appName: "web-", appType: "app" }, field: "appName" },
        { path: "app/create", body: { platformId: platform, stackId: "s", appName: "web", appType: "site" }, field: "appType" },
        { path: "domain/add", body: { platformId: platform, customHostname: "not a host", targetDnsRecordId: "d" }, field: "customHostname" },
        { path: "platform/deprovision", body: { platformId: platform, environment: "test" }, field: "environment" },
        { path: "auth/upgrade", body: {}, field: "platformId" }
      ]
      const before = await jobCount()
      for (const c of cases) {
        const response = await post(c.path, c.body, { token: c.path === "auth/upgrade" ? "usr_operator" : "usr_owner" })
        expect(response.status, `${c.path} ${c.field}`).toBe(400)
        const body = await response.json()
        expect(body.error.code).toBe("VALIDATION_ERROR")
        expect(body.error.details.issues.map((i: { path: string }) => i.path), `${c.path} ${c.field}`).toContain(c.field)
      }
      const badKey = await post("platform", { platformId: platform, planTier: "free", billingEmail: "b@a.test" }, { token: "usr_owner", key: "x".repeat(256) })
      expect(badKey.status).toBe(400)
      expect((await badKey.json()).error).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "idempotency-key", message: expect.any(String) }] } })
      expect(await jobCount()).toBe(before)
    })

    it("who may call: owner, admins and a managing API key of the platform, operators and the service key; a member 403; another tenant and an unknown platform 404", async () => {
      const body = { platformId: platform, planTier: "free", billingEmail: "b@a.test" }
      for (const init of [{ token: "usr_admin" }, { apiKey: "core_a_manage" }, { token: "usr_operator" }, { token: "static" }]) {
        const response = await post("platform", body, init)
        expect(response.status, JSON.stringify(init)).toBe(202)
      }
      const before = await jobCount()
      expect((await post("platform", body, { token: "usr_member" })).status).toBe(403)
      expect((await post("platform", body, { apiKey: "core_a" })).status).toBe(403)
      for (const init of [{ token: "usr_b_owner" }, { apiKey: "core_b" }, { token: "usr_lonely" }]) {
        const response = await post("platform", body, init)
        expect(response.status, JSON.stringify(init)).toBe(404)
        expect((await response.json()).error).toMatchObject({ code: "NOT_FOUND", message: "Platform not found" })
      }
      expect((await post("platform", { ...body, platformId: "plt_nothing" }, { token: "usr_operator" })).status).toBe(404)
      expect((await post("app/create", { platformId: otherPlatform, stackId: "s", appName: "web", appType: "app" })).status).toBe(404)
      // A platform of no organization is the operators'.
      expect((await post("platform", { ...body, platformId: operatorsPlatform })).status).toBe(404)
      expect((await post("platform", { ...body, platformId: operatorsPlatform }, { token: "usr_operator" })).status).toBe(202)
      expect((await post("platform", body, {})).status).toBe(401)
      expect(await jobCount()).toBe(before + 1)
    })

    it("auth/upgrade: operators and the service key answer 202 { jobId, platformId }; the owner 403; an unknown platform 404", async () => {
      const response = await post("auth/upgrade", { platformId: platform }, { token: "usr_operator" })
      expect(response.status).toBe(202)
      const body = await response.json()
      expect(body).toEqual({ jobId: expect.stringMatching(JOB_ID), platformId: platform })
      expect(await jobOf(body.jobId)).toEqual({
        type: "auth.upgrade", platform_id: platform, organization_id: "org_a", payload: { platformId: platform }, status: "QUEUED", target: `auth:${platform}`
      })
      expect((await post("auth/upgrade", { platformId: platform }, { token: "static" })).status).toBe(202)
      expect((await post("auth/upgrade", { platformId: platform }, { token: "usr_owner" })).status).toBe(403)
      expect((await post("auth/upgrade", { platformId: "plt_nothing" }, { token: "usr_operator" })).status).toBe(404)
    })

    it("Idempotency-Key: the same key and body answer the first job (one job); another body or route is 409 CONFLICT; keys are per caller", async () => {
      const body = { platformId: platform, stackId: "shop", appName: "idem", appType: "app" }
      const first = await post("app/create", body, { token: "usr_owner", key: "k-1" })
      expect(first.status).toBe(202)
      const answer = await first.json()
      const count = await jobCount()
      const again = await post("app/create", { appType: "app", appName: "idem", stackId: "shop", platformId: platform }, { token: "usr_owner", key: "k-1" })
      expect(again.status).toBe(202)
      expect(await again.json()).toEqual(answer)
      expect(await jobCount()).toBe(count)

      const other = await post("app/create", { ...body, withDatabase: true }, { token: "usr_owner", key: "k-1" })
      expect(other.status).toBe(409)
      expect((await other.json()).error).toMatchObject({ code: "CONFLICT", details: { idempotencyKey: "k-1" } })
      const otherRoute = await post("platform", { platformId: platform, planTier: "free", billingEmail: "b@a.test" }, { token: "usr_owner", key: "k-1" })
      expect(otherRoute.status).toBe(409)
      expect(await jobCount()).toBe(count)

      const admin = await post("app/create", body, { token: "usr_admin", key: "k-1" })
      expect(admin.status).toBe(202)
      expect((await admin.json()).jobId).not.toBe(answer.jobId)
      expect(await query(`SELECT scope, key, job_id FROM provisioning.idempotency_keys WHERE key = 'k-1' ORDER BY scope`)).toEqual([
        { scope: "user:usr_admin", key: "k-1", job_id: expect.stringMatching(JOB_ID) },
        { scope: "user:usr_owner", key: "k-1", job_id: answer.jobId }
      ])

      // Concurrent requests with one key: one job, every answer names it.
      const racing = await Promise.all(Array.from({ length: 5 }, () =>
        post("domain/add", { platformId: platform, customHostname: "race.example.com", targetDnsRecordId: "d" }, { token: "usr_owner", key: "k-race" })))
      const answers = await Promise.all(racing.map((r) => r.json()))
      expect(racing.map((r) => r.status)).toEqual([202, 202, 202, 202, 202])
      expect(new Set(answers.map((a) => a.jobId)).size).toBe(1)
      expect(await query(`SELECT count(*)::int AS n FROM provisioning.jobs WHERE target = 'domain:race.example.com'`)).toEqual([{ n: 1 }])

      // A key older than a day answers a new job.
      await query(`UPDATE provisioning.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k-1'`)
      const late = await post("app/create", body, { token: "usr_owner", key: "k-1" })
      expect(late.status).toBe(202)
      expect((await late.json()).jobId).not.toBe(answer.jobId)
    })

    it("feature/activate makes the registry activation pending with its job (payload: body and activationId); feature/deactivate makes it deactivating", async () => {
      const body = { platformId: platform, entityId: tenant, featureId: "search", featureVersion: "1.0.0", environment: "stg" }
      const response = await post("feature/activate", body)
      expect(response.status).toBe(202)
      const { jobId } = await response.json()
      const [activation] = await query<{ id: string; status: string; feature_version: string; provision_job_id: string }>(
        `SELECT id, status, feature_version, provision_job_id FROM registry.feature_activations WHERE entity_id = $1 AND feature_id = 'search'`, [tenant])
      expect(activation).toEqual({ id: expect.stringMatching(/^act_/), status: "pending", feature_version: "1.0.0", provision_job_id: jobId })
      expect(await jobOf(jobId)).toEqual({
        type: "feature.activate", platform_id: platform, organization_id: "org_a", status: "QUEUED",
        payload: { ...body, activationId: activation!.id }, target: `feature:${platform}:${tenant}:search:stg`
      })

      // Again, at another version: the same activation, pending at the new version, with the new job.
      const second = await (await post("feature/activate", { ...body, featureVersion: "1.1.0" })).json()
      expect(await query(`SELECT id, status, feature_version, provision_job_id FROM registry.feature_activations WHERE entity_id = $1 AND feature_id = 'search'`, [tenant]))
        .toEqual([{ id: activation!.id, status: "pending", feature_version: "1.1.0", provision_job_id: second.jobId }])

      const off = await post("feature/deactivate", { platformId: platform, entityId: tenant, featureId: "search", environment: "stg" })
      expect(off.status).toBe(202)
      const offJob = (await off.json()).jobId
      expect(await jobOf(offJob)).toEqual({
        type: "feature.deactivate", platform_id: platform, organization_id: "org_a", status: "QUEUED",
        payload: { platformId: platform, entityId: tenant, featureId: "search", environment: "stg", deleteData: false, activationId: activation!.id, featureVersion: "1.1.0" },
        target: `feature:${platform}:${tenant}:search:stg`
      })
      expect(await query(`SELECT status, provision_job_id FROM registry.feature_activations WHERE id = $1`, [activation!.id]))
        .toEqual([{ status: "deactivating", provision_job_id: offJob }])

      const count = await jobCount()
      const blocked = await post("feature/activate", body)
      expect(blocked.status).toBe(409)
      expect((await blocked.json()).error).toMatchObject({ code: "INVALID_STATE", details: { from: "deactivating", to: "pending" } })
      const none = await post("feature/deactivate", { platformId: platform, entityId: tenant, featureId: "nothing", environment: "stg" })
      expect(none.status).toBe(404)
      // An entity of another platform, and another tenant's platform: 404, nothing written.
      expect((await post("feature/activate", { ...body, entityId: otherTenant })).status).toBe(404)
      expect((await post("feature/activate", { ...body, platformId: otherPlatform, entityId: otherTenant })).status).toBe(404)
      expect(await jobCount()).toBe(count)
      expect(await query(`SELECT count(*)::int AS n FROM registry.feature_activations WHERE entity_id = $1`, [otherTenant])).toEqual([{ n: 0 }])
    })

    it("onboard: an existing flow answers its job to whoever may manage its platform, for the same body only; a new id starts a flow (operators)", async () => {
      await query(`INSERT INTO registry.onboarding_flows (id, platform_id, platform_name, slug, tier, user_id, job_id, created_by, created_at, updated_at)
        VALUES ('onb_test', $1, 'O', 'prov-o', 'starter', 'usr_owner', 'job_x', 'usr_operator', now(), now())`, [operatorsPlatform])
      const body = { onboardingId: "onb_test", platformName: "O", slug: "prov-o", userId: "usr_owner", stackTemplateId: null }
      const count = await jobCount()
      // The operators' platform: not the tenant's to see.
      expect((await post("onboard", body)).status).toBe(404)
      const replayed = await post("onboard", body, { token: "usr_operator" })
      expect([replayed.status, await replayed.json()]).toEqual([202, { jobId: "job_x", status: "QUEUED" }])
      const other = await post("onboard", { ...body, slug: "prov-other" }, { token: "usr_operator" })
      expect([other.status, (await other.json()).error.details]).toEqual([409, { onboardingId: "onb_test", fields: ["slug"] }])
      expect(await jobCount()).toBe(count)

      const fresh = { ...body, onboardingId: "client-ref-1", slug: "prov-fresh" }
      const refused = await post("onboard", fresh)
      expect([refused.status, (await refused.json()).error.message]).toEqual([403, "Only operators and the service key start an onboarding"])
      const started = await post("onboard", fresh, { token: "usr_operator" })
      expect(started.status).toBe(202)
      const { jobId } = await started.json()
      const job = await jobOf(jobId)
      expect(job).toMatchObject({ type: "onboard", organization_id: null, status: "QUEUED", target: "onboarding:client-ref-1" })
      expect(job.payload).toMatchObject({ onboardingId: "client-ref-1", slug: "prov-fresh", userId: "usr_owner", tier: "starter", platformId: job.platform_id })
      expect((await post("onboard", fresh, { token: "usr_operator" }).then((r) => r.json())).jobId).toBe(jobId)
    })
  })
}
