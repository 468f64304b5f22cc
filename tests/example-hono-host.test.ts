import { serve } from "@hono/node-server"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHost } from "../examples/hono-host/src/app.js"

/**
 * examples/hono-host: Core's identity, registry and billing inside a Hono app (in this process, on
 * PGlite in memory), identity under `/identity`, the registry and billing behind the host's own
 * authentication (decision 0551).
 */
describe("examples/hono-host: Core's identity, registry and billing inside a Hono app", () => {
  const host = makeHost({ env: { NODE_ENV: "test", CORE_DATA_DIR: ":memory:", CORE_SECRET: "hono-host-secret-0123456789abcdef" } })
  let base = ""
  let close = () => {}

  beforeAll(async () => {
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
})
