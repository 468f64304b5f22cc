import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { buildPath, Iam, pathParamNames } from "@core/contracts"
import { type Configuration, ForwardedIdentity, loadConfig } from "@core/kernel"
import { Effect } from "effect"
import { beforeEach, describe, expect, it } from "vitest"
import { Assemble, Authentication, CredentialCache, IdentityResolver, Upstream } from "../src/index.js"
import * as Transport from "./Transport.js"

/**
 * The authentication, suspension, CORS and tracing steps of the assembled gateway, against a
 * scripted identity service that answers `/api/core/session` and `/api/core/apikey/validate` the
 * way the real one does (the real one is driven through the server in tests/gateway-auth.test.ts).
 */
const STATIC_KEY = "gateway-static-key-0123456789abcdef"
const SESSION = "session-token-of-ada-0123456789abcdefghijk"
const SUSPENDED_SESSION = "session-token-of-sam-0123456789abcdefghijk"
const API_KEY = "core_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
/** Identity answers these as it does while its database is down (503 with Retry-After), or with a bug (500). */
const DATABASE_DOWN_SESSION = "session-token-while-the-database-is-down-0123"
const BROKEN_SESSION = "session-token-that-identity-fails-on-0123456789"

interface Script {
  platformStatus: "active" | "suspended"
  calls: { session: number; apikey: number }
  lastValidatorAuthorization: string | undefined
}

const script: Script = { platformStatus: "active", calls: { session: 0, apikey: 0 }, lastValidatorAuthorization: undefined }

beforeEach(() => {
  script.platformStatus = "active"
  script.calls = { session: 0, apikey: 0 }
  script.lastValidatorAuthorization = undefined
})

const unauthorized = HttpServerResponse.unsafeJson(
  { error: { code: "UNAUTHORIZED", message: "Invalid or expired session", requestId: "x", details: null } },
  { status: 401 }
)

const sessionAnswer = (userId: string, sessionId: string, platformId: string, status: string) => ({
  session: { id: sessionId, userId },
  user: { id: userId, email: `${userId}@example.com` },
  permissions: ["org:read"],
  tenant: { organizationId: "org_1", organizationSlug: "acme", platformId, platformStatus: status },
  role: "admin"
})

const echoHeaders = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  HttpServerResponse.unsafeJson({ url: request.url, headers: request.headers }))

const identityService = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/api/core/session",
    Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      script.calls.session++
      const token = request.headers.authorization?.replace(/^Bearer /, "")
      if (token === SESSION) return HttpServerResponse.unsafeJson(sessionAnswer("usr_ada", "ses_ada", "plt_acme", script.platformStatus))
      if (token === SUSPENDED_SESSION) return HttpServerResponse.unsafeJson(sessionAnswer("usr_sam", "ses_sam", "plt_gone", "suspended"))
      if (token === DATABASE_DOWN_SESSION) {
        return HttpServerResponse.unsafeJson({ error: { code: "UNAVAILABLE", message: "down", requestId: "x", details: null } }, {
          status: 503,
          headers: { "retry-after": "7" }
        })
      }
      if (token === BROKEN_SESSION) return HttpServerResponse.unsafeJson({ error: { code: "INTERNAL_ERROR" } }, { status: 500 })
      return unauthorized
    })
  ),
  HttpRouter.post(
    "/api/core/apikey/validate",
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      script.calls.apikey++
      script.lastValidatorAuthorization = request.headers.authorization
      const body = (yield* request.json) as { key: string }
      if (body.key !== API_KEY) return unauthorized
      return HttpServerResponse.unsafeJson({
        valid: true,
        keyId: "key_1",
        organizationId: "org_1",
        platformId: "plt_acme",
        permissions: ["platforms:read"],
        platformStatus: script.platformStatus
      })
    })
  ),
  HttpRouter.post(
    "/api/core/apikeys/revoke-me",
    Effect.succeed(HttpServerResponse.empty({ status: 204, headers: { "x-core-invalidate": "key=key_1" } }))
  ),
  HttpRouter.post(
    "/internal/platform-status",
    Effect.succeed(HttpServerResponse.unsafeJson({ ok: true }, { headers: { "x-core-invalidate": "platform=plt_acme" } }))
  ),
  HttpRouter.post("/api/auth/sign-out", Effect.succeed(HttpServerResponse.unsafeJson({ success: true }))),
  HttpRouter.get("/api/auth/get-session", echoHeaders),
  HttpRouter.post("/api/auth/sign-in/email", echoHeaders),
  HttpRouter.get("/api/echo", echoHeaders),
  HttpRouter.post("/api/echo", echoHeaders)
)

