import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Logging, NotFound, Unauthorized } from "@core/kernel"
import { Effect, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { Gateway, Middleware, Routes, Upstream } from "../src/index.js"
import * as Transport from "./Transport.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const echo = (service: string): HttpApp.Default<unknown> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = request.method === "POST" ? yield* request.text : null
    return HttpServerResponse.unsafeJson({ service, method: request.method, url: request.url, headers: request.headers, body })
  })

const echoUpstreams = Effect.runSync(
  Effect.all(Routes.SERVICES.map((service) => Upstream.fromHttpApp(service, echo(service))))
)

const handlerOf = (options: Gateway.GatewayOptions) => Transport.handlerOf(Transport.ofOptions(options))

const send = (options: Gateway.GatewayOptions, path: string, init?: RequestInit) =>
  handlerOf(options)(new Request(`http://localhost${path}`, init))

const expectSecurityHeaders = (response: Response) => {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff")
  expect(response.headers.get("x-frame-options")).toBe("DENY")
  expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin")
}

describe("Gateway routing", () => {
  it("forwards each prefix to its service with the prefix stripped", async () => {
    const cases = [
      ["/api/v1/iam/api/auth/get-session", "IAM", "/api/auth/get-session"],
      ["/api/v1/platforms/plt_1", "REGISTRY", "/plt_1"],
      ["/api/v1/billing/plans", "BILLING", "/plans"],
      ["/api/v1/provisioning/jobs/job_1", "PROVISIONING", "/jobs/job_1"],
      ["/api/v1/stacks/stk_1/versions", "STACKS", "/stk_1/versions"],
      ["/api/v1/cli/whoami", "CLI", "/whoami"],
      ["/api/v1/cli/platforms/plt_1/repo", "CLI", "/platforms/plt_1/repo"]
    ]
    for (const [path, service, url] of cases) {
      const response = await send({ upstreams: echoUpstreams }, path)
      expect(response.status).toBe(200)
      const body = await response.json()
      expect([body.service, body.url]).toEqual([service, url])
      expect(body.headers["x-forwarded-prefix"]).toBe(path.split("/").slice(0, 4).join("/"))
    }
  })

  it("keeps the query string and answers / for the exact prefix", async () => {
    const withQuery = await (await send({ upstreams: echoUpstreams }, "/api/v1/platforms/abc?x=1&y=a%20b")).json()
    expect(withQuery.url).toBe("/abc?x=1&y=a%20b")
    const exact = await (await send({ upstreams: echoUpstreams }, "/api/v1/platforms")).json()
    expect(exact.url).toBe("/")
    const exactWithQuery = await (await send({ upstreams: echoUpstreams }, "/api/v1/billing?x=1")).json()
    expect([exactWithQuery.url, exactWithQuery.headers["x-forwarded-prefix"]]).toEqual(["/?x=1", "/api/v1/billing"])
  })

  it("forwards the registry's other families whole: onboarding, resources and the lookup (decisions 0236, 0242)", async () => {
    for (const path of ["/api/v1/onboarding", "/api/v1/onboarding/onb_1?x=1", "/api/v1/resources/platforms/plt_1/resources", "/api/v1/lookup?edgeName=a"]) {
      const body = await (await send({ upstreams: echoUpstreams }, path)).json()
      expect([body.service, body.url], path).toEqual(["REGISTRY", path])
    }
  })

  it("forwards the method and the body", async () => {
    const response = await send({ upstreams: echoUpstreams }, "/api/v1/stacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "web" })
    })
    const body = await response.json()
    expect([body.method, body.url, body.body, body.headers["content-type"]]).toEqual([
      "POST",
      "/",
      "{\"name\":\"web\"}",
      "application/json"
    ])
  })

  it("answers 404 NOT_FOUND for an unknown prefix, with the request id and security headers", async () => {
    const response = await send({ upstreams: echoUpstreams }, "/api/v1/nope?token=secret", {
      headers: { "x-request-id": "req-404" }
    })
    expect(response.status).toBe(404)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.headers.get("x-request-id")).toBe("req-404")
    expectSecurityHeaders(response)
    expect(await response.json()).toEqual({
      error: { code: "NOT_FOUND", message: "No route for /api/v1/nope", requestId: "req-404", details: null }
    })
  })

  it("answers 404 for /api/v1 itself and for paths outside /api/v1 without a fallback", async () => {
    for (const path of ["/api/v1", "/api/v1/", "/elsewhere"]) {
      const response = await send({}, path)
      expect(response.status).toBe(404)
      expect((await response.json()).error.code).toBe("NOT_FOUND")
    }
  })

  it("answers 502 UPSTREAM_UNAVAILABLE for a known prefix without an upstream", async () => {
    const response = await send({ upstreams: [] }, "/api/v1/billing/plans", { headers: { "x-request-id": "r-502" } })
    expect(response.status).toBe(502)
    expectSecurityHeaders(response)
    expect(await response.json()).toEqual({
      error: {
        code: "UPSTREAM_UNAVAILABLE",
        message: "The BILLING service is not available",
        requestId: "r-502",
        details: null
      }
    })
  })

  it("lets a later upstream for the same service replace an earlier one", async () => {
    const [first] = echoUpstreams
    const second = Effect.runSync(Upstream.fromHttpApp("IAM", echo("IAM-2")))
    const body = await (await send({ upstreams: [first, second] }, "/api/v1/iam/x")).json()
    expect(body.service).toBe("IAM-2")
  })
})

