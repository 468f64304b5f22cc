import { Ids, Route } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { EdgeProviderLocal, ProvisioningMigrations, Worker } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FeatureHandlers, FeatureJobsLive, Features, Platforms, RegistryMigrations } from "../src/index.js"
import { TestCallers } from "./Callers.js"
import { until as poll } from "@core/kernel/testing/poll"

const makeLayer = (driver: "pglite" | "pg") => {
  const services = Features.DefaultWithoutDependencies.pipe(
    Layer.provideMerge(Platforms.Default),
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations, ProvisioningMigrations], { driver }))
  )
  const worker = Worker.layer({ pollMs: 50 }).pipe(
    Layer.provide(FeatureJobsLive),
    Layer.provide(EdgeProviderLocal)
  )
  return worker.pipe(Layer.provideMerge(services))
}

/** Read until `holds` (every 50 ms, at most 10 s); the last value read, so that the test's `expect` shows it. */
const until = <A>(read: () => Promise<A>, holds: (a: A) => boolean): Promise<A> => poll(read, holds, 10_000)

/** The feature routes (`Registry.FeatureRoutes`) with a worker running their jobs, on each driver. */
for (const driver of TestDatabase.drivers) {
  describe(`feature routes on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    let platform: string
    let tenant: string
    let otherPlatform: string
    let otherTenant: string
    const base = () => `/api/v1/platforms/${platform}/entities/${tenant}`
    const query = <T extends object = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown> = []) =>
      h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)))
    const defaultTenantOf = async (platformId: string) =>
      (await query<{ id: string }>(`SELECT id FROM registry.entities WHERE platform_id = $1 AND slug = 'default'`, [platformId]))[0]!.id
    const activation = (path: string, token = "usr_owner") => h.fetch(path, { token }).then((r) => r.json())

    beforeAll(async () => {
      h = await makeHttpHarness(Route.router(FeatureHandlers, { base: "/api/v1/platforms" }), makeLayer(driver))
      platform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "feat-a", organizationId: "org_a" })))).id
      otherPlatform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "feat-b", organizationId: "org_b" })))).id
      tenant = await defaultTenantOf(platform)
      otherTenant = await defaultTenantOf(otherPlatform)
    }, 60_000)
    afterAll(() => h.dispose())

    it("activates: 202 pending with its job (enqueued in the same transaction); the job makes it active and the manifest lists it", async () => {
      const response = await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_owner", json: { featureId: "payments", version: "1.2.0", environment: "prod" } })
      expect(response.status).toBe(202)
      const body = await response.json()
      expect(body).toEqual({
        activationId: expect.stringMatching(/^act_[0-9A-Z]{26}$/),
        featureId: "payments",
        status: "pending",
        provisionJobId: expect.stringMatching(/^job_[0-9A-Z]{26}$/),
        estimatedDurationSeconds: 5
      })
      const [job] = await query<{ type: string; platform_id: string; organization_id: string; payload: unknown }>(
        `SELECT type, platform_id, organization_id, payload FROM provisioning.jobs WHERE id = $1`, [body.provisionJobId])
      expect(job).toMatchObject({ type: "feature.activate", platform_id: platform, organization_id: "org_a" })
      const active = await until(() => activation(`${base()}/features/${body.activationId}`), (a) => a.status === "active")
      expect(active).toEqual({
        id: body.activationId, platformId: platform, entityId: tenant, featureId: "payments", featureVersion: "1.2.0",
        environment: "prod", status: "active", activatedAt: expect.any(String), deactivatedAt: null,
        createdAt: expect.any(String), updatedAt: expect.any(String)
      })
      expect(await query(`SELECT status FROM provisioning.jobs WHERE id = $1`, [body.provisionJobId])).toEqual([{ status: "COMPLETED" }])
      expect(await query(`SELECT feature_version FROM provisioning.local_features WHERE entity_id = $1 AND feature_id = 'payments'`, [tenant]))
        .toEqual([{ feature_version: "1.2.0" }])
      const manifest = await h.fetch(`${base()}/manifest`, { token: "usr_member" })
      expect(manifest.status).toBe(200)
      expect(await manifest.json()).toEqual({
        platformId: platform, entityId: tenant, environment: "prod",
        features: [{ id: "payments", version: "1.2.0", package: "@core-features/payments", serviceUrl: "/api/v1/features/payments", status: "active" }],
        generatedAt: expect.any(String)
      })
      const dev = await (await h.fetch(`${base()}/manifest?environment=dev`, { token: "usr_member" })).json()
      expect(dev.features).toEqual([])

      const again = await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_admin", json: { featureId: "payments", version: "9.9.9", environment: "prod" } })
      expect(again.status).toBe(200)
      expect(await again.json()).toEqual({ ...body, status: "active" })
      expect(await query(`SELECT count(*)::int AS n FROM registry.feature_activations WHERE feature_id = 'payments'`)).toEqual([{ n: 1 }])
    }, 30_000)

    it("answers 200 with the existing activation (pending or active) on a second activate; the manifest takes package and serviceUrl from config", async () => {
      const first = await h.fetch(`${base()}/features/activate`, {
        method: "POST", token: "usr_owner",
        json: { featureId: "search", version: "2", environment: "stg", config: { package: "@acme/search", serviceUrl: "https://search.acme.test" } }
      })
      expect(first.status).toBe(202)
      const created = await first.json()
      const second = await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_owner", json: { featureId: "search", version: "2", environment: "stg" } })
      expect(second.status).toBe(200)
      expect((await second.json()).activationId).toBe(created.activationId)
      await until(() => activation(`${base()}/features/${created.activationId}`), (a) => a.status === "active")
      const manifest = await (await h.fetch(`${base()}/manifest?environment=stg`, { token: "usr_owner" })).json()
      expect(manifest.features).toEqual([{ id: "search", version: "2", package: "@acme/search", serviceUrl: "https://search.acme.test", status: "active" }])
    }, 30_000)

    it("deactivates: deactivating, then deactivated by its job; gone from the manifest; a second deactivation is 404", async () => {
      const created = await (await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_owner", json: { featureId: "chat", version: "1", environment: "dev" } })).json()
      await until(() => activation(`${base()}/features/${created.activationId}`), (a) => a.status === "active")
      const response = await h.fetch(`${base()}/features/deactivate`, { method: "POST", token: "usr_owner", json: { featureId: "chat", environment: "dev" } })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ featureId: "chat", status: "deactivating" })
      const done = await until(() => activation(`${base()}/features/${created.activationId}`), (a) => a.status === "deactivated")
      expect(done).toMatchObject({ status: "deactivated", deactivatedAt: expect.any(String), activatedAt: expect.any(String) })
      expect(await query(`SELECT 1 FROM provisioning.local_features WHERE entity_id = $1 AND feature_id = 'chat'`, [tenant])).toEqual([])
      expect((await (await h.fetch(`${base()}/manifest?environment=dev`, { token: "usr_owner" })).json()).features).toEqual([])
      const again = await h.fetch(`${base()}/features/deactivate`, { method: "POST", token: "usr_owner", json: { featureId: "chat", environment: "dev" } })
      expect(again.status).toBe(404)
      expect((await again.json()).error.code).toBe("NOT_FOUND")
      const reactivated = await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_owner", json: { featureId: "chat", version: "2", environment: "dev" } })
      expect(reactivated.status).toBe(202)
      expect((await reactivated.json()).activationId).not.toBe(created.activationId)
    }, 30_000)

    it("deactivates a pending activation; activating what is being deactivated is 409 INVALID_STATE", async () => {
      const insert = (id: string, feature: string, status: string) =>
        query(`INSERT INTO registry.feature_activations (id, platform_id, entity_id, feature_id, feature_version, environment, status, created_at, updated_at)
          VALUES ($1, $2, $3, $4, '1', 'prod', $5, now(), now())`, [id, platform, tenant, feature, status])
      await insert("act_01JABCDEFGHJKMNPQRSTVWXYZ1", "stuck", "pending")
      const response = await h.fetch(`${base()}/features/deactivate`, { method: "POST", token: "usr_owner", json: { featureId: "stuck", environment: "prod" } })
      expect(await response.json()).toEqual({ featureId: "stuck", status: "deactivating" })
      await until(() => activation(`${base()}/features/act_01JABCDEFGHJKMNPQRSTVWXYZ1`), (a) => a.status === "deactivated")
      await insert("act_01JABCDEFGHJKMNPQRSTVWXYZ2", "leaving", "deactivating")
      const refused = await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_owner", json: { featureId: "leaving", version: "1", environment: "prod" } })
      expect(refused.status).toBe(409)
      expect((await refused.json()).error).toMatchObject({ code: "INVALID_STATE", details: { from: "deactivating", to: "pending" } })
      const repeated = await h.fetch(`${base()}/features/deactivate`, { method: "POST", token: "usr_owner", json: { featureId: "leaving", environment: "prod" } })
      expect(await repeated.json()).toEqual({ featureId: "leaving", status: "deactivating" })
    }, 30_000)

    it("lists activations as a Page with filters and a cursor", async () => {
      const page = await (await h.fetch(`${base()}/features?limit=1`, { token: "usr_member" })).json()
      expect(page.data).toHaveLength(1)
      expect(page.pagination).toMatchObject({ hasMore: true, nextCursor: expect.any(String) })
      const total = page.pagination.total as number
      expect(total).toBeGreaterThanOrEqual(4)
      const rest = await (await h.fetch(`${base()}/features?limit=100&cursor=${page.pagination.nextCursor}`, { token: "usr_member" })).json()
      expect(rest.data).toHaveLength(total - 1)
      expect(rest.pagination).toEqual({ hasMore: false, nextCursor: null, total })
      const prod = await (await h.fetch(`${base()}/features?environment=prod&status=active`, { token: "usr_member" })).json()
      expect(prod.data.map((a: { featureId: string }) => a.featureId)).toEqual(["payments"])
      expect(page.data[0]).toHaveProperty("featureVersion")
      expect((await h.fetch(`${base()}/features?cursor=garbage`, { token: "usr_member" })).status).toBe(400)
    })

    it("answers 400 VALIDATION_ERROR naming the field, never 500 (a malformed activation id names nothing: 404)", async () => {
      const cases: Array<[unknown, string]> = [
        [{ version: "1", environment: "prod" }, "featureId"],
        [{ featureId: "", version: "1", environment: "prod" }, "featureId"],
        [{ featureId: "x".repeat(129), version: "1", environment: "prod" }, "featureId"],
        [{ featureId: "x", version: "", environment: "prod" }, "version"],
        [{ featureId: "x", version: "1", environment: "qa" }, "environment"],
        [{ featureId: "x", version: "1", environment: "prod", config: "nope" }, "config"]
      ]
      for (const [json, field] of cases) {
        const response = await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_owner", json })
        expect(response.status, JSON.stringify(json)).toBe(400)
        const { error } = await response.json()
        expect(error.code).toBe("VALIDATION_ERROR")
        expect(error.details.issues.map((i: { path: string }) => i.path).join(","), JSON.stringify(json)).toContain(field)
      }
      const manifest = await h.fetch(`${base()}/manifest?environment=live`, { token: "usr_owner" })
      expect(manifest.status).toBe(400)
      expect((await h.fetch(`${base()}/features/act_nope`, { token: "usr_owner" })).status).toBe(404)
    })

    it("another tenant gets 404 on every route (never 403); members read but cannot activate; unknown entities are 404", async () => {
      const [{ id: activationId }] = await query<{ id: string }>(`SELECT id FROM registry.feature_activations WHERE entity_id = $1 LIMIT 1`, [tenant])
      const routes: Array<[string, string, unknown?]> = [
        ["GET", `${base()}/features`],
        ["POST", `${base()}/features/activate`, { featureId: "x", version: "1", environment: "prod" }],
        ["POST", `${base()}/features/deactivate`, { featureId: "payments", environment: "prod" }],
        ["GET", `${base()}/features/${activationId}`],
        ["GET", `${base()}/manifest`]
      ]
      for (const [method, path, json] of routes) {
        for (const init of [{ token: "usr_b_owner" }, { apiKey: "core_b" }]) {
          const response = await h.fetch(path, { method, ...init, ...(json === undefined ? {} : { json }) })
          expect(response.status, `${method} ${path}`).toBe(404)
          expect((await response.json()).error.code).toBe("NOT_FOUND")
        }
      }
      // The other tenant's own entity under this platform's path, and this activation under the other's: 404.
      expect((await h.fetch(`/api/v1/platforms/${platform}/entities/${otherTenant}/manifest`, { token: "usr_owner" })).status).toBe(404)
      expect((await h.fetch(`/api/v1/platforms/${otherPlatform}/entities/${otherTenant}/features/${activationId}`, { token: "usr_b_owner" })).status).toBe(404)
      const member = await h.fetch(`${base()}/features/activate`, { method: "POST", token: "usr_member", json: { featureId: "x", version: "1", environment: "prod" } })
      expect(member.status).toBe(403)
      expect((await h.fetch(`${base()}/features`, { token: "usr_member" })).status).toBe(200)
      expect((await h.fetch(`${base()}/features`)).status).toBe(401)
      expect((await h.fetch(`/api/v1/platforms/${platform}/entities/ent_01JABCDEFGHJKMNPQRSTVWXYZ0/features`, { token: "usr_owner" })).status).toBe(404)
      expect(await query(`SELECT count(*)::int AS n FROM registry.feature_activations WHERE feature_id = 'x'`)).toEqual([{ n: 0 }])
    })

    it("the default tenant is where a platform's features go", async () => {
      expect(await h.run(Effect.flatMap(Features, (f) => f.defaultEntityId(platform)))).toBe(tenant)
    })
  })
}