const configOf = (env: Record<string, string>): Configuration =>
  loadConfig({ NODE_ENV: "test", CORE_SECRET: "s".repeat(40), CORE_CORS_ORIGINS: "https://app.example.com", ...env })

/**
 * The gateway over the scripted identity service (in process) and two services that read the
 * identity headers, as a service in another process or behind a web-standard handler does: the
 * gateway signs the caller for them.
 */
const gatewayOf = (config: Configuration) => {
  const upstreams = Effect.runSync(Effect.all([
    Upstream.fromHttpApp("IAM", Assemble.trusted(identityService, config, "iam")),
    Effect.succeed(Upstream.fromWebHandler("REGISTRY", HttpApp.toWebHandler(Assemble.trusted(echoHeaders, config, "registry")))),
    Effect.succeed(Upstream.fromWebHandler("BILLING", HttpApp.toWebHandler(Assemble.trusted(echoHeaders, config, "billing"))))
  ]))
  return Transport.handlerOf(Transport.ofAssembled({ config, upstreams }))
}

/** What an in-process service is handed: the caller as a value, and the headers it receives. */
const echoCaller = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  HttpServerResponse.unsafeJson({ caller: ForwardedIdentity.callerOf(request) ?? null, headers: request.headers }))

/** The same gateway with the registry in process (`Upstream.fromHttpApp`), as `core-server start` runs it. */
const inProcessGatewayOf = (config: Configuration) => {
  const upstreams = Effect.runSync(Effect.all([
    Upstream.fromHttpApp("IAM", Assemble.trusted(identityService, config, "iam")),
    Upstream.fromHttpApp("REGISTRY", Assemble.trusted(echoCaller, config, "registry"))
  ]))
  return Transport.handlerOf(Transport.ofAssembled({ config, upstreams }))
}

const secured = configOf({ CORE_STATIC_API_KEY: STATIC_KEY })
const bypass = configOf({})

const call = (handler: (request: Request) => Promise<Response>, path: string, init: RequestInit = {}) =>
  handler(new Request(`http://localhost${path}`, init))

const envelope = async (response: Response) => (await response.json()) as { error: { code: string; message: string; requestId: string } }

