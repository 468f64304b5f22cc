import { CoreApiError, createClient } from "@core/sdk"
import { describe, expect, it } from "vitest"
import * as Prometheus from "./support/prometheus.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * The gateway's authentication and suspension as a user meets them: the real all-in-one server
 * with a static key, the real identity service behind it, driven over HTTP.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY

interface Envelope {
  readonly error: { readonly code: string; readonly message: string; readonly requestId: string }
}

describe("gateway authentication through the all-in-one server", () => {
  const server = useSharedServer(SLOW)

  const tenant = async (name: string, slug: string) => {
    const { token } = await createClient({ baseUrl: server.base }).iam.signUp({
      name,
      email: `${slug}@example.com`,
      password: "correct horse battery"
    })
    const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
      body: JSON.stringify({ name, slug })
    })
    expect(setup.status).toBe(201)
    const { orgId, platformId } = (await setup.json()) as { orgId: string; platformId: string }
    const client = createClient({ baseUrl: server.base, token })
    await client.iam.organizations.setActive({ organizationId: orgId })
    return { token, orgId, platformId, client }
  }

  const session = (headers: Record<string, string>) => fetch(`${server.base}/api/v1/iam/api/core/session`, { headers })

  it("refuses a missing, wrong or malformed credential at the gateway with 401 envelopes", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)"],
      [{ authorization: "Bearer not-a-session" }, "Invalid or expired session"],
      [{ authorization: `Bearer ${STATIC_KEY.slice(0, -1)}` }, "Invalid or expired session"],
      [{ cookie: "core.session_token=not-a-session" }, "Invalid or expired session"],
      [{ "x-api-key": "core_short" }, "Invalid API key: expected x-api-key: core_<key>"],
      [{ "x-api-key": `core_${"A".repeat(43)}` }, "Invalid or revoked API key"]
    ]
    for (const [headers, message] of cases) {
      const response = await session({ ...headers, "x-request-id": "req-refused-1" })
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({
        error: { code: "UNAUTHORIZED", message, requestId: "req-refused-1", details: null }
      })
    }
  }, SLOW)

  it("passes a session by bearer and by cookie, and refuses a cookie write from another site", async () => {
    const ada = await tenant("Ada", "ada-gw")
    expect((await session({ authorization: `Bearer ${ada.token}` })).status).toBe(200)
    expect((await session({ cookie: `core.session_token=${ada.token}` })).status).toBe(200)
    const crossSite = await fetch(`${server.base}/api/v1/iam/api/auth/update-user`, {
      method: "POST",
      headers: { cookie: `core.session_token=${ada.token}`, "sec-fetch-site": "cross-site", "content-type": "application/json" },
      body: JSON.stringify({ name: "Mallory" })
    })
    expect(crossSite.status).toBe(403)
    expect(((await crossSite.json()) as Envelope).error.code).toBe("FORBIDDEN")
    const profile = (await (await session({ authorization: `Bearer ${ada.token}` })).json()) as { user: { name: string } }
    expect(profile.user.name).toBe("Ada")
  }, SLOW)

  it("checks an API key, and refuses it as soon as it is revoked", async () => {
    const bee = await tenant("Bee", "bee-gw")
    const created = await bee.client.iam.apiKeys.create({ organizationId: bee.orgId, name: "ci" })
    const listKeys = () =>
      fetch(`${server.base}/api/v1/iam/api/core/apikeys?organizationId=${bee.orgId}`, { headers: { "x-api-key": created.key } })
    const passed = await listKeys()
    expect(((await passed.json()) as Envelope).error?.message).not.toBe("Invalid or revoked API key")
    await bee.client.iam.apiKeys.revoke(created.id)
    const refused = await listKeys()
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as Envelope).error.message).toBe("Invalid or revoked API key")
  }, SLOW)

  it("answers 451 to a suspended platform's session and key at once, keeps the exemptions open, and restores", async () => {
    const cat = await tenant("Cat", "cat-gw")
    const key = await cat.client.iam.apiKeys.create({ organizationId: cat.orgId, name: "ci" })
    const bearer = { authorization: `Bearer ${cat.token}` }
    expect((await session(bearer)).status).toBe(200)
    const service = createClient({ baseUrl: server.base, token: STATIC_KEY })

    await service.iam.platformStatus.set({ platformId: cat.platformId, status: "suspended" })
    const suspended = await session(bearer)
    expect(suspended.status).toBe(451)
    expect(((await suspended.json()) as Envelope).error).toMatchObject({
      code: "PLATFORM_SUSPENDED",
      message: `Platform ${cat.platformId} has been suspended`
    })
    expect((await session({ "x-api-key": key.key })).status).toBe(451)
    expect((await fetch(`${server.base}/api/v1/iam/api/auth/get-session`, { headers: bearer })).status).toBe(200)
    expect((await session({ authorization: `Bearer ${STATIC_KEY}` })).status).not.toBe(451)

    await service.iam.platformStatus.set({ platformId: cat.platformId, status: "active" })
    expect((await session(bearer)).status).toBe(200)

    const signOut = await fetch(`${server.base}/api/v1/iam/api/auth/sign-out`, { method: "POST", headers: bearer })
    expect(signOut.status).toBe(200)
    expect(signOut.headers.get("x-core-invalidate")).toBeNull()
    const after = await session(bearer)
    expect(after.status).toBe(401)
    expect(((await after.json()) as Envelope).error.message).toBe("Invalid or expired session")
  }, SLOW)

  it("keeps the public routes open and the identity headers the gateway's own", async () => {
    const anonymous = createClient({ baseUrl: server.base })
    const metadata = await fetch(`${server.base}/api/v1/iam/.well-known/oauth-authorization-server`)
    expect(metadata.status).toBe(200)
    const device = await fetch(`${server.base}/api/v1/iam/oauth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: "core-cli" })
    })
    expect(device.status).toBe(200)
    const failed = await anonymous.iam.signIn({ email: "nobody@example.com", password: "wrong password" }).catch((error) => error)
    expect(failed).toBeInstanceOf(CoreApiError)
    expect((failed as CoreApiError).status).toBe(401)
    expect((failed as CoreApiError).code).not.toBe("UNAUTHORIZED")
  }, SLOW)

  it("answers bad input with clear envelopes and never forwards what it refuses", async () => {
    const service = { authorization: `Bearer ${STATIC_KEY}` }
    const notJson = await fetch(`${server.base}/api/v1/iam/api/core/roles`, {
      method: "POST",
      headers: { ...service, "content-type": "application/json" },
      body: "{oops"
    })
    expect([notJson.status, ((await notJson.json()) as Envelope).error.code]).toEqual([400, "INVALID_JSON"])
    const oversized = await fetch(`${server.base}/api/v1/iam/api/core/roles`, {
      method: "POST",
      headers: { ...service, "content-type": "application/json" },
      body: JSON.stringify({ padding: "x".repeat(2 * 1024 * 1024) })
    })
    expect([oversized.status, ((await oversized.json()) as Envelope).error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"])
    const unknown = await fetch(`${server.base}/api/v1/nowhere/x`, { headers: service })
    expect([unknown.status, ((await unknown.json()) as Envelope).error.code]).toEqual([404, "NOT_FOUND"])
    const injected = await fetch(`${server.base}/api/v1/nowhere/x`, { headers: { ...service, "x-request-id": `a b<script>${"x".repeat(300)}` } })
    const requestId = injected.headers.get("x-request-id")
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(((await injected.json()) as Envelope).error.requestId).toBe(requestId)
    const evil = await fetch(`${server.base}/api/v1/iam/api/core/session`, { headers: { ...service, origin: "https://evil.example" } })
    expect([evil.status, ((await evil.json()) as Envelope).error.code]).toEqual([403, "FORBIDDEN"])
  }, SLOW)

  it("serves the merged OpenAPI document without credentials, and the metrics with the static key only", async () => {
    const document = await fetch(`${server.base}/api/v1/openapi.json`)
    expect(document.status).toBe(200)
    const body = (await document.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(body.openapi).toBe("3.1.0")
    expect(Object.keys(body.paths).some((path) => path.startsWith("/api/v1/iam/"))).toBe(true)
    for (const headers of [{}, { authorization: "Bearer not-the-key" }] as Array<Record<string, string>>) {
      const refused = await fetch(`${server.base}/metrics`, { headers })
      expect([refused.status, ((await refused.json()) as Envelope).error.code]).toEqual([401, "UNAUTHORIZED"])
    }
    const metrics = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${STATIC_KEY}` } })
    expect(metrics.status).toBe(200)
    const parsed = Prometheus.parse(await metrics.text())
    // The refusals above were answered by the gateway: counted under the fixed route, never a raw path.
    expect(Prometheus.valueOf(parsed, "http_server_request_duration_seconds", {
      http_request_method: "GET",
      http_route: "/metrics",
      http_response_status_code: "401"
    })).toBeGreaterThanOrEqual(2)
    // The identity routes' refusals of the tests before, under their route templates.
    const identity401 = Prometheus.seriesOf(parsed, "http_server_request_duration_seconds", { http_request_method: "GET", http_response_status_code: "401" })
      .filter((series) => series.labels.http_route.startsWith("/api/v1/iam"))
    expect(identity401.reduce((total, series) => total + Number(series.count), 0)).toBeGreaterThan(0)
    expect(Prometheus.valueOf(parsed, "core_auth_cache_total", { result: "hit" })).toBeGreaterThan(0)
  }, SLOW)
})
