import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"

/**
 * The job API through the gateway of the real all-in-one server (`npm start`): a feature
 * activation's job read as Server-Sent Events by a plain HTTP client at
 * `/api/v1/provisioning/jobs/{jobId}/events` (the gateway passes the stream through and it ends
 * with the job), listed at `/api/v1/provisioning/jobs`, and the operator routes behind the static key.
 */
const SLOW = 180_000
const STATIC_KEY = "e2e-static-key-job-events-0123456789"

const eventsOf = (text: string) =>
  text.split("\n\n").filter((block) => block.startsWith("id: ")).map((block) => {
    const lines = block.split("\n")
    return { id: lines[0].slice(4), event: lines[1].slice(7), data: JSON.parse(lines[2].slice(6)) }
  })

for (const driver of TestDatabase.drivers) {
  describe(`job events through the gateway on ${driver}`, () => {
    const server = useServer({ CORE_STATIC_API_KEY: STATIC_KEY, CORE_SSE_KEEPALIVE_MS: "100" }, SLOW, { driver })
    let ada: Tenant
    let bob: Tenant
    let jobId: string

    beforeAll(async () => {
      ada = await tenantOf(server.base, "Ada", `ada-job-events-${driver}`)
      bob = await tenantOf(server.base, "Bob", `bob-job-events-${driver}`)
      const entities = await call(server.base, "GET", `/api/v1/platforms/${ada.platformId}/entities`, ada.bearer)
      const entityId = entities.body.data.find((e: { slug: string }) => e.slug === "default").id
      const activated = await call(server.base, "POST", `/api/v1/platforms/${ada.platformId}/entities/${entityId}/features/activate`, ada.bearer,
        { featureId: "analytics", version: "1.0.0", environment: "prod" })
      expect(activated.status).toBe(202)
      jobId = activated.body.provisionJobId
    }, SLOW)

    it("streams the job's events live through the gateway until it completes", async () => {
      const response = await fetch(`${server.base}/api/v1/provisioning/jobs/${jobId}/events`, { headers: ada.bearer })
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
      const text = await response.text()
      const events = eventsOf(text)
      expect(events[0]).toMatchObject({ event: "status", data: { jobId, status: "QUEUED", from: null } })
      expect(events.at(-1)).toMatchObject({ event: "status", data: { jobId, status: "COMPLETED", from: "RUNNING", progress: 1 } })
      expect(events.filter((e) => e.event === "step").map((e) => [e.data.step.name, e.data.step.status])).toEqual([
        ["deploy", "running"], ["deploy", "completed"], ["record", "running"], ["record", "completed"]
      ])
      // The documented path under the prefix answers the same stream; resuming skips what was seen.
      const resumed = await fetch(`${server.base}/api/v1/provisioning/api/v1/provision/jobs/${jobId}/events`, {
        headers: { ...ada.bearer, "last-event-id": events[1].id }
      })
      expect(eventsOf(await resumed.text()).map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id))
    }, SLOW)

    it("the keep-alive comment arrives through the gateway while a job waits; the stream ends when an operator cancels it", async () => {
      // A domain.add whose DNS record does not exist fails and waits out its backoff (1 s): the
      // stream stays open with nothing to send but the keep-alive (CORE_SSE_KEEPALIVE_MS=100).
      const added = await call(server.base, "POST", "/api/v1/provisioning/domain/add", ada.bearer,
        { platformId: ada.platformId, customHostname: `waits-${driver}.example.com`, targetDnsRecordId: "dns_missing" })
      expect(added.status).toBe(202)
      const waiting: string = added.body.jobId
      const response = await fetch(`${server.base}/api/v1/provisioning/jobs/${waiting}/events`, { headers: ada.bearer })
      expect(response.status).toBe(200)
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      const deadline = Date.now() + 20_000
      while (!text.includes(": keep-alive\n\n") && Date.now() < deadline) {
        const chunk = await reader.read()
        if (chunk.done) break
        text += decoder.decode(chunk.value, { stream: true })
      }
      expect(text).toContain(": keep-alive\n\n")
      expect(eventsOf(text)[0]).toMatchObject({ event: "status", data: { jobId: waiting, status: "QUEUED" } })
      const cancelled = await call(server.base, "POST", `/api/v1/provisioning/jobs/${waiting}/cancel`, { authorization: `Bearer ${STATIC_KEY}` })
      expect(cancelled.body).toEqual({ jobId: waiting, status: "FAILED", reason: "Cancelled by an operator" })
      for (;;) {
        const chunk = await reader.read()
        if (chunk.done) break
        text += decoder.decode(chunk.value, { stream: true })
      }
      expect(eventsOf(text).at(-1)).toMatchObject({ event: "status", data: { status: "FAILED", actor: "service", reason: "Cancelled by an operator" } })
    }, SLOW)

    it("lists the tenant's jobs; another tenant gets 404 for the stream and an empty list for the platform", async () => {
      await until(() => call(server.base, "GET", `/api/v1/provisioning/jobs/${jobId}`, ada.bearer), (r) => r.body.status === "COMPLETED")
      const list = await call(server.base, "GET", `/api/v1/provisioning/jobs?platformId=${ada.platformId}`, ada.bearer)
      expect(list.status).toBe(200)
      expect(list.body.data.map((j: { jobId: string }) => j.jobId)).toContain(jobId)
      expect(list.body.pagination).toMatchObject({ limit: 25, cursor: "", nextCursor: "" })
      const refused = await call(server.base, "GET", `/api/v1/provisioning/jobs/${jobId}/events`, bob.bearer)
      expect(refused.status).toBe(404)
      expect(refused.body.error.code).toBe("NOT_FOUND")
      const empty = await call(server.base, "GET", `/api/v1/provisioning/jobs?platformId=${ada.platformId}`, bob.bearer)
      expect(empty.body).toEqual({ data: [], pagination: { limit: 25, cursor: "", nextCursor: "", count: 0 } })
    }, SLOW)

    it("operator routes: the tenant's owner 403, the static key acts (409 INVALID_STATE from COMPLETED); the dead-letter list answers", async () => {
      const owner = await call(server.base, "POST", `/api/v1/provisioning/jobs/${jobId}/retry`, ada.bearer)
      expect(owner.status).toBe(403)
      const key = { authorization: `Bearer ${STATIC_KEY}` }
      const retry = await call(server.base, "POST", `/api/v1/provisioning/jobs/${jobId}/retry`, key)
      expect(retry.status).toBe(409)
      expect(retry.body.error).toMatchObject({ code: "INVALID_STATE", details: { from: "COMPLETED", to: "QUEUED" } })
      const dlq = await call(server.base, "GET", "/api/v1/provisioning/dlq", key)
      expect(dlq.status).toBe(200)
      expect(dlq.body.pagination).toEqual({ limit: 25, cursor: "" })
    }, SLOW)
  })
}