describe("authentication (step 9)", () => {
  const gateway = gatewayOf(secured)

  it("refuses /api/* without credentials with 401 and the envelope", async () => {
    const response = await call(gateway, "/api/v1/platforms/plt_1")
    expect(response.status).toBe(401)
    const body = await envelope(response)
    expect(body.error).toMatchObject({ code: "UNAUTHORIZED", message: "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)" })
    expect(body.error.requestId).toBe(response.headers.get("x-request-id"))
  })

  it("takes the static key as the service: role service and nothing else, signed for the upstream", async () => {
    const response = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: `Bearer ${STATIC_KEY}` } })
    expect(response.status).toBe(200)
    const { headers } = (await response.json()) as { headers: Record<string, string> }
    expect(headers["x-core-role"]).toBe("service")
    expect(headers["x-core-user-id"]).toBeUndefined()
    expect(headers["x-core-platform-id"]).toBeUndefined()
    const key = ForwardedIdentity.keyFrom(secured.secret)
    expect(ForwardedIdentity.verify(key, headers["x-core-identity"], "registry", Date.now())).toEqual({ kind: "service" })
    expect(ForwardedIdentity.verify(key, headers["x-core-identity"], "billing", Date.now())).toBeUndefined()
  })

  it("refuses a static key that is wrong by one character", async () => {
    const wrong = `${STATIC_KEY.slice(0, -1)}x`
    const response = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: `Bearer ${wrong}` } })
    expect(response.status).toBe(401)
    expect((await envelope(response)).error).toMatchObject({ code: "UNAUTHORIZED", message: "Invalid or expired session" })
  })

  it("forwards a session's user, role and platform, and answers the next requests from the cache", async () => {
    for (let i = 0; i < 3; i++) {
      const response = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: `Bearer ${SESSION}` } })
      expect(response.status).toBe(200)
      const { headers } = (await response.json()) as { headers: Record<string, string> }
      expect([headers["x-core-user-id"], headers["x-core-role"], headers["x-core-platform-id"]]).toEqual([
        "usr_ada",
        "admin",
        "plt_acme"
      ])
    }
    expect(script.calls.session).toBe(1)
  })

  it("signs the session's whole caller: session, email, organization, platform, role, permissions, and how it arrived", async () => {
    const key = ForwardedIdentity.keyFrom(secured.secret)
    const ada = {
      kind: "user",
      userId: "usr_ada",
      sessionId: "ses_ada",
      email: "usr_ada@example.com",
      organizationId: "org_1",
      platformId: "plt_acme",
      role: "admin",
      permissions: ["org:read"]
    }
    const byBearer = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: `Bearer ${SESSION}` } })
    const bearerHeaders = ((await byBearer.json()) as { headers: Record<string, string> }).headers
    expect(ForwardedIdentity.verify(key, bearerHeaders["x-core-identity"], "registry", Date.now())).toEqual({ ...ada, via: "bearer" })
    const byCookie = await call(gateway, "/api/v1/platforms/plt_1", { headers: { cookie: `${Authentication.SESSION_COOKIE}=${SESSION}` } })
    const cookieHeaders = ((await byCookie.json()) as { headers: Record<string, string> }).headers
    expect(ForwardedIdentity.verify(key, cookieHeaders["x-core-identity"], "registry", Date.now())).toEqual({ ...ada, via: "cookie" })
    expect(cookieHeaders["x-core-user-id"]).toBe("usr_ada")
  })

  it("refuses an unknown session token, and an unknown one again from the cache", async () => {
    for (let i = 0; i < 2; i++) {
      const response = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: "Bearer nope-nope" } })
      expect(response.status).toBe(401)
    }
    expect(script.calls.session).toBe(1)
  })

  it("answers 503 UNAVAILABLE with identity's Retry-After while identity's database is down, 502 when identity fails", async () => {
    const down = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: `Bearer ${DATABASE_DOWN_SESSION}`, "x-request-id": "r-down" } })
    expect([down.status, down.headers.get("retry-after"), await down.json()]).toEqual([503, "7", {
      error: { code: "UNAVAILABLE", message: "The service is temporarily unavailable; try again shortly", requestId: "r-down", details: null }
    }])
    const broken = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: `Bearer ${BROKEN_SESSION}`, "x-request-id": "r-broken" } })
    expect([broken.status, broken.headers.get("retry-after"), await broken.json()]).toEqual([502, null, {
      error: { code: "UPSTREAM_UNAVAILABLE", message: "The identity service could not check the credentials", requestId: "r-broken", details: null }
    }])
  })

  it("accepts the session cookie for reads and same-site writes, and refuses a cookie write from another site", async () => {
    const cookie = `other=1; ${Authentication.SESSION_COOKIE}=${SESSION}`
    expect((await call(gateway, "/api/v1/registry-none", { headers: { cookie } })).status).toBe(404)
    const read = await call(gateway, "/api/v1/platforms/x", { headers: { cookie, origin: "https://evil.example" } })
    expect(read.status).toBe(403)
    const sameSite = await call(gateway, "/api/v1/platforms/x", {
      method: "POST",
      headers: { cookie, origin: "http://localhost", host: "localhost" }
    })
    expect(sameSite.status).toBe(200)
    const crossSite = await call(gateway, "/api/v1/platforms/x", {
      method: "POST",
      headers: { cookie, "sec-fetch-site": "cross-site" }
    })
    expect(crossSite.status).toBe(403)
    expect((await envelope(crossSite)).error).toMatchObject({
      code: "FORBIDDEN",
      message: "Cross-site request refused: this write is authenticated by a cookie"
    })
    const noBrowser = await call(gateway, "/api/v1/platforms/x", { method: "POST", headers: { cookie } })
    expect(noBrowser.status).toBe(200)
  })

  it("checks x-api-key with the identity service, presenting the static key, and forwards the key as the user", async () => {
    const response = await call(gateway, "/api/v1/platforms/x", { headers: { "x-api-key": API_KEY } })
    expect(response.status).toBe(200)
    const { headers } = (await response.json()) as { headers: Record<string, string> }
    expect([headers["x-core-user-id"], headers["x-core-role"], headers["x-core-platform-id"]]).toEqual([
      "key_1",
      "apikey",
      "plt_acme"
    ])
    expect(script.lastValidatorAuthorization).toBe(`Bearer ${STATIC_KEY}`)
    expect(ForwardedIdentity.verify(ForwardedIdentity.keyFrom(secured.secret), headers["x-core-identity"], "registry", Date.now())).toEqual({
      kind: "apikey",
      keyId: "key_1",
      organizationId: "org_1",
      platformId: "plt_acme",
      permissions: ["platforms:read"]
    })
  })

  it("refuses a revoked or malformed API key without asking, and a wrong one after asking", async () => {
    const malformed = await call(gateway, "/api/v1/platforms/x", { headers: { "x-api-key": "sk_live_not_ours" } })
    expect(malformed.status).toBe(401)
    expect((await envelope(malformed)).error.message).toBe("Invalid API key: expected x-api-key: core_<key>")
    expect(script.calls.apikey).toBe(0)
    const wrong = await call(gateway, "/api/v1/platforms/x", { headers: { "x-api-key": `${API_KEY.slice(0, -1)}Z` } })
    expect(wrong.status).toBe(401)
    expect((await envelope(wrong)).error.message).toBe("Invalid or revoked API key")
  })

  it("never passes a client's X-Core-* headers, and a service ignores identity headers without a valid signature", async () => {
    const forged = await call(gateway, "/api/v1/platforms/x", {
      headers: {
        authorization: `Bearer ${SESSION}`,
        "x-core-user-id": "usr_mallory",
        "x-core-role": "operator",
        "x-core-identity": "forged.token.value"
      }
    })
    const { headers } = (await forged.json()) as { headers: Record<string, string> }
    expect([headers["x-core-user-id"], headers["x-core-role"]]).toEqual(["usr_ada", "admin"])

    const direct = Assemble.trusted(echoHeaders, secured, "registry")
    const directly = await HttpApp.toWebHandler(direct)(
      new Request("http://registry/x", { headers: { "x-core-user-id": "usr_mallory", "x-core-role": "operator" } })
    )
    const seen = ((await directly.json()) as { headers: Record<string, string> }).headers
    expect([seen["x-core-user-id"], seen["x-core-role"]]).toEqual([undefined, undefined])

    const otherAudience = ForwardedIdentity.sign(
      ForwardedIdentity.keyFrom(secured.secret),
      { kind: "user", userId: "usr_mallory", sessionId: "ses_m", email: "m@example.com", organizationId: null, via: "bearer", role: "operator" },
      "iam",
      Date.now()
    )
    const replayed = await HttpApp.toWebHandler(direct)(
      new Request("http://registry/x", { headers: { "x-core-user-id": "usr_mallory", "x-core-identity": otherAudience } })
    )
    expect(((await replayed.json()) as { headers: Record<string, string> }).headers["x-core-user-id"]).toBeUndefined()
  })

  it("lets the public routes through without credentials, and with a bad one as anonymous", async () => {
    const anonymous = await call(gateway, "/api/v1/iam/api/auth/sign-in/email", { method: "POST" })
    expect(anonymous.status).toBe(200)
    const stale = await call(gateway, "/api/v1/iam/api/auth/sign-in/email", {
      method: "POST",
      headers: { authorization: "Bearer stale-token" }
    })
    expect(stale.status).toBe(200)
    const seen = ((await stale.json()) as { headers: Record<string, string> }).headers
    expect(seen["x-core-user-id"]).toBeUndefined()
  })

  it("drops cached answers when the identity service names them in X-Core-Invalidate, and hides the header", async () => {
    const withKey = { headers: { "x-api-key": API_KEY } }
    expect((await call(gateway, "/api/v1/platforms/x", withKey)).status).toBe(200)
    const before = script.calls.apikey
    expect((await call(gateway, "/api/v1/platforms/x", withKey)).status).toBe(200)
    expect(script.calls.apikey).toBe(before)
    const revoked = await call(gateway, "/api/v1/iam/api/core/apikeys/revoke-me", { method: "POST", ...withKey })
    expect(revoked.status).toBe(204)
    expect(revoked.headers.get("x-core-invalidate")).toBeNull()
    expect((await call(gateway, "/api/v1/platforms/x", withKey)).status).toBe(200)
    expect(script.calls.apikey).toBe(before + 1)
  })

  it("forgets a session's answer when it signs out", async () => {
    const bearer = { headers: { authorization: `Bearer ${SESSION}` } }
    await call(gateway, "/api/v1/platforms/x", bearer)
    await call(gateway, "/api/v1/platforms/x", bearer)
    const before = script.calls.session
    await call(gateway, "/api/v1/iam/api/auth/sign-out", { method: "POST", ...bearer })
    expect(script.calls.session).toBe(before)
    await call(gateway, "/api/v1/platforms/x", bearer)
    expect(script.calls.session).toBe(before + 1)
  })
})

