import type { Events } from "@core/contracts"
import { serve } from "@hono/node-server"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHost } from "../examples/hono-host/src/app.js"
import { eventually } from "./support/poll.js"

/**
 * examples/hono-host: Core's identity, registry, billing and events inside a Hono app (in this
 * process, on PGlite in memory), identity under `/identity`, the others behind the host's own
 * authentication (decision 0551); the events service runs as `core-server start` runs it (decision
 * 0730), its settings from the host's `env`: a change reaches the host's in-process subscriber and
 * a webhook endpoint on a local receiver.
 */
describe("examples/hono-host: Core's identity, registry, billing and events inside a Hono app", () => {
  const host = makeHost({
    env: {
      NODE_ENV: "test",
      CORE_DATA_DIR: ":memory:",
      CORE_SECRET: "hono-host-secret-0123456789abcdef",
      CORE_WEBHOOKS_ALLOW_HTTP: "1",
      CORE_WEBHOOKS_ALLOW_PRIVATE: "1"
    }
  })
  let base = ""
  let close = () => {}
  const received: Array<{ readonly headers: IncomingHttpHeaders; readonly body: string }> = []
  const receiver = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
      response.writeHead(204).end()
    })
  })

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    await new Promise<void>((resolve) => {
      const server = serve({ fetch: host.app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
        base = `http://127.0.0.1:${info.port}`
        resolve()
      })
      close = () => server.close()
    })
  }, 120_000)

  afterAll(async () => {
    close()
    await host.dispose()
    await new Promise((resolve) => receiver.close(resolve))
  })

  it("keeps the host's own routes and serves identity under /identity with its own paths", async () => {
    const home = await fetch(`${base}/`)
    expect(await home.text()).toContain("Hello from the host app")

    const signUp = await fetch(`${base}/identity/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada", email: "ada@example.com", password: "correct horse battery" })
    })
    expect(signUp.status).toBe(200)
    const { token, user } = await signUp.json() as { token: string; user: { email: string } }
    expect(user.email).toBe("ada@example.com")

    const session = await fetch(`${base}/identity/api/core/session`, { headers: { authorization: `Bearer ${token}` } })
    expect(session.status).toBe(200)
    expect(await session.json()).toMatchObject({ user: { email: "ada@example.com" }, role: null })

    const code = await fetch(`${base}/identity/oauth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-prefix": "/elsewhere" },
      body: "client_id=core-cli"
    })
    const issued = await code.json() as { verification_uri: string; user_code: string; verification_uri_complete: string }
    expect(issued.verification_uri).toBe(`${base}/identity/device`)
    expect(issued.verification_uri_complete).toBe(`${base}/identity/device?user_code=${issued.user_code}`)
    const page = await fetch(`${base}/identity/sign-up`)
    expect(await page.text()).toContain(`<form method="post" action="/identity/sign-up" novalidate>`)

    const missing = await fetch(`${base}/identity/api/core/nothing-here`, { headers: { "x-request-id": "hono-404" } })
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { error: { code: "NOT_FOUND", message: "Route not found", requestId: "hono-404", details: null } }
    ])
  }, 120_000)

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as any }
  }

  /** Sign up under /identity, set up an organization (so a platform), make it active. */
  const signUp = async (name: string, slug: string) => {
    const { body: { token } } = await call("POST", "/identity/api/auth/sign-up/email", {}, { name, email: `${slug}@example.com`, password: "correct horse battery" })
    const setup = await call("POST", "/identity/api/core/org-setup", { cookie: `core.session_token=${token}` }, { name, slug })
    expect(setup.status).toBe(201)
    const active = await call("POST", "/identity/api/auth/organization/set-active", { authorization: `Bearer ${token}` }, { organizationId: setup.body.orgId })
    expect(active.status).toBe(200)
    return { token: token as string, orgId: setup.body.orgId as string, platformId: setup.body.platformId as string }
  }

  it("serves the registry and billing to the users the host signs in (bearer or the session cookie), and /me reads both", async () => {
    const bea = await signUp("Bea", "bea-hono")
    const bearer = { authorization: `Bearer ${bea.token}` }
    const platform = await call("GET", `/registry/api/v1/platforms/${bea.platformId}`, bearer)
    expect(platform).toMatchObject({ status: 200, body: { id: bea.platformId, slug: "bea-hono", status: "active" } })
    const byCookie = await call("GET", `/registry/api/v1/platforms/${bea.platformId}`, { cookie: `core.session_token=${bea.token}` })
    expect(byCookie.status).toBe(200)

    const plans = await call("GET", "/billing/plans", bearer)
    expect(plans.status).toBe(200)
    const subscription = await call("GET", `/billing/api/billing/subscription?platformId=${bea.platformId}`, bearer)
    expect(subscription).toMatchObject({ status: 200, body: { platformId: bea.platformId, tier: "free", status: "active" } })

    const me = await call("GET", "/me", bearer)
    expect(me).toEqual({
      status: 200,
      body: { email: "bea-hono@example.com", platform: { slug: "bea-hono", status: "active" }, subscription: { tier: "free", status: "active" } }
    })
  }, 120_000)

  it("keeps its own authentication in front of the registry and billing: no session, a bad one, or forged identity headers get the host's 401", async () => {
    const cy = await signUp("Cy", "cy-hono")
    const refused = { status: 401, body: { error: "unauthorized", message: "Sign in at /identity first" } }
    expect(await call("GET", `/registry/api/v1/platforms/${cy.platformId}`)).toEqual(refused)
    expect(await call("GET", "/billing/api/billing/subscription", { authorization: "Bearer not-a-session" })).toEqual(refused)
    expect(await call("GET", `/registry/api/v1/platforms/${cy.platformId}`, { "x-core-user-id": "usr_forged", "x-core-role": "operator", "x-core-platform-id": cy.platformId })).toEqual(refused)
    expect(await call("GET", "/me")).toEqual(refused)
    const noChallenge = await fetch(`${base}/billing/plans`)
    expect(noChallenge.headers.get("www-authenticate")).toBe("Bearer")
  }, 120_000)

  it("keeps tenants apart, and a signed-in caller's forged identity headers change nothing", async () => {
    const dee = await signUp("Dee", "dee-hono")
    const eve = await signUp("Eve", "eve-hono")
    const other = await call("GET", `/registry/api/v1/platforms/${eve.platformId}`, { authorization: `Bearer ${dee.token}` })
    expect([other.status, other.body.error.code]).toEqual([404, "NOT_FOUND"])
    const forged = await call("GET", `/registry/api/v1/platforms/${eve.platformId}`, {
      authorization: `Bearer ${dee.token}`, "x-core-role": "operator", "x-core-platform-id": eve.platformId, "x-core-identity": "forged"
    })
    expect([forged.status, forged.body.error.code]).toEqual([404, "NOT_FOUND"])
    const bill = await call("GET", `/billing/api/billing/subscription?platformId=${eve.platformId}`, { authorization: `Bearer ${dee.token}` })
    expect([bill.status, bill.body.error.code]).toEqual([404, "NOT_FOUND"])
  }, 120_000)

  it("runs the events service: a tenant created through /registry reaches the host's subscriber and the organization's webhook endpoint, signed", async () => {
    const fay = await signUp("Fay", "fay-hono")
    const gus = await signUp("Gus", "gus-hono")
    const fayBearer = { authorization: `Bearer ${fay.token}` }
    const seen: Array<Events.EventEnvelope> = []
    const unsubscribe = await host.subscribe((event) => {
      seen.push(event)
    }, { organizationId: fay.orgId, types: ["tenant.created"] })

    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
    const endpoint = await call("POST", "/events/api/v1/webhooks/endpoints", fayBearer, { url, events: ["tenant.created"] })
    expect(endpoint).toMatchObject({ status: 201, body: { url, events: ["tenant.created"], enabled: true } })
    const foreign = await call("GET", `/events/api/v1/webhooks/endpoints/${endpoint.body.id}`, { authorization: `Bearer ${gus.token}` })
    expect([foreign.status, foreign.body.error.code]).toEqual([404, "NOT_FOUND"])

    const tenant = await call("POST", `/registry/api/v1/platforms/${fay.platformId}/entities`, fayBearer, { name: "Shop", slug: "shop", type: "tenant" })
    expect(tenant.status).toBe(201)
    expect((await call("POST", `/registry/api/v1/platforms/${gus.platformId}/entities`, { authorization: `Bearer ${gus.token}` }, { name: "Other", slug: "other", type: "tenant" })).status).toBe(201)

    await eventually(() => seen.length, (count) => count >= 1, { message: "the host's subscriber to get tenant.created", timeout: 20_000 })
    expect(seen.map((event) => [event.type, event.organizationId, event.platformId, event.data.id])).toEqual([["tenant.created", fay.orgId, fay.platformId, tenant.body.id]])
    const [delivery] = await eventually(() => received, (all) => all.length >= 1, { message: "the receiver to get tenant.created", timeout: 20_000 })
    const payload = new Webhook(endpoint.body.secret).verify(delivery!.body, {
      "webhook-id": String(delivery!.headers["webhook-id"]),
      "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery!.headers["webhook-signature"])
    })
    expect(payload).toEqual(seen[0])
    expect(delivery!.headers["webhook-id"]).toBe(seen[0]!.id)
    const listed = await call("GET", "/events/api/v1/events?type=tenant.created", fayBearer)
    expect(listed).toMatchObject({ status: 200, body: { data: [{ id: seen[0]!.id }] } })
    await unsubscribe()
    expect(received).toHaveLength(1)
  }, 120_000)
})