describe("Gateway request id", () => {
  it("keeps a valid X-Request-Id, echoes it and forwards it as X-Core-Request-Id", async () => {
    const response = await send({ upstreams: echoUpstreams }, "/api/v1/iam/x", { headers: { "x-request-id": "abc-123.def:4_5" } })
    expect(response.headers.get("x-request-id")).toBe("abc-123.def:4_5")
    const body = await response.json()
    expect(body.headers["x-core-request-id"]).toBe("abc-123.def:4_5")
    expect(body.headers["x-request-id"]).toBe("abc-123.def:4_5")
  })

  it("generates a UUID when X-Request-Id is absent, too long or unsafe", async () => {
    const cases: Array<Record<string, string>> = [{}, { "x-request-id": "a".repeat(129) }, { "x-request-id": "has space" }, { "x-request-id": "" }]
    for (const headers of cases) {
      const response = await send({ upstreams: echoUpstreams }, "/api/v1/iam/x", { headers })
      const id = response.headers.get("x-request-id")
      expect(id).toMatch(UUID)
      expect((await response.json()).headers["x-core-request-id"]).toBe(id)
    }
  })

  it("accepts a request id of exactly 128 characters", async () => {
    const id = "b".repeat(128)
    const response = await send({ upstreams: echoUpstreams }, "/api/v1/iam/x", { headers: { "x-request-id": id } })
    expect(response.headers.get("x-request-id")).toBe(id)
  })

  it("never takes the request id from a client's X-Core-Request-Id", async () => {
    const response = await send({}, "/api/v1/nope", { headers: { "x-core-request-id": "forged" } })
    const id = response.headers.get("x-request-id")
    expect(id).toMatch(UUID)
    expect((await response.json()).error.requestId).toBe(id)
  })
})

describe("Gateway forwarded headers", () => {
  it("strips every inbound X-Core-* header", async () => {
    const response = await send({ upstreams: echoUpstreams }, "/api/v1/cli/deploy", {
      headers: {
        "x-request-id": "rid-1",
        "x-core-user-id": "usr_forged",
        "X-Core-Role": "operator",
        "x-core-platform-id": "plt_forged",
        "x-core-identity": "forged.jwt",
        "x-core-request-id": "forged",
        "x-corefoo": "kept",
        authorization: "Bearer t"
      }
    })
    const headers = (await response.json()).headers
    expect(Object.keys(headers).filter((name) => name.startsWith("x-core-"))).toEqual(["x-core-request-id"])
    expect(headers["x-core-request-id"]).toBe("rid-1")
    expect(headers["x-corefoo"]).toBe("kept")
    expect(headers.authorization).toBe("Bearer t")
  })

  it("drops hop-by-hop headers and the headers Connection names", async () => {
    const response = await send({ upstreams: echoUpstreams }, "/api/v1/iam/x", {
      headers: { connection: "keep-alive, x-private", "keep-alive": "timeout=5", "x-private": "p", te: "trailers", "x-other": "o" }
    })
    const headers = (await response.json()).headers
    expect([headers.connection, headers["keep-alive"], headers["x-private"], headers.te, headers["x-other"]]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      "o"
    ])
  })
})