describe("the caller handed to an in-process service (step 9)", () => {
  const gateway = inProcessGatewayOf(secured)
  const ada = {
    kind: "user",
    userId: "usr_ada",
    sessionId: "ses_ada",
    email: "usr_ada@example.com",
    organizationId: "org_1",
    platformId: "plt_acme",
    role: "admin",
    permissions: ["org:read"]
  }
  const seen = async (init: RequestInit) => {
    const response = await call(gateway, "/api/v1/platforms/plt_1", init)
    expect(response.status).toBe(200)
    return (await response.json()) as { caller: unknown; headers: Record<string, string> }
  }

  it("hands over the session's caller as a value, how it arrived included, and signs nothing", async () => {
    const byBearer = await seen({ headers: { authorization: `Bearer ${SESSION}` } })
    expect(byBearer.caller).toEqual({ ...ada, via: "bearer" })
    const byCookie = await seen({ headers: { cookie: `${Authentication.SESSION_COOKIE}=${SESSION}` } })
    expect(byCookie.caller).toEqual({ ...ada, via: "cookie" })
    for (const { headers } of [byBearer, byCookie]) {
      expect(Object.keys(headers).filter((name) => name.startsWith("x-core-") && name !== "x-core-request-id")).toEqual([])
    }
  })

  it("hands over an API key's caller and the service's, without the gateway's platform status", async () => {
    expect((await seen({ headers: { "x-api-key": API_KEY } })).caller).toEqual({
      kind: "apikey",
      keyId: "key_1",
      organizationId: "org_1",
      platformId: "plt_acme",
      permissions: ["platforms:read"]
    })
    expect((await seen({ headers: { authorization: `Bearer ${STATIC_KEY}` } })).caller).toEqual({ kind: "service" })
  })

  it("hands over nothing for a forged identity header, which never reaches the service", async () => {
    const forged = await seen({ headers: { "x-core-user-id": "usr_mallory", "x-core-identity": "forged.token.value", authorization: `Bearer ${SESSION}` } })
    expect(forged.caller).toEqual({ ...ada, via: "bearer" })
    expect([forged.headers["x-core-user-id"], forged.headers["x-core-identity"]]).toEqual([undefined, undefined])
  })
})

