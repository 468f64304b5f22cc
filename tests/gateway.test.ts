import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Gateway, Upstream } from "@core/gateway"
import { Listener } from "@core/server"
import { Effect, Exit, Logger, Scope } from "effect"
import { Hono } from "hono"
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const registry = HttpRouter.empty.pipe(
  HttpRouter.get("/:id", Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    return HttpServerResponse.unsafeJson({ url: request.url, headers: request.headers })
  })),
  HttpRouter.post("/upload", Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* request.arrayBuffer
    return HttpServerResponse.unsafeJson({ bytes: body.byteLength, prefix: request.headers["x-forwarded-prefix"] })
  }))
)

const hono = new Hono()
  .get("/whoami", (c) => c.json({ path: c.req.path, query: c.req.query("q"), requestId: c.req.header("x-core-request-id") ?? null }))
  .post("/echo", async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength, role: c.req.header("x-core-role") ?? null }))

let base: string
const scope = Effect.runSync(Scope.make())

beforeAll(async () => {
  const upstreams = [
    await Effect.runPromise(Upstream.fromHttpApp("REGISTRY", registry)),
    Upstream.fromWebHandler("IAM", hono.fetch)
  ]
  const app = Gateway.make({ upstreams })
  const port = await Effect.runPromise(
    Listener.listen(app, { port: 0, host: "127.0.0.1" }).pipe(
      Scope.extend(scope),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none))
    )
  )
  base = `http://127.0.0.1:${port}`
})

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const rawGet = (path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL(path, base)
    const request = httpRequest({ host: url.hostname, port: url.port, path, headers }, (response) => {
      let body = ""
      response.setEncoding("utf8").on("data", (chunk) => (body += chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }))
    })
    request.on("error", reject)
    request.end()
  })

describe("gateway over HTTP", () => {
  it("routes to an in-process Effect app with the prefix stripped and the forwarding headers", async () => {
    const response = await rawGet("/api/v1/platforms/plt_1?x=1&y=2", {
      "x-request-id": "gw-1",
      "x-core-user-id": "usr_forged",
      connection: "keep-alive, x-hop",
      "x-hop": "1"
    })
    expect(response.status).toBe(200)
    expect(response.headers["x-request-id"]).toBe("gw-1")
    const body = JSON.parse(response.body)
    expect(body.url).toBe("/plt_1?x=1&y=2")
    expect(body.headers["x-forwarded-prefix"]).toBe("/api/v1/platforms")
    expect(body.headers["x-core-request-id"]).toBe("gw-1")
    expect(body.headers["x-core-user-id"]).toBeUndefined()
    expect(body.headers["x-hop"]).toBeUndefined()
    expect(body.headers.connection).toBeUndefined()
  })

  it("routes to a Hono app through its web handler", async () => {
    const response = await fetch(`${base}/api/v1/iam/whoami?q=a%20b`, { headers: { "x-request-id": "gw-2" } })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-frame-options")).toBe("DENY")
    expect(await response.json()).toEqual({ path: "/whoami", query: "a b", requestId: "gw-2" })
  })

  it("streams large request bodies to both kinds of upstream", async () => {
    const payload = new Uint8Array(5 * 1024 * 1024).fill(7)
    const effect = await fetch(`${base}/api/v1/platforms/upload`, { method: "POST", body: payload })
    expect(await effect.json()).toEqual({ bytes: payload.byteLength, prefix: "/api/v1/platforms" })
    const web = await fetch(`${base}/api/v1/iam/echo`, { method: "POST", body: payload, headers: { "x-core-role": "operator" } })
    expect(await web.json()).toEqual({ bytes: payload.byteLength, role: null })
  })

  it("keeps request ids apart under concurrent requests", async () => {
    const ids = Array.from({ length: 40 }, (_, index) => `gw-c-${index}`)
    const answers = await Promise.all(
      ids.map(async (id) => {
        const response = await fetch(`${base}/api/v1/iam/whoami`, { headers: { "x-request-id": id } })
        return [response.headers.get("x-request-id"), (await response.json()).requestId]
      })
    )
    expect(answers).toEqual(ids.map((id) => [id, id]))
  })

  it("answers 404 and 502 envelopes for an unknown prefix and an unregistered service", async () => {
    const unknown = await fetch(`${base}/api/v1/nope`, { headers: { "x-request-id": "gw-404" } })
    expect([unknown.status, await unknown.json()]).toEqual([
      404,
      { error: { code: "NOT_FOUND", message: "No route for /api/v1/nope", requestId: "gw-404", details: null } }
    ])
    const missing = await fetch(`${base}/api/v1/stacks`, { headers: { "x-request-id": "gw-502" } })
    expect([missing.status, missing.headers.get("referrer-policy"), await missing.json()]).toEqual([
      502,
      "strict-origin-when-cross-origin",
      { error: { code: "UPSTREAM_UNAVAILABLE", message: "The STACKS service is not available", requestId: "gw-502", details: null } }
    ])
  })
})