describe("Gateway responses", () => {
  it("sets the security headers and Server-Timing on upstream answers", async () => {
    const response = await send({ upstreams: echoUpstreams }, "/api/v1/iam/x")
    expect(response.status).toBe(200)
    expectSecurityHeaders(response)
    expect(response.headers.get("server-timing")).toMatch(/^total;dur=\d+(\.\d+)?$/)
  })

  it("overrides an upstream's own security headers", async () => {
    const framed = Effect.runSync(
      Upstream.fromHttpApp("IAM", Effect.succeed(HttpServerResponse.text("hi", { headers: { "x-frame-options": "SAMEORIGIN" } })))
    )
    const response = await send({ upstreams: [framed] }, "/api/v1/iam/x")
    expect(response.headers.get("x-frame-options")).toBe("DENY")
  })

  it("answers an upstream's tagged failure as its envelope with the gateway's request id", async () => {
    const failing = Effect.runSync(Upstream.fromHttpApp("REGISTRY", Effect.fail(new NotFound({ message: "Platform not found" }))))
    const response = await send({ upstreams: [failing] }, "/api/v1/platforms/plt_x", { headers: { "x-request-id": "r-1" } })
    expect(response.status).toBe(404)
    expectSecurityHeaders(response)
    expect(await response.json()).toEqual({
      error: { code: "NOT_FOUND", message: "Platform not found", requestId: "r-1", details: null }
    })
  })

  it("answers a guard that throws as 500 INTERNAL_ERROR, and keeps serving", async () => {
    let calls = 0
    const throwing: Middleware.Guard = () => {
      calls += 1
      if (calls === 1) throw new Error("secret guard bug")
      return undefined
    }
    const { handler } = Transport.serve(
      Transport.ofOptions({ upstreams: echoUpstreams, guards: { tracing: throwing } }),
      Logger.replace(Logger.defaultLogger, Logger.none)
    )
    const crashed = await handler(new Request("http://localhost/api/v1/stacks", { headers: { "x-request-id": "r-bug" } }))
    expect(crashed.status).toBe(500)
    expectSecurityHeaders(crashed)
    expect(await crashed.json()).toEqual({
      error: { code: "INTERNAL_ERROR", message: "An internal error occurred", requestId: "r-bug", details: null }
    })
    const next = await handler(new Request("http://localhost/api/v1/stacks"))
    expect(next.status).toBe(200)
  })

  it("answers an upstream's defect as 500 INTERNAL_ERROR without details", async () => {
    const crashing = Effect.runSync(Upstream.fromHttpApp("STACKS", Effect.die(new Error("secret stack trace"))))
    const response = await Transport.serve(Transport.ofOptions({ upstreams: [crashing] }), Logger.replace(Logger.defaultLogger, Logger.none)
    ).handler(new Request("http://localhost/api/v1/stacks", { headers: { "x-request-id": "r-500" } }))
    expect(response.status).toBe(500)
    expectSecurityHeaders(response)
    expect(await response.json()).toEqual({
      error: { code: "INTERNAL_ERROR", message: "An internal error occurred", requestId: "r-500", details: null }
    })
  })

  it("serves requests outside /api/v1 through the fallback, inside the chain", async () => {
    const fallback = HttpRouter.empty.pipe(HttpRouter.get("/health", HttpServerResponse.text("ok")))
    const health = await send({ fallback }, "/health")
    expect([health.status, await health.text()]).toEqual([200, "ok"])
    expectSecurityHeaders(health)
    expect(health.headers.get("x-request-id")).toMatch(UUID)
    const missing = await send({ fallback }, "/nothing?secret=1", { headers: { "x-request-id": "r-f" } })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({
      error: { code: "NOT_FOUND", message: "No route for /nothing", requestId: "r-f", details: null }
    })
  })
})

describe("Gateway web-handler upstreams", () => {
  const webEcho = async (request: Request) =>
    Response.json({
      url: request.url,
      method: request.method,
      body: request.method === "POST" ? await request.text() : null,
      prefix: request.headers.get("x-forwarded-prefix"),
      requestId: request.headers.get("x-core-request-id"),
      role: request.headers.get("x-core-role")
    }, { status: 201, headers: { "x-upstream": "web" } })

  it("forwards the rewritten request and streams the body through", async () => {
    const upstream = Upstream.fromWebHandler("BILLING", webEcho)
    const response = await send({ upstreams: [upstream] }, "/api/v1/billing/usage?day=1", {
      method: "POST",
      headers: { "x-request-id": "r-web", "x-core-role": "operator", host: "core.test" },
      body: "x".repeat(100_000)
    })
    expect(response.status).toBe(201)
    expect(response.headers.get("x-upstream")).toBe("web")
    expectSecurityHeaders(response)
    const { body, ...rest } = await response.json()
    expect(body === "x".repeat(100_000)).toBe(true)
    expect(rest).toEqual({
      url: "http://core.test/usage?day=1",
      method: "POST",
      prefix: "/api/v1/billing",
      requestId: "r-web",
      role: null
    })
  })

  it("accepts a handler that answers synchronously", async () => {
    const upstream = Upstream.fromWebHandler("IAM", (request) => new Response(new URL(request.url).pathname))
    const response = await send({ upstreams: [upstream] }, "/api/v1/iam/sync")
    expect([response.status, await response.text()]).toEqual([200, "/sync"])
  })

  it("answers 502 UPSTREAM_UNAVAILABLE when the handler throws", async () => {
    const upstream = Upstream.fromWebHandler("IAM", () => {
      throw new Error("boom")
    })
    const response = await send({ upstreams: [upstream] }, "/api/v1/iam/x")
    expect([response.status, (await response.json()).error.code]).toEqual([502, "UPSTREAM_UNAVAILABLE"])
  })

  it("answers 502 UPSTREAM_UNAVAILABLE when the handler rejects", async () => {
    const upstream = Upstream.fromWebHandler("CLI", () => Promise.reject(new Error("boom")))
    const response = await send({ upstreams: [upstream] }, "/api/v1/cli/x", { headers: { "x-request-id": "r-rej" } })
    expect(response.status).toBe(502)
    expect(await response.json()).toEqual({
      error: { code: "UPSTREAM_UNAVAILABLE", message: "The CLI service failed to answer", requestId: "r-rej", details: null }
    })
  })
})