describe("identity in process, asked as values (step 9)", () => {
  const asked: Array<string> = []
  const identity: IdentityResolver.InProcessIdentity = {
    session: (token) =>
      Effect.sync(() => {
        asked.push(`session ${token}`)
        if (token !== SESSION) return undefined
        const answer = sessionAnswer("usr_ada", "ses_ada", "plt_acme", "active")
        const at = "2026-01-01T00:00:00.000Z"
        return {
          ...answer,
          session: { ...answer.session, expiresAt: at, createdAt: at, updatedAt: at, ipAddress: null, userAgent: null, activeOrganizationId: "org_1" },
          user: { ...answer.user, name: "Ada", emailVerified: true, image: null, createdAt: at, updatedAt: at },
          tenant: { ...answer.tenant, platformStatus: "active" as const },
          role: "admin" as const
        }
      }),
    apiKey: (key) => Effect.sync(() => (asked.push(`apikey ${key}`), undefined))
  }
  // Its HTTP path is never taken: a request to it would fail the test.
  const iam: Upstream.Upstream = { service: "IAM", forward: () => Effect.die("identity asked over HTTP"), identity }
  const registry = Effect.runSync(Upstream.fromHttpApp("REGISTRY", Assemble.trusted(echoCaller, secured, "registry")))
  const gateway = Transport.handlerOf(Transport.ofAssembled({ config: secured, upstreams: [iam, registry] }))

  it("resolves a session and a key through the service's answers, without a request to it", async () => {
    asked.length = 0
    const response = await call(gateway, "/api/v1/platforms/plt_1", { headers: { authorization: `Bearer ${SESSION}` } })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { caller: { userId: string; role: string } }).caller).toMatchObject({ userId: "usr_ada", role: "admin" })
    const refused = await call(gateway, "/api/v1/platforms/plt_1", { headers: { "x-api-key": API_KEY } })
    expect(refused.status).toBe(401)
    expect((await envelope(refused)).error.message).toBe("Invalid or revoked API key")
    expect(asked).toEqual([`session ${SESSION}`, `apikey ${API_KEY}`])
  })
})

