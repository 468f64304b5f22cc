import type { Events } from "@core/contracts"
import { eventually } from "@core/kernel/testing"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Embedded from "../src/Embedded.js"

/**
 * `Embedded.make` from a host app's point of view (in this process, PGlite in memory): the events
 * service runs as `core-server start` runs it, so a change made through the embedded registry
 * reaches the host's in-process subscriber and the organization's webhook endpoint on a local
 * receiver (signed, verified with `standardwebhooks`), and the settings come from the `env` the host
 * passed (`CORE_WEBHOOKS_ALLOW_HTTP`, `CORE_WEBHOOKS_ALLOW_PRIVATE`), not from `process.env`.
 */
describe("Embedded.make runs the events service", () => {
  const core = Embedded.make(
    {
      NODE_ENV: "test",
      CORE_DATA_DIR: ":memory:",
      CORE_SECRET: "embedded-events-secret-0123456789abcdef",
      CORE_WEBHOOKS_ALLOW_HTTP: "1",
      CORE_WEBHOOKS_ALLOW_PRIVATE: "1",
      CORE_WEBHOOKS_RETRY_SCHEDULE: "0s,200ms"
    },
    { logging: { level: "warn", format: "json" } }
  )
  const received: Array<{ readonly headers: IncomingHttpHeaders; readonly body: string }> = []
  const receiver = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
      response.writeHead(204).end()
    })
  })
  let receiverUrl = ""

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  })
  afterAll(async () => {
    await core.dispose()
    await new Promise((resolve) => receiver.close(resolve))
  })

  const json = async (handler: (request: Request) => Promise<Response>, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await handler(new Request(`http://core.internal${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }))
    const text = await response.text()
    return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as any }
  }

  /** A user signed up through the embedded identity, with an organization (so a platform), active. */
  const signedUp = async (slug: string) => {
    const signUp = await json(core.identity, "POST", "/api/auth/sign-up/email", {}, { name: slug, email: `${slug}@example.com`, password: "correct horse battery" })
    expect(signUp.status).toBe(200)
    const bearer = { authorization: `Bearer ${signUp.body.token}` }
    const setup = await json(core.identity, "POST", "/api/core/org-setup", { cookie: `core.session_token=${signUp.body.token}` }, { name: slug, slug })
    expect(setup.status).toBe(201)
    expect((await json(core.identity, "POST", "/api/auth/organization/set-active", bearer, { organizationId: setup.body.orgId })).status).toBe(200)
    const caller = await core.sessionOf(signUp.body.token)
    expect(caller).toBeDefined()
    return { caller: caller!, orgId: setup.body.orgId as string, platformId: setup.body.platformId as string }
  }

  it("delivers a change made through the embedded registry to an in-process subscriber and to a webhook endpoint", async () => {
    const ada = await signedUp("ada-embedded")
    const other = await signedUp("bo-embedded")
    const seen: Array<Events.EventEnvelope> = []
    const unsubscribe = await core.subscribe((event) => {
      seen.push(event)
    }, { organizationId: ada.orgId, types: ["tenant.created"] })

    const endpoint = await json(core.events, "POST", "/api/v1/webhooks/endpoints", core.signedHeaders(ada.caller, "events"), { url: receiverUrl, events: ["tenant.created"] })
    expect(endpoint.status).toBe(201)
    expect(endpoint.body).toMatchObject({ url: receiverUrl, events: ["tenant.created"], enabled: true })
    // Another organization's endpoint is not found; the events service believes only a caller signed for it.
    expect((await json(core.events, "GET", `/api/v1/webhooks/endpoints/${endpoint.body.id}`, core.signedHeaders(other.caller, "events"))).status).toBe(404)
    expect((await json(core.events, "GET", "/api/v1/webhooks/endpoints", core.signedHeaders(ada.caller, "registry"))).status).toBe(401)

    const tenant = await json(core.registry, "POST", `/api/v1/platforms/${ada.platformId}/entities`, core.signedHeaders(ada.caller, "registry"), { name: "Shop", slug: "shop", type: "tenant" })
    expect(tenant.status).toBe(201)
    await json(core.registry, "POST", `/api/v1/platforms/${other.platformId}/entities`, core.signedHeaders(other.caller, "registry"), { name: "Elsewhere", slug: "elsewhere", type: "tenant" })

    await eventually(() => seen.length, (count) => count >= 1, { message: "the subscriber to get tenant.created", timeout: 20_000 })
    expect(seen.map((event) => [event.type, event.organizationId, event.platformId, event.data.id])).toEqual([["tenant.created", ada.orgId, ada.platformId, tenant.body.id]])

    const [delivery] = await eventually(() => received, (all) => all.length >= 1, { message: "the receiver to get tenant.created", timeout: 20_000 })
    const payload = new Webhook(endpoint.body.secret).verify(delivery!.body, {
      "webhook-id": String(delivery!.headers["webhook-id"]),
      "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery!.headers["webhook-signature"])
    }) as Events.EventEnvelope
    expect(payload).toEqual(seen[0])
    expect(delivery!.headers["webhook-id"]).toBe(seen[0]!.id)

    // The organization's event log has it too, read through the embedded events service.
    const listed = await json(core.events, "GET", "/api/v1/events?type=tenant.created", core.signedHeaders(ada.caller, "events"))
    expect(listed).toMatchObject({ status: 200, body: { data: [{ id: seen[0]!.id }] } })
    await unsubscribe()
    expect(received).toHaveLength(1)
  }, 120_000)
})