describe("Gateway chain", () => {
  const capture = () => {
    const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
    const logger = Logger.make(({ annotations, message }) => {
      lines.push({ message, annotations: Object.fromEntries(annotations) })
    })
    return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
  }

  it("logs one line per request with method, path, status, duration and request id", async () => {
    const { layer, lines } = capture()
    const { handler } = Transport.serve(Transport.ofOptions({ upstreams: echoUpstreams }), layer)
    await handler(new Request("http://localhost/api/v1/iam/x?token=secret", { headers: { "x-request-id": "r-log" } }))
    await handler(new Request("http://localhost/api/v1/nope", { method: "DELETE", headers: { "x-request-id": "r-log2" } }))
    expect(lines.map((line) => [line.message, { ...line.annotations, durationMs: typeof line.annotations.durationMs }])).toEqual([
      [["request"], { method: "GET", path: "/api/v1/iam/x", status: 200, durationMs: "number", requestId: "r-log" }],
      [["request"], { method: "DELETE", path: "/api/v1/nope", status: 404, durationMs: "number", requestId: "r-log2" }]
    ])
  })

  it("runs the guards in the seed's order, inside the request id, and logs their failures' status", async () => {
    const { layer, lines } = capture()
    const order: Array<string> = []
    const step = (name: string): Middleware.Guard => (request) =>
      Effect.sync(() => {
        order.push(`${name}:${request.headers["x-core-request-id"]}`)
        return undefined
      })
    const authentication: Middleware.Guard = (request) =>
      Effect.suspend(() => {
        order.push("authentication")
        return request.headers.authorization === undefined ? Effect.fail(new Unauthorized({ message: "Sign in first" })) : Effect.succeed(undefined)
      })
    const options: Gateway.GatewayOptions = {
      upstreams: echoUpstreams,
      guards: { suspension: step("suspension"), authentication, tracing: step("tracing"), cors: step("cors"), rateLimiter: step("rateLimiter") }
    }
    const { handler } = Transport.serve(Transport.ofOptions(options), layer)
    const response = await handler(new Request("http://localhost/api/v1/iam/x", { headers: { "x-request-id": "r-g" } }))
    expect(order).toEqual(["rateLimiter:r-g", "cors:r-g", "tracing:r-g", "authentication"])
    expect(response.status).toBe(401)
    expectSecurityHeaders(response)
    expect(response.headers.get("server-timing")).toMatch(/^total;dur=/)
    expect(await response.json()).toEqual({
      error: { code: "UNAUTHORIZED", message: "Sign in first", requestId: "r-g", details: null }
    })
    expect(lines.map((line) => line.annotations.status)).toEqual([401])
  })
  it("gives upstreams the request context, so their JSON log lines carry the request id", async () => {
    const lines: Array<string> = []
    const logging = Logging.layer({ write: (line) => lines.push(line) })
    const upstream = Effect.runSync(
      Upstream.fromHttpApp("IAM", Effect.as(Effect.logInfo("inside"), HttpServerResponse.empty())).pipe(Effect.provide(logging))
    )
    const { handler } = Transport.serve(Transport.ofOptions({ upstreams: [upstream] }), logging)
    await handler(new Request("http://localhost/api/v1/iam/x", { headers: { "x-request-id": "r-ctx" } }))
    const parsed = lines.map((line) => JSON.parse(line))
    expect(parsed.map((line) => [line.level, line.message, line.requestId])).toEqual([
      ["info", "inside", "r-ctx"],
      ["info", "request", "r-ctx"]
    ])
    expect(parsed[1]).toMatchObject({ method: "GET", path: "/api/v1/iam/x", status: 204 })
  })
})