describe("public routes from the identity catalogue (step 9)", () => {
  /** An identity service that answers every request 200 with what reached it. */
  const stub = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    HttpServerResponse.unsafeJson({ reached: `${request.method} ${request.url}`, user: request.headers["x-core-user-id"] ?? null }))
  const gateway = Transport.handlerOf(Transport.ofAssembled({
    config: secured,
    upstreams: Effect.runSync(Effect.all([Upstream.fromHttpApp("IAM", stub), Upstream.fromHttpApp("REGISTRY", stub)]))
  }))
  const concrete = (path: string) => buildPath(path, Object.fromEntries(pathParamNames(path).map((name) => [name, `${name}-1`])))
  const routes = Object.entries(Iam.IdentityRoutes)

  it("lets every public route through without credentials, and refuses every other one with 401", async () => {
    const seen: Array<[string, number, unknown]> = []
    for (const [name, route] of routes) {
      const path = concrete(route.path)
      const response = await call(gateway, `/api/v1/iam${path}`, { method: route.method })
      const body = await response.json() as { reached?: string; error?: { code: string; message: string } }
      seen.push([name, response.status, route.auth === "public" ? body.reached : body.error])
    }
    expect(seen).toEqual(routes.map(([name, route]) =>
      route.auth === "public"
        ? [name, 200, `${route.method} ${concrete(route.path)}`]
        : [name, 401, { code: "UNAUTHORIZED", message: "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)", requestId: expect.any(String), details: null }]
    ))
    expect(routes.filter(([, route]) => route.auth === "public").length).toBeGreaterThan(20)
  })

  it("passes the password-reset link with its token, and the verification mail request", async () => {
    const link = await call(gateway, "/api/v1/iam/api/auth/reset-password/rst_0123456789abcdefABCDEF?callbackURL=%2Faccount")
    expect([link.status, ((await link.json()) as { reached: string }).reached]).toEqual([
      200,
      "GET /api/auth/reset-password/rst_0123456789abcdefABCDEF?callbackURL=%2Faccount"
    ])
    const verification = await call(gateway, "/api/v1/iam/api/auth/send-verification-email", { method: "POST" })
    expect(verification.status).toBe(200)
    const withSession = await call(gateway, "/api/v1/iam/api/auth/reset-password/rst_1", {
      headers: { authorization: `Bearer ${STATIC_KEY}` }
    })
    expect(withSession.status).toBe(200)
  })

  it("still asks for credentials on whatever the catalogue does not declare under /api/v1/iam", async () => {
    for (const [method, path] of [
      ["POST", "/api/v1/iam/api/auth/forget-password"],
      ["GET", "/api/v1/iam/api/auth/sign-in/email"],
      ["GET", "/api/v1/iam/api/auth/reset-password/a/b"],
      ["GET", "/api/v1/iam/api/auth/reset-password/a%2F..%2F..%2Fcore%2Froles"],
      ["GET", "/api/v1/iam/api/core/undeclared"],
      ["DELETE", "/api/v1/iam/api/auth/sign-up/email"],
      ["POST", "/api/v1/iam"]
    ] as const) {
      const response = await call(gateway, path, { method })
      expect([method, path, response.status]).toEqual([method, path, 401])
    }
    expect((await call(gateway, "/api/v1/iam/api/core/undeclared", { headers: { authorization: `Bearer ${STATIC_KEY}` } })).status).toBe(200)
  })
})

