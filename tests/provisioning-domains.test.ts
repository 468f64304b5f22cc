import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * Custom domains through the gateway of the real all-in-one server: a platform's owner records a
 * DNS record in the registry, `domain/add` names it, the server's worker adds the hostname on the
 * (local) edge; the domain is listed with its verification status and removed; another tenant gets
 * 404 for the list and the removal.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY

for (const driver of TestDatabase.drivers) {
  describe(`custom domains through the gateway on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })
    let ada: Tenant
    let bob: Tenant

    beforeAll(async () => {
      ada = await tenantOf(server.base, "Ada", `ada-domains-${driver}`)
      bob = await tenantOf(server.base, "Bob", `bob-domains-${driver}`)
    }, SLOW)

    it("adds a domain by its job, lists it with its verification status, removes it; another tenant 404", async () => {
      const { base } = server
      const record = await call(base, "POST", `/api/v1/platforms/${ada.platformId}/dns-records`, ada.bearer, { type: "CNAME", name: "shop.example.com", content: "ada.example.net" })
      expect(record.status).toBe(201)
      const added = await call(base, "POST", "/api/v1/provisioning/domain/add", ada.bearer, {
        platformId: ada.platformId, customHostname: "Shop.Example.com", targetDnsRecordId: record.body.id
      })
      expect(added).toMatchObject({ status: 202, body: { jobId: expect.stringMatching(/^job_/), status: "QUEUED" } })
      const job = await until(() => call(base, "GET", `/api/v1/provisioning/jobs/${added.body.jobId}`, ada.bearer), (r) => r.body.status === "COMPLETED" || r.body.status === "FAILED", 15_000)
      expect(job.body).toMatchObject({ type: "domain.add", status: "COMPLETED" })

      const listed = await call(base, "GET", `/api/v1/provisioning/domains?platformId=${ada.platformId}`, ada.bearer)
      expect(listed.status).toBe(200)
      expect(listed.body.data).toEqual([expect.objectContaining({
        id: job.body.result.domainId, platformId: ada.platformId, hostname: "shop.example.com", targetDnsRecordId: record.body.id,
        status: "active", verificationStatus: "verified", jobId: added.body.jobId, deletedAt: null
      })])

      const hidden = await call(base, "GET", `/api/v1/provisioning/domains?platformId=${ada.platformId}`, bob.bearer)
      expect([hidden.status, hidden.body.error.code]).toEqual([404, "NOT_FOUND"])
      const notHers = await call(base, "DELETE", `/api/v1/provisioning/domains/${job.body.result.domainId}`, bob.bearer)
      expect([notHers.status, notHers.body.error.code, notHers.body.error.message]).toEqual([404, "NOT_FOUND", "Domain not found"])
      const missing = await call(base, "DELETE", "/api/v1/provisioning/domains/dom_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", ada.bearer)
      expect([missing.status, missing.body.error.code]).toEqual([404, "NOT_FOUND"])
      expect((await call(base, "GET", "/api/v1/provisioning/domains", ada.bearer)).status).toBe(400)

      const removed = await call(base, "DELETE", `/api/v1/provisioning/domains/${job.body.result.domainId}`, ada.bearer)
      expect(removed.status).toBe(200)
      expect(removed.body).toMatchObject({ id: job.body.result.domainId, status: "deleted", deletedAt: expect.any(String) })
      expect((await call(base, "GET", `/api/v1/provisioning/domains?platformId=${ada.platformId}`, ada.bearer)).body.data).toEqual([])
      const again = await call(base, "DELETE", `/api/v1/provisioning/domains/${job.body.result.domainId}`, ada.bearer)
      expect([again.status, again.body.status]).toEqual([200, "deleted"])
      const operator = await call(base, "GET", `/api/v1/provisioning/domains?platformId=${ada.platformId}`, { authorization: `Bearer ${STATIC_KEY}` })
      expect(operator).toMatchObject({ status: 200, body: { data: [] } })
    }, SLOW)
  })
}
