import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * Provisioning's job-creating routes through the gateway of the real all-in-one server (`npm
 * start`): the `Idempotency-Key` header reaches the service, a direct feature activation's job
 * moves the registry's activation, another tenant gets 404, and the operators' `auth/upgrade` job
 * runs on the server's worker.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY

for (const driver of TestDatabase.drivers) {
  describe(`job-creating routes through the gateway on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })
    let ada: Tenant
    let bob: Tenant
    let entityId: string

    beforeAll(async () => {
      ada = await tenantOf(server.base, "Ada", `ada-job-create-${driver}`)
      bob = await tenantOf(server.base, "Bob", `bob-job-create-${driver}`)
      const entities = await call(server.base, "GET", `/api/v1/platforms/${ada.platformId}/entities`, ada.bearer)
      entityId = entities.body.data.find((e: { slug: string }) => e.slug === "default").id
    }, SLOW)

    it("feature/activate with an Idempotency-Key: 202 once, the same job again; the job makes the registry's activation active; Bob 404", async () => {
      const body = { platformId: ada.platformId, entityId, featureId: "search", featureVersion: "3.0.0", environment: "prod" }
      const headers = { ...ada.bearer, "idempotency-key": "e2e-activate-1" }
      const first = await call(server.base, "POST", "/api/v1/provisioning/feature/activate", headers, body)
      expect(first.status).toBe(202)
      expect(first.body).toEqual({ jobId: expect.stringMatching(/^job_/), status: "QUEUED" })
      // The documented path under the prefix is the same route.
      const again = await call(server.base, "POST", "/api/v1/provisioning/api/v1/provision/feature/activate", headers, body)
      expect(again).toMatchObject({ status: 202, body: first.body })
      const conflict = await call(server.base, "POST", "/api/v1/provisioning/feature/activate", headers, { ...body, featureVersion: "3.0.1" })
      expect(conflict.status).toBe(409)
      expect(conflict.body.error.code).toBe("CONFLICT")

      const job = await until(() => call(server.base, "GET", `/api/v1/provisioning/jobs/${first.body.jobId}`, ada.bearer), (r) => r.body.status === "COMPLETED")
      expect(job.body).toMatchObject({ type: "feature.activate", status: "COMPLETED", payload: { ...body, activationId: expect.stringMatching(/^act_/) } })
      const activation = await call(server.base, "GET", `/api/v1/platforms/${ada.platformId}/entities/${entityId}/features/${job.body.payload.activationId}`, ada.bearer)
      expect(activation.body).toMatchObject({ status: "active", featureVersion: "3.0.0", featureId: "search" })

      const refused = await call(server.base, "POST", "/api/v1/provisioning/feature/activate", bob.bearer, body)
      expect(refused.status).toBe(404)
      expect(refused.body.error.code).toBe("NOT_FOUND")
      const invalid = await call(server.base, "POST", "/api/v1/provisioning/app/create", ada.bearer, { platformId: ada.platformId, stackId: "s", appName: "Bad_Name", appType: "app" })
      expect(invalid.status).toBe(400)
      expect(invalid.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(["appName"])
    }, SLOW)

    it("auth/upgrade: the owner 403; the static key 202 { jobId, platformId } and the server's worker deploys the auth worker", async () => {
      const owner = await call(server.base, "POST", "/api/v1/provisioning/auth/upgrade", ada.bearer, { platformId: ada.platformId })
      expect(owner.status).toBe(403)
      const key = { authorization: `Bearer ${STATIC_KEY}` }
      const upgraded = await call(server.base, "POST", "/api/v1/provisioning/auth/upgrade", key, { platformId: ada.platformId })
      expect(upgraded).toMatchObject({ status: 202, body: { jobId: expect.stringMatching(/^job_/), platformId: ada.platformId } })
      const job = await until(() => call(server.base, "GET", `/api/v1/provisioning/jobs/${upgraded.body.jobId}`, key), (r) => r.body.status === "COMPLETED")
      expect(job.body).toMatchObject({ type: "auth.upgrade", status: "COMPLETED", result: { platformId: ada.platformId, version: "1.0.0" } })
    }, SLOW)
  })
}