describe("suspension (step 10)", () => {
  const gateway = gatewayOf(secured)

  it("answers 451 PLATFORM_SUSPENDED to a suspended platform's session and key, but not to the service", async () => {
    const response = await call(gateway, "/api/v1/platforms/x", { headers: { authorization: `Bearer ${SUSPENDED_SESSION}` } })
    expect(response.status).toBe(451)
    expect((await envelope(response)).error).toMatchObject({
      code: "PLATFORM_SUSPENDED",
      message: "Platform plt_gone has been suspended"
    })
    const service = await call(gateway, "/api/v1/platforms/x", { headers: { authorization: `Bearer ${STATIC_KEY}` } })
    expect(service.status).toBe(200)
  })

  it("keeps sign-out, get-session and billing open to a suspended platform", async () => {
    const bearer = { authorization: `Bearer ${SUSPENDED_SESSION}` }
    expect((await call(gateway, "/api/v1/iam/api/auth/get-session", { headers: bearer })).status).toBe(200)
    expect((await call(gateway, "/api/v1/billing/subscription", { headers: bearer })).status).toBe(200)
    expect((await call(gateway, "/api/v1/iam/api/auth/sign-out", { method: "POST", headers: bearer })).status).toBe(200)
  })

  it("suspends and restores at once when the platform status change passes through", async () => {
    const bearer = { headers: { authorization: `Bearer ${SESSION}` } }
    expect((await call(gateway, "/api/v1/platforms/x", bearer)).status).toBe(200)
    script.platformStatus = "suspended"
    await call(gateway, "/api/v1/iam/internal/platform-status", {
      method: "POST",
      headers: { authorization: `Bearer ${STATIC_KEY}` }
    })
    expect((await call(gateway, "/api/v1/platforms/x", bearer)).status).toBe(451)
    script.platformStatus = "active"
    await call(gateway, "/api/v1/iam/internal/platform-status", {
      method: "POST",
      headers: { authorization: `Bearer ${STATIC_KEY}` }
    })
    expect((await call(gateway, "/api/v1/platforms/x", bearer)).status).toBe(200)
  })
})

describe("development bypass", () => {
  const gateway = gatewayOf(bypass)

  it("lets requests without credentials through without an identity", async () => {
    const response = await call(gateway, "/api/v1/platforms/x")
    expect(response.status).toBe(200)
    const { headers } = (await response.json()) as { headers: Record<string, string> }
    expect(headers["x-core-user-id"]).toBeUndefined()
    expect(headers["x-core-identity"]).toBeUndefined()
  })

  it("still resolves presented credentials, and refuses wrong ones", async () => {
    const response = await call(gateway, "/api/v1/platforms/x", { headers: { authorization: `Bearer ${SESSION}` } })
    expect(((await response.json()) as { headers: Record<string, string> }).headers["x-core-user-id"]).toBe("usr_ada")
    expect((await call(gateway, "/api/v1/platforms/x", { headers: { authorization: "Bearer wrong" } })).status).toBe(401)
    expect(script.lastValidatorAuthorization).toBeUndefined()
    expect((await call(gateway, "/api/v1/platforms/x", { headers: { "x-api-key": API_KEY } })).status).toBe(200)
    expect(script.lastValidatorAuthorization).toBeUndefined()
  })

  it("warns at start", () => {
    expect(Assemble.BYPASS_WARNING).toContain("development bypass")
  })
})

describe("CORS (step 7)", () => {
  const gateway = gatewayOf(secured)

  it("answers an allowed origin's preflight with exactly the seed's request headers", async () => {
    const response = await call(gateway, "/api/v1/platforms/x", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, authorization, x-request-id"
      }
    })
    expect(response.status).toBe(204)
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
    expect(response.headers.get("access-control-allow-headers")).toBe("Content-Type, Authorization, X-Request-Id")
    expect(response.headers.get("access-control-allow-credentials")).toBeNull()
  })

  it("refuses a disallowed origin and a preflight asking for x-api-key, never forwarding them", async () => {
    const evil = await call(gateway, "/api/v1/platforms/x", {
      headers: { origin: "https://evil.example", authorization: `Bearer ${STATIC_KEY}` }
    })
    expect(evil.status).toBe(403)
    expect((await envelope(evil)).error).toMatchObject({ code: "FORBIDDEN", message: "Origin https://evil.example is not allowed" })
    const asksKey = await call(gateway, "/api/v1/platforms/x", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-api-key"
      }
    })
    expect(asksKey.status).toBe(403)
    expect((await envelope(asksKey)).error.message).toBe(
      "Request header x-api-key is not allowed (allowed: Content-Type, Authorization, X-Request-Id)"
    )
  })

  it("marks an allowed origin's response readable", async () => {
    const response = await call(gateway, "/api/v1/platforms/x", {
      headers: { origin: "https://app.example.com", authorization: `Bearer ${STATIC_KEY}` }
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
    expect(response.headers.get("vary")).toBe("Origin")
  })
})

