import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Events } from "@core/contracts"
import { verifyWebhook } from "@core/sdk"
import { TestDatabase } from "@core/kernel/testing"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/poll.js"
import { useSharedServer } from "./support/sharedServer.js"
import { call, type Tenant, tenantOf } from "./support/tenants.js"

/**
 * Events and webhooks end to end, through the gateway of a real `core-server` (the shared one:
 * webhooks to 127.0.0.1 allowed over http, retried after 200 ms): a local receiver gets exactly
 * the events of its endpoint's types, signed so that the `standardwebhooks` package and the SDK's
 * `verifyWebhook` both accept them; a receiver failing three times gets four attempts with one
 * `webhook-id`; a rotated secret signs beside the new one; another tenant sees nothing.
 */

interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A local receiver: records every request; `/flaky` answers 500 three times per webhook-id, then 200; `/gone` answers 410. */
const startReceiver = async () => {
  const received: Array<Received> = []
  const failures = new Map<string, number>()
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      const path = request.url ?? "/"
      received.push({ path, headers: request.headers, body })
      const id = String(request.headers["webhook-id"])
      if (path === "/flaky" && (failures.get(id) ?? 0) < 3) {
        failures.set(id, (failures.get(id) ?? 0) + 1)
        response.writeHead(500).end("not yet")
        return
      }
      if (path === "/gone") return void response.writeHead(410).end("gone")
      response.writeHead(200, { "content-type": "text/plain" }).end("thanks")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

for (const driver of TestDatabase.drivers) {
  describe(`webhooks through the gateway on ${driver}`, () => {
    const server = useSharedServer(180_000, { driver })
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let tenant: Tenant
    let other: Tenant
    const api = (method: string, path: string, who: Tenant, body?: unknown) => call(server.base, method, path, who.bearer, body)
    const endpoint = async (who: Tenant, path: string, events?: ReadonlyArray<string>) => {
      const created = await api("POST", "/api/v1/webhooks/endpoints", who, { url: `${receiver.url}${path}`, ...(events === undefined ? {} : { events }) })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      return Events.CreatedWebhookEndpoint.parse(created.body)
    }
    const at = (path: string) => receiver.received.filter((request) => request.path === path)

    beforeAll(async () => {
      receiver = await startReceiver()
      const suffix = `${driver}-${Date.now().toString(36)}`
      tenant = await tenantOf(server.base, "Hooked", `hooked-${suffix}`)
      other = await tenantOf(server.base, "Other", `other-${suffix}`)
    }, 180_000)
    afterAll(() => receiver?.close())

    it("delivers exactly the events of the endpoint's types, signed so that standardwebhooks and verifyWebhook accept them", async () => {
      const tenants = await endpoint(tenant, "/tenants", ["tenant.created"])
      const all = await endpoint(tenant, "/all")
      const foreign = await endpoint(other, "/foreign")
      const entity = await api("POST", `/api/v1/platforms/${tenant.platformId}/entities`, tenant, { name: "Shop", slug: "shop", type: "tenant" })
      expect(entity.status).toBe(201)
      const [delivery] = await eventually(() => at("/tenants"), (list) => list.length >= 1, { message: "the tenant.created delivery" })
      const event = JSON.parse(delivery.body)
      expect(event).toMatchObject({ type: "tenant.created", version: 1, organizationId: tenant.orgId, platformId: tenant.platformId, data: { id: entity.body.id, slug: "shop" } })
      expect(delivery.headers["webhook-id"]).toBe(event.id)
      expect(delivery.headers["content-type"]).toBe("application/json")
      expect(String(delivery.headers["webhook-signature"])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      const headers = { "webhook-id": String(delivery.headers["webhook-id"]), "webhook-timestamp": String(delivery.headers["webhook-timestamp"]), "webhook-signature": String(delivery.headers["webhook-signature"]) }
      expect(new Webhook(tenants.secret).verify(delivery.body, headers)).toEqual(event)
      expect(await verifyWebhook(delivery.body, delivery.headers, tenants.secret)).toEqual(event)
      await expect(verifyWebhook(delivery.body, delivery.headers, all.secret)).rejects.toThrow("No signature matches")
      await expect(verifyWebhook(`${delivery.body} `, delivery.headers, tenants.secret)).rejects.toThrow("No signature matches")

      const listed = await api("GET", `/api/v1/events?type=tenant.created`, tenant)
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((row: { id: string }) => row.id)).toContain(event.id)
      expect((await api("GET", `/api/v1/events/${event.id}`, other)).status).toBe(404)
      // A test event reaches its one endpoint only; the endpoint of every type got the tenant.created event too.
      const tested = await api("POST", `/api/v1/webhooks/endpoints/${tenants.id}/test`, tenant)
      expect(tested.status).toBe(202)
      expect(tested.body.type).toBe("webhook.test")
      await eventually(() => at("/tenants"), (list) => list.some((request) => JSON.parse(request.body).type === "webhook.test"), { message: "the test delivery" })
      await eventually(() => at("/all"), (list) => list.some((request) => JSON.parse(request.body).id === event.id), { message: "the delivery to the endpoint of every type" })
      expect(at("/tenants").map((request) => JSON.parse(request.body).type).sort()).toEqual(["tenant.created", "webhook.test"])
      expect(at("/all").some((request) => JSON.parse(request.body).type === "webhook.test")).toBe(false)
      expect(at("/foreign")).toEqual([])
      expect(foreign.id).toMatch(/^whe_/)

      const log = await eventually(async () => (await api("GET", `/api/v1/webhooks/endpoints/${tenants.id}/deliveries`, tenant)).body,
        (page) => page?.data?.length === 2, { message: "two attempts in the delivery log" })
      expect(log.data[0]).toMatchObject({ endpointId: tenants.id, attempt: 1, status: "succeeded", statusCode: 200, response: "thanks", error: null })
      expect((await api("GET", `/api/v1/webhooks/endpoints/${tenants.id}/deliveries`, other)).status).toBe(404)
      // The delivery jobs are internal: the tenant's job list has none of them.
      const jobs = await api("GET", `/api/v1/provisioning/api/v1/provision/jobs?platformId=${tenant.platformId}`, tenant)
      expect(JSON.stringify(jobs.body)).not.toContain("webhook.deliver")
    })

    it("retries a receiver that fails: 500 three times then 200 is four attempts with one webhook-id; retry and replay send it again", async () => {
      const flaky = await endpoint(tenant, "/flaky")
      const tested = await api("POST", `/api/v1/webhooks/endpoints/${flaky.id}/test`, tenant)
      const attempts = await eventually(() => at("/flaky").filter((request) => request.headers["webhook-id"] === tested.body.id), (list) => list.length >= 4, {
        message: "four attempts at /flaky",
        timeout: 20_000
      })
      expect(attempts).toHaveLength(4)
      expect(new Set(attempts.map((request) => request.headers["webhook-id"]))).toEqual(new Set([tested.body.id]))
      for (const request of attempts) expect(await verifyWebhook(request.body, request.headers, flaky.secret)).toMatchObject({ id: tested.body.id })
      const log = await eventually(async () => (await api("GET", `/api/v1/webhooks/endpoints/${flaky.id}/deliveries`, tenant)).body,
        (page) => page?.data?.length === 4, { message: "four attempts in the log" })
      expect(log.data.map((row: { attempt: number; status: string; statusCode: number }) => [row.attempt, row.status, row.statusCode])).toEqual([
        [4, "succeeded", 200], [3, "failed", 500], [2, "failed", 500], [1, "failed", 500]
      ])
      expect(log.data[1].response).toBe("not yet")

      const retried = await api("POST", `/api/v1/webhooks/deliveries/${log.data[3].id}/retry`, tenant)
      expect(retried.status).toBe(202)
      expect(retried.body).toEqual({ endpointId: flaky.id, eventId: tested.body.id })
      await eventually(() => at("/flaky").filter((request) => request.headers["webhook-id"] === tested.body.id), (list) => list.length === 5, { message: "the retried delivery" })
      expect((await api("POST", `/api/v1/webhooks/deliveries/${log.data[3].id}/retry`, other)).status).toBe(404)
    })

    it("records api_key.created and api_key.revoked with their changes, never the key, for the key's organization only", async () => {
      const keys = await endpoint(tenant, "/keys", ["api_key.created", "api_key.revoked"])
      const created = await api("POST", "/api/v1/iam/api/core/apikeys", tenant, { organizationId: tenant.orgId, permissions: ["events:read"] })
      expect(created.status).toBe(201)
      expect((await api("DELETE", `/api/v1/iam/api/core/apikeys/${created.body.id}`, tenant)).status).toBe(204)
      const received = await eventually(() => at("/keys"), (list) => list.length >= 2, { message: "the two api_key events" })
      const events = await Promise.all(received.map((request) => verifyWebhook(request.body, request.headers, keys.secret)))
      expect(events.map((event) => [event.type, event.data.id]).sort()).toEqual([["api_key.created", created.body.id], ["api_key.revoked", created.body.id]])
      expect(events.every((event) => event.organizationId === tenant.orgId && event.platformId === tenant.platformId)).toBe(true)
      for (const request of received) {
        expect(request.body).not.toContain(created.body.key)
        expect(JSON.parse(request.body).data.keyHash).toBeUndefined()
      }
      expect(events.find((event) => event.type === "api_key.revoked")!.data.revokedAt).toEqual(expect.any(String))
      const listed = await api("GET", "/api/v1/events?type=api_key.created", other)
      expect(listed.body.data.some((event: { data: { id: string } }) => event.data.id === created.body.id)).toBe(false)
    })

    it("signs with both secrets after a rotation, and disables an endpoint that answers 410", async () => {
      const rotating = await endpoint(tenant, "/rotating")
      const rotated = await api("POST", `/api/v1/webhooks/endpoints/${rotating.id}/rotate-secret`, tenant)
      expect(rotated.status).toBe(200)
      const tested = await api("POST", `/api/v1/webhooks/endpoints/${rotating.id}/test`, tenant)
      const [delivery] = await eventually(() => at("/rotating"), (list) => list.length >= 1, { message: "the delivery after rotation" })
      expect(String(delivery.headers["webhook-signature"]).split(" ")).toHaveLength(2)
      for (const secret of [rotated.body.secret, rotating.secret]) {
        expect(await verifyWebhook(delivery.body, delivery.headers, secret)).toMatchObject({ id: tested.body.id })
        expect(new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).toMatchObject({ id: tested.body.id })
      }

      const gone = await endpoint(tenant, "/gone")
      const watcher = await endpoint(tenant, "/watcher", ["webhook.endpoint_disabled"])
      await api("POST", `/api/v1/webhooks/endpoints/${gone.id}/test`, tenant)
      const read = await eventually(async () => (await api("GET", `/api/v1/webhooks/endpoints/${gone.id}`, tenant)).body, (body) => body?.enabled === false, {
        message: "the endpoint disabled after 410"
      })
      expect(read.enabled).toBe(false)
      const [told] = await eventually(() => at("/watcher"), (list) => list.length >= 1, { message: "webhook.endpoint_disabled at the watcher" })
      expect(await verifyWebhook(told.body, told.headers, watcher.secret)).toMatchObject({
        type: "webhook.endpoint_disabled",
        data: { endpointId: gone.id, reason: "gone" }
      })
      expect(at("/gone")).toHaveLength(1)
    })
  })
}
