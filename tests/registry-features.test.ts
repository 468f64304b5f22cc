import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { tenantOf, until } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * Feature activation end to end, through the gateway of the real all-in-one server (`npm start`):
 * the registry enqueues the job in the activation's transaction, the server's provisioning worker
 * runs it on the local edge provider within seconds, the activation becomes active and the
 * manifest lists it; the job reads through `/api/v1/provisioning/...`; another tenant gets 404.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY



for (const driver of TestDatabase.drivers) {
  describe(`feature activation through the gateway on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })
    let ada: { token: string; platformId: string; entityId: string }
    let bob: { token: string; platformId: string }
    const as = (token: string, path: string, init: { method?: string; json?: unknown } = {}) =>
      fetch(`${server.base}${path}`, {
        method: init.method ?? "GET",
        headers: { authorization: `Bearer ${token}`, ...(init.json === undefined ? {} : { "content-type": "application/json" }) },
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) })
      })

    beforeAll(async () => {
      const a = await tenantOf(server.base, "Ada", `ada-features-${driver}`)
      bob = await tenantOf(server.base, "Bob", `bob-features-${driver}`)
      const entities = await (await as(a.token, `/api/v1/platforms/${a.platformId}/entities`)).json() as { data: Array<{ id: string; slug: string }> }
      ada = { ...a, entityId: entities.data.find((e) => e.slug === "default")!.id }
    }, SLOW)

    it("activates a feature: 202, its job completes within seconds, the activation is active and the manifest lists it", async () => {
      const features = `/api/v1/platforms/${ada.platformId}/entities/${ada.entityId}/features`
      const started = Date.now()
      const response = await as(ada.token, `${features}/activate`, { method: "POST", json: { featureId: "analytics", version: "1.0.0", environment: "prod" } })
      expect(response.status).toBe(202)
      const body = await response.json() as { activationId: string; provisionJobId: string; status: string }
      expect(body).toMatchObject({ featureId: "analytics", status: "pending", estimatedDurationSeconds: 5 })

      const job = await until(async () => (await as(ada.token, `/api/v1/provisioning/jobs/${body.provisionJobId}`)).json() as Promise<{ status: string }>,
        (j) => j.status === "COMPLETED")
      expect(job).toMatchObject({ jobId: body.provisionJobId, type: "feature.activate", platformId: ada.platformId, status: "COMPLETED", attempts: 1, progress: 1 })
      expect(Date.now() - started).toBeLessThan(5_000)
      // The documented path, forwarded whole under the prefix, answers the same job.
      const documented = await as(ada.token, `/api/v1/provisioning/api/v1/provision/jobs/${body.provisionJobId}`)
      expect(documented.status).toBe(200)
      expect((await documented.json()).status).toBe("COMPLETED")

      const activation = await (await as(ada.token, `${features}/${body.activationId}`)).json()
      expect(activation).toMatchObject({ status: "active", featureId: "analytics", featureVersion: "1.0.0", activatedAt: expect.any(String) })
      const manifest = await (await as(ada.token, `/api/v1/platforms/${ada.platformId}/entities/${ada.entityId}/manifest`)).json()
      expect(manifest).toMatchObject({
        platformId: ada.platformId,
        entityId: ada.entityId,
        environment: "prod",
        features: [{ id: "analytics", version: "1.0.0", package: "@core-features/analytics", serviceUrl: "/api/v1/features/analytics", status: "active" }]
      })

      // Another tenant: 404 for the job, the activation and the manifest, never 403.
      for (const path of [`/api/v1/provisioning/jobs/${body.provisionJobId}`, `${features}/${body.activationId}`, `/api/v1/platforms/${ada.platformId}/entities/${ada.entityId}/manifest`]) {
        const refused = await as(bob.token, path)
        expect(refused.status, path).toBe(404)
        expect((await refused.json()).error.code).toBe("NOT_FOUND")
      }
      expect((await as(bob.token, "/api/v1/provisioning/jobs/job_01JABCDEFGHJKMNPQRSTVWXYZ0")).status).toBe(404)
      expect((await as(ada.token, "/api/v1/provisioning/jobs/not-a-job")).status).toBe(404)
    }, SLOW)

    it("POST /api/v1/provisioning/internal/platform-status takes the service key only", async () => {
      const body = { platformId: ada.platformId, status: "active" }
      const ok = await as(STATIC_KEY, "/api/v1/provisioning/internal/platform-status", { method: "POST", json: body })
      expect(ok.status).toBe(200)
      expect(await ok.json()).toEqual({ platformId: ada.platformId, status: "active", updatedAt: expect.any(String) })
      // A user's session is not the service key: 401 (the kernel's answer to a caller kind a route does not take).
      const user = await as(ada.token, "/api/v1/provisioning/internal/platform-status", { method: "POST", json: body })
      expect(user.status).toBe(401)
      expect((await user.json()).error.code).toBe("UNAUTHORIZED")
      const bad = await as(STATIC_KEY, "/api/v1/provisioning/internal/platform-status", { method: "POST", json: { platformId: ada.platformId, status: "paused" } })
      expect(bad.status).toBe(400)
      expect((await bad.json()).error.code).toBe("VALIDATION_ERROR")
    }, SLOW)
  })
}