describe("tracing (step 8)", () => {
  const gateway = gatewayOf(secured)
  const service = { authorization: `Bearer ${STATIC_KEY}` }

  it("honours a valid traceparent: same trace id upstream and in X-Core-Trace-Id, a new parent span", async () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    const response = await call(gateway, "/api/v1/platforms/x", { headers: { ...service, traceparent, tracestate: "a=1" } })
    expect(response.headers.get("x-core-trace-id")).toBe("4bf92f3577b34da6a3ce929d0e0e4736")
    const { headers } = (await response.json()) as { headers: Record<string, string> }
    expect(headers.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/)
    expect(headers.traceparent).not.toBe(traceparent)
    expect(headers.tracestate).toBe("a=1")
  })

  it("starts a new trace for a missing or malformed traceparent", async () => {
    for (const traceparent of [undefined, "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "junk"]) {
      const response = await call(gateway, "/api/v1/platforms/x", {
        headers: traceparent === undefined ? service : { ...service, traceparent }
      })
      const traceId = response.headers.get("x-core-trace-id")
      expect(traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(traceId).not.toBe("0".repeat(32))
      const { headers } = (await response.json()) as { headers: Record<string, string> }
      expect(headers.traceparent.split("-")[1]).toBe(traceId)
    }
  })

  it("sets X-Core-Trace-Id on error responses too", async () => {
    const response = await call(gateway, "/api/v1/platforms/x")
    expect(response.status).toBe(401)
    expect(response.headers.get("x-core-trace-id")).toMatch(/^[0-9a-f]{32}$/)
  })
})

describe("credential cache", () => {
  it("indexes answers by user, session, key and platform, and expires them", async () => {
    let now = 1_000
    const cache = CredentialCache.memory(2_000, () => now)
    const ada = {
      kind: "user",
      userId: "usr_a",
      sessionId: "ses_a",
      email: "a@example.com",
      organizationId: "org_1",
      via: "bearer",
      platformId: "plt_1",
      role: "admin",
      permissions: ["org:read"],
      platformStatus: "active"
    } as const
    await Effect.runPromise(cache.set("h1", ada))
    await Effect.runPromise(cache.set("h2", { ...ada, sessionId: "ses_b" }))
    expect(await Effect.runPromise(cache.get("h1"))).toEqual(ada)
    await Effect.runPromise(cache.invalidate({ sessionId: "ses_b" }))
    expect(await Effect.runPromise(cache.get("h2"))).toBeUndefined()
    expect(await Effect.runPromise(cache.get("h1"))).toEqual(ada)
    await Effect.runPromise(cache.invalidate({ platformId: "plt_1" }))
    expect(await Effect.runPromise(cache.get("h1"))).toBeUndefined()
    await Effect.runPromise(cache.set("h3", null))
    expect(await Effect.runPromise(cache.get("h3"))).toBeNull()
    now += 2_001
    expect(await Effect.runPromise(cache.get("h3"))).toBeUndefined()
  })

  it("reads a cached JSON answer back, and takes another version's shape or garbage as a miss", () => {
    const ada: CredentialCache.Principal = {
      kind: "user",
      userId: "usr_a",
      sessionId: "ses_a",
      email: "a@example.com",
      organizationId: null,
      via: "bearer",
      platformId: null,
      role: null,
      permissions: [],
      platformStatus: null
    }
    const key: CredentialCache.Principal = {
      kind: "apikey",
      keyId: "key_1",
      organizationId: "org_1",
      platformId: "plt_1",
      permissions: ["platforms:read"],
      platformStatus: "active"
    }
    for (const value of [ada, key, { kind: "service" } as const, null]) {
      expect(CredentialCache.fromJson(JSON.stringify({ v: value }))).toEqual(value)
    }
    const before = { kind: "session", userId: "usr_a", sessionId: "ses_a", role: "admin", organizationId: "org_1", platformId: "plt_1", platformStatus: "active" }
    const keyBefore = { kind: "apikey", keyId: "key_1", organizationId: "org_1", platformId: "plt_1", platformStatus: "active" }
    for (const raw of [JSON.stringify({ v: before }), JSON.stringify({ v: keyBefore }), JSON.stringify({ v: { ...ada, role: "root" } }), "{", "[]", "{}"]) {
      expect(CredentialCache.fromJson(raw), raw).toBeUndefined()
    }
  })

  it("parses X-Core-Invalidate, ignoring what it does not know", () => {
    expect(CredentialCache.parseInvalidation("user=usr_1, platform=plt_2, bogus=1, key=bad value")).toEqual({
      userId: "usr_1",
      platformId: "plt_2"
    })
  })
})
