import { HttpApp, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Exit, Layer, Logger, Scope } from "effect"
import { once } from "node:events"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { ErrorResponse } from "@core/kernel"
import { HOP_BY_HOP } from "../src/Forwarding.js"
import * as Gateway from "../src/Gateway.js"
import * as HttpUpstream from "../src/HttpUpstream.js"
import type { Upstream } from "../src/Upstream.js"

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A real upstream on 127.0.0.1 that counts the connections it accepted. */
const upstreamServer = async (handler: http.RequestListener) => {
  const server = http.createServer(handler)
  const sockets: Array<import("node:net").Socket> = []
  server.on("connection", (socket) => sockets.push(socket))
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  cleanups.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  const port = (server.address() as AddressInfo).port
  return { port, url: `http://127.0.0.1:${port}`, sockets }
}

/** A port nothing listens on. */
const refusedPort = async () => {
  const server = http.createServer().listen(0, "127.0.0.1")
  await once(server, "listening")
  const port = (server.address() as AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** A logger that keeps its lines, and the warnings among them. */
const captureLogs = () => {
  const logs: Array<LogLine> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    logs.push({ level: logLevel.label, message: String(message), annotations: Object.fromEntries(annotations) })
  })
  const warnings = () => logs.filter((line) => line.level === "WARN")
  return { layer: Logger.replace(Logger.defaultLogger, logger), warnings }
}

/** The gateway with the given upstreams, served natively by `NodeHttpServer` on 127.0.0.1. */
const serveGateway = async (...upstreams: Array<Effect.Effect<Upstream, never, Scope.Scope>>) => {
  const { layer, warnings } = captureLogs()
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  cleanups.push(close)
  const port = await Effect.gen(function*() {
    const made = yield* Effect.all(upstreams)
    const server = http.createServer()
    const context = yield* Layer.build(
      HttpServer.serve(Gateway.make({ upstreams: made })).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }))
      )
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? address.port : 0
  }).pipe(Effect.provide(layer), Scope.extend(scope), Effect.runPromise)
  return { port, close, warnings }
}

interface Answer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** One request to the gateway over a fresh connection, its body sent (and ended) by `write`. */
const upload = (
  port: number,
  path: string,
  write: (request: http.ClientRequest) => unknown,
  options: { method?: string; headers?: http.OutgoingHttpHeaders } = {}
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port, path, method: options.method ?? "PUT", headers: options.headers, agent: false },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }))
        response.on("error", reject)
      }
    )
    request.on("error", reject)
    write(request)
  })

/** One request to the gateway over a fresh connection. */
const send = (
  port: number,
  path: string,
  options: { method?: string; headers?: http.OutgoingHttpHeaders; body?: string } = {}
): Promise<Answer> =>
  upload(port, path, (request) => request.end(options.body), { method: options.method ?? "GET", headers: options.headers })

/** The response headers of a gateway request and a promise of how its body ended. */
const open = (port: number, path: string) =>
  new Promise<{ response: http.IncomingMessage; request: http.ClientRequest }>((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path, agent: false }, (response) => resolve({ response, request }))
    request.on("error", reject)
  })

const ended = async (response: http.IncomingMessage) => {
  const chunks: Array<Buffer> = []
  response.on("data", (chunk: Buffer) => chunks.push(chunk))
  response.on("error", () => {})
  await new Promise((resolve) => response.on("close", resolve))
  return { complete: response.complete, body: Buffer.concat(chunks).toString() }
}

const readAll = async (request: http.IncomingMessage) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString()
}

const deferred = <A = void>() => {
  let resolve!: (value: A) => void
  const promise = new Promise<A>((r) => (resolve = r))
  return { promise, resolve }
}

describe("HttpUpstream forwarding", () => {
  it("forwards method, path under the base path, query, headers and body, and answers the upstream's response", async () => {
    const seen = deferred<{ method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }>()
    const upstream = await upstreamServer(async (req, res) => {
      seen.resolve({ method: req.method, url: req.url, headers: req.headers, body: await readAll(req) })
      res.writeHead(201, {
        "content-type": "application/json",
        "content-length": "11",
        connection: "keep-alive, x-hop",
        "x-hop": "private",
        "x-upstream": "billing",
        "set-cookie": ["a=1; Path=/; HttpOnly", "b=2; Path=/api; Max-Age=60"]
      })
      res.end("{\"ok\":true}")
    })
    const gateway = await serveGateway(HttpUpstream.make("BILLING", `${upstream.url}/base/`))
    const answer = await send(gateway.port, "/api/v1/billing/usage?day=1&q=a%20b", {
      method: "POST",
      headers: {
        host: "core.test:8443",
        "content-type": "application/json",
        "x-request-id": "r-http",
        "x-forwarded-for": "203.0.113.7",
        "x-custom": "kept",
        "x-core-role": "operator"
      },
      body: "{\"name\":\"web\"}"
    })
    const request = await seen.promise
    expect([request.method, request.url, request.body]).toEqual(["POST", "/base/usage?day=1&q=a%20b", "{\"name\":\"web\"}"])
    expect(request.headers).toMatchObject({
      host: `127.0.0.1:${upstream.port}`,
      "content-type": "application/json",
      "content-length": "14",
      "x-forwarded-for": "203.0.113.7, 127.0.0.1",
      "x-forwarded-proto": "http",
      "x-forwarded-host": "core.test:8443",
      "x-forwarded-prefix": "/api/v1/billing",
      "x-request-id": "r-http",
      "x-core-request-id": "r-http",
      "x-custom": "kept"
    })
    expect(request.headers["x-core-role"]).toBeUndefined()
    expect(answer.status).toBe(201)
    expect(answer.body).toBe("{\"ok\":true}")
    expect(answer.headers).toMatchObject({
      "content-type": "application/json",
      "content-length": "11",
      "x-upstream": "billing",
      "x-request-id": "r-http",
      "x-frame-options": "DENY",
      "set-cookie": ["a=1; Path=/; HttpOnly", "b=2; Max-Age=60; Path=/api"]
    })
    expect(answer.headers["x-hop"]).toBeUndefined()
  })

  it("answers / of the base path for the bare prefix, and HEAD with the upstream's headers and no body", async () => {
    const urls: Array<string | undefined> = []
    const upstream = await upstreamServer((req, res) => {
      urls.push(`${req.method} ${req.url}`)
      res.writeHead(200, { "content-type": "text/plain", "content-length": "5" }).end(req.method === "HEAD" ? undefined : "hello")
    })
    const gateway = await serveGateway(HttpUpstream.make("REGISTRY", `${upstream.url}/registry`))
    const bare = await send(gateway.port, "/api/v1/platforms?limit=2")
    const head = await send(gateway.port, "/api/v1/platforms/flows", { method: "HEAD" })
    expect(urls).toEqual(["GET /registry/?limit=2", "HEAD /registry/flows"])
    expect([bare.status, bare.body]).toEqual([200, "hello"])
    expect([head.status, head.headers["content-length"], head.body]).toEqual([200, "5", ""])
  })

  it("streams a large request body to the upstream while the client is still sending it", async () => {
    const MiB = 1024 * 1024
    const firstBytes = deferred()
    const upstream = await upstreamServer(async (req, res) => {
      let bytes = 0
      for await (const chunk of req) {
        bytes += (chunk as Buffer).length
        firstBytes.resolve()
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ bytes, encoding: req.headers["transfer-encoding"] }))
    })
    const gateway = await serveGateway(HttpUpstream.make("PROVISIONING", upstream.url))
    const chunk = Buffer.alloc(64 * 1024, 7)
    const answer = upload(gateway.port, "/api/v1/provisioning/upload", async (request) => {
      const write = async (count: number) => {
        for (let i = 0; i < count; i++) if (!request.write(chunk)) await once(request, "drain")
      }
      await write(16)
      await firstBytes.promise
      await write(16 * 19)
      request.end()
    })
    const { status, body } = await answer
    expect([status, JSON.parse(body)]).toEqual([200, { bytes: 20 * MiB, encoding: "chunked" }])
  })

  it("streams the response: the first chunk reaches the client before the upstream ends", async () => {
    const release = deferred()
    const upstream = await upstreamServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" })
      res.write("first,")
      await release.promise
      res.end("second")
    })
    const gateway = await serveGateway(HttpUpstream.make("STACKS", upstream.url))
    const { response } = await open(gateway.port, "/api/v1/stacks/stream")
    const [first] = await once(response, "data")
    expect(String(first)).toBe("first,")
    release.resolve()
    expect(await ended(response)).toEqual({ complete: true, body: "second" })
  })

  it("sends a body with a Content-Length up to 64 KiB with the headers, once the client has sent all of it", async () => {
    const body = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => i % 251))
    const events: Array<string> = []
    const seen = deferred<{ length?: string; same: boolean }>()
    const upstream = await upstreamServer(async (req, res) => {
      events.push("upstream request")
      const chunks: Array<Buffer> = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      seen.resolve({ length: req.headers["content-length"], same: Buffer.concat(chunks).equals(body) })
      res.end("stored")
    })
    const gateway = await serveGateway(HttpUpstream.make("BILLING", upstream.url))
    const answer = upload(gateway.port, "/api/v1/billing/upload", (request) =>
      request.write(body.subarray(0, 1024), () =>
        setTimeout(() => {
          events.push("client sent all")
          request.end(body.subarray(1024))
        }, 50)), { method: "POST", headers: { "content-length": body.length } })
    expect((await answer).body).toBe("stored")
    expect(await seen.promise).toEqual({ length: "65536", same: true })
    expect(events).toEqual(["client sent all", "upstream request"])
  })

  it("reuses pooled connections for sequential requests and closes them with the scope", async () => {
    const upstream = await upstreamServer((req, res) => res.end(req.url))
    const gateway = await serveGateway(HttpUpstream.make("IAM", upstream.url))
    for (let i = 0; i < 20; i++) {
      const answer = await send(gateway.port, `/api/v1/iam/n/${i}`)
      expect([answer.status, answer.body]).toEqual([200, `/n/${i}`])
    }
    expect(upstream.sockets.length).toBe(1)
    const closed = once(upstream.sockets[0], "close")
    await gateway.close()
    await closed
  })

  it("retries a bodiless request once on a pooled connection the upstream dropped, but never one with a body", async () => {
    const served = new WeakMap<object, number>()
    const upstream = await upstreamServer((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1
      served.set(req.socket, count)
      if (count === 2) return req.socket.destroy()
      res.end("ok")
    })
    const errors: Array<[string, string]> = []
    const gateway = await serveGateway(HttpUpstream.make("CLI", upstream.url, { onError: (s, k) => errors.push([s, k]) }))
    expect((await send(gateway.port, "/api/v1/cli/a")).body).toBe("ok")
    expect((await send(gateway.port, "/api/v1/cli/b")).body).toBe("ok")
    expect(upstream.sockets.length).toBe(2)
    const post = await send(gateway.port, "/api/v1/cli/c", { method: "POST", body: "x" })
    expect([post.status, JSON.parse(post.body).error.code]).toEqual([502, "UPSTREAM_UNAVAILABLE"])
    expect(errors).toEqual([["CLI", "unavailable"]])
  })
})

describe("HttpUpstream response bodies", () => {
  const KiB = 1024
  const bytes = (length: number) => Buffer.from(Array.from({ length }, (_, i) => (i * 7 + (i >> 8)) % 256))

  /** One GET to the gateway: the events around it in order, and the answer with its body as bytes. */
  const fetchBytes = (port: number, path: string, events: Array<string>) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port, path, agent: false }, (response) => {
        events.push("client headers")
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }))
      }).on("error", reject)
    })

  it("answers a body with a Content-Length up to 64 KiB whole, only once the upstream has sent all of it", async () => {
    const body = bytes(64 * KiB)
    const halfSent = deferred()
    const release = deferred()
    const events: Array<string> = []
    const upstream = await upstreamServer(async (_req, res) => {
      res.writeHead(203, { "content-type": "application/octet-stream", "content-length": String(body.length), "x-part": "whole" })
      res.write(body.subarray(0, 32 * KiB), () => halfSent.resolve())
      await release.promise
      events.push("upstream end")
      res.end(body.subarray(32 * KiB))
    })
    const gateway = await serveGateway(HttpUpstream.make("BILLING", upstream.url))
    const answer = fetchBytes(gateway.port, "/api/v1/billing/export", events)
    await halfSent.promise
    await new Promise((resolve) => setTimeout(resolve, 50))
    release.resolve()
    const { status, headers, body: received } = await answer
    expect(events).toEqual(["upstream end", "client headers"])
    expect([status, received.equals(body)]).toEqual([203, true])
    expect(headers).toMatchObject({ "content-type": "application/octet-stream", "content-length": "65536", "x-part": "whole" })
    expect(headers["transfer-encoding"]).toBeUndefined()
  })

  it("answers an empty body with a Content-Length of 0, and a small one byte for byte", async () => {
    const small = bytes(300)
    const upstream = await upstreamServer((req, res) => {
      if (req.url === "/empty") return res.writeHead(200, { "content-length": "0", "x-empty": "yes" }).end()
      res.writeHead(200, { "content-type": "image/png", "content-length": String(small.length) }).end(small)
    })
    const gateway = await serveGateway(HttpUpstream.make("REGISTRY", upstream.url))
    const empty = await fetchBytes(gateway.port, "/api/v1/platforms/empty", [])
    expect([empty.status, empty.headers["content-length"], empty.headers["x-empty"], empty.body.length]).toEqual([200, "0", "yes", 0])
    const image = await fetchBytes(gateway.port, "/api/v1/platforms/logo", [])
    expect([image.headers["content-type"], image.headers["content-length"], image.body.equals(small)]).toEqual(["image/png", "300", true])
  })

  it("streams a body over 64 KiB, and one without a Content-Length: the first bytes reach the client before the upstream ends", async () => {
    for (const length of [64 * KiB + 1, undefined]) {
      const body = bytes(length ?? 100 * KiB)
      const release = deferred()
      const upstream = await upstreamServer(async (_req, res) => {
        res.writeHead(200, length === undefined ? { "content-type": "text/plain" } : { "content-length": String(length) })
        res.write(body.subarray(0, 10 * KiB))
        await release.promise
        res.end(body.subarray(10 * KiB))
      })
      const gateway = await serveGateway(HttpUpstream.make("STACKS", upstream.url))
      const { response } = await open(gateway.port, "/api/v1/stacks/archive")
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      await once(response, "data")
      release.resolve()
      await once(response, "end")
      expect(Buffer.concat(chunks).equals(body)).toBe(true)
      expect(response.headers["content-length"]).toBe(length === undefined ? undefined : String(length))
      expect(response.headers["transfer-encoding"]).toBe(length === undefined ? "chunked" : undefined)
    }
  })

  it("keeps the pooled connection for the next request after whole, streamed and HEAD answers", async () => {
    const large = bytes(100 * KiB)
    const upstream = await upstreamServer((req, res) => {
      if (req.url === "/large") return res.writeHead(200, { "content-length": String(large.length) }).end(large)
      if (req.url === "/chunked") {
        res.writeHead(200, { "content-type": "text/plain" })
        res.write("a")
        return res.end("b")
      }
      res.writeHead(200, { "content-length": "2" }).end(req.method === "HEAD" ? undefined : "ok")
    })
    const gateway = await serveGateway(HttpUpstream.make("CLI", upstream.url))
    for (const path of ["/small", "/large", "/chunked", "/small", "/chunked", "/large"]) {
      const answer = await fetchBytes(gateway.port, `/api/v1/cli${path}`, [])
      expect(answer.body.length).toBe(path === "/large" ? large.length : 2)
    }
    expect((await send(gateway.port, "/api/v1/cli/small", { method: "HEAD" })).status).toBe(200)
    expect((await send(gateway.port, "/api/v1/cli/small")).body).toBe("ok")
    expect(upstream.sockets.length).toBe(1)
  })
})

describe("HttpUpstream failures", () => {
  it("answers 502 UPSTREAM_UNAVAILABLE naming the service, never the URL, when the connection is refused", async () => {
    const port = await refusedPort()
    const errors: Array<[string, string]> = []
    const gateway = await serveGateway(
      HttpUpstream.make("BILLING", `http://127.0.0.1:${port}/internal`, { onError: (s, k) => errors.push([s, k]) })
    )
    const answer = await send(gateway.port, "/api/v1/billing/plans", { headers: { "x-request-id": "r-refused" } })
    expect(answer.status).toBe(502)
    expect(answer.headers["content-type"]).toBe("application/json")
    expect(answer.headers["x-request-id"]).toBe("r-refused")
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "UPSTREAM_UNAVAILABLE", message: "The BILLING service is not reachable", requestId: "r-refused", details: null }
    })
    expect(errors).toEqual([["BILLING", "unavailable"]])
    expect(gateway.warnings().map((line) => [line.message, line.annotations])).toEqual([
      ["upstream unreachable", { upstream: "BILLING", kind: "unavailable", reason: "ECONNREFUSED", requestId: "r-refused" }]
    ])
  })

  it("answers 504 UPSTREAM_TIMEOUT when the upstream never answers within the timeout", async () => {
    const arrived = deferred()
    const upstream = await upstreamServer(() => arrived.resolve())
    const errors: Array<[string, string]> = []
    const gateway = await serveGateway(
      HttpUpstream.make("IAM", upstream.url, { timeout: "100 millis", onError: (s, k) => errors.push([s, k]) })
    )
    const answer = await send(gateway.port, "/api/v1/iam/slow", { headers: { "x-request-id": "r-slow" } })
    await arrived.promise
    expect(answer.status).toBe(504)
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "UPSTREAM_TIMEOUT", message: "The IAM service did not answer in time", requestId: "r-slow", details: null }
    })
    expect(errors).toEqual([["IAM", "timeout"]])
  })

  it("answers 502 when the upstream destroys the connection before the headers", async () => {
    const upstream = await upstreamServer((req) => req.socket.destroy())
    const gateway = await serveGateway(HttpUpstream.make("REGISTRY", upstream.url))
    const answer = await send(gateway.port, "/api/v1/platforms/plt_1", { headers: { "x-request-id": "r-hangup" } })
    expect(answer.status).toBe(502)
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "UPSTREAM_UNAVAILABLE", message: "The REGISTRY service is not reachable", requestId: "r-hangup", details: null }
    })
  })

  it("resets the client's connection when the upstream breaks off the body after the headers", async () => {
    for (const headers of [{ "content-length": "100" }, {}]) {
      const upstream = await upstreamServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", ...headers })
        res.write("partial", () => res.socket?.destroy())
      })
      const errors: Array<[string, string]> = []
      const gateway = await serveGateway(HttpUpstream.make("STACKS", upstream.url, { onError: (s, k) => errors.push([s, k]) }))
      const { response } = await open(gateway.port, "/api/v1/stacks/broken")
      expect(response.statusCode).toBe(200)
      expect(await ended(response)).toEqual({ complete: false, body: "partial" })
      expect(errors).toEqual([["STACKS", "unavailable"]])
      expect(gateway.warnings().map((line) => [line.message, line.annotations.upstream, line.annotations.reason])).toEqual([
        ["upstream response broken off", "STACKS", "closed"]
      ])
    }
  })

  it("resets the client's connection when the upstream's body stands still longer than the idle timeout", async () => {
    for (const headers of [{ "content-length": "100" }, {}]) {
      const upstream = await upstreamServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", ...headers })
        res.write("started")
      })
      const errors: Array<[string, string]> = []
      const gateway = await serveGateway(
        HttpUpstream.make("CLI", upstream.url, { idleTimeout: "100 millis", onError: (s, k) => errors.push([s, k]) })
      )
      const { response } = await open(gateway.port, "/api/v1/cli/logs")
      expect(response.statusCode).toBe(200)
      expect(await ended(response)).toEqual({ complete: false, body: "started" })
      expect(errors).toEqual([["CLI", "timeout"]])
      expect(gateway.warnings().map((line) => [line.message, line.annotations.reason])).toEqual([["upstream response broken off", "idle"]])
    }
  })

  it("answers 504 when the upstream stops taking the request body for longer than the idle timeout", async () => {
    const arrived = deferred()
    const upstream = await upstreamServer((req) => {
      req.pause()
      arrived.resolve()
    })
    const errors: Array<[string, string]> = []
    const gateway = await serveGateway(
      HttpUpstream.make("PROVISIONING", upstream.url, { idleTimeout: "100 millis", onError: (s, k) => errors.push([s, k]) })
    )
    const chunk = Buffer.alloc(64 * 1024, 1)
    let client: http.ClientRequest | undefined
    const answer = upload(gateway.port, "/api/v1/provisioning/upload", (request) => {
      client = request
      for (let i = 0; i < 512; i++) request.write(chunk)
    })
    await arrived.promise
    const { status, body } = await answer
    client?.destroy()
    expect([status, JSON.parse(body).error.code]).toEqual([504, "UPSTREAM_TIMEOUT"])
    expect(errors).toEqual([["PROVISIONING", "timeout"]])
  })

  it("never counts a slow upload against the timeout, which starts again once the body is sent", async () => {
    const upstream = await upstreamServer(async (req, res) => res.end(`got ${(await readAll(req)).length}`))
    const gateway = await serveGateway(HttpUpstream.make("PROVISIONING", upstream.url, { timeout: "100 millis" }))
    const answer = upload(gateway.port, "/api/v1/provisioning/upload", async (request) => {
      for (let i = 0; i < 6; i++) {
        request.write("0123456789")
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      request.end()
    })
    expect(await answer).toMatchObject({ status: 200, body: "got 60" })
  })
})

describe("HttpUpstream client going away", () => {
  it("aborts the upstream request when the client leaves before the headers", async () => {
    const arrived = deferred()
    const closed = deferred()
    const upstream = await upstreamServer((_req, res) => {
      res.on("close", () => closed.resolve())
      arrived.resolve()
    })
    const errors: Array<[string, string]> = []
    const gateway = await serveGateway(HttpUpstream.make("IAM", upstream.url, { onError: (s, k) => errors.push([s, k]) }))
    const request = http.get({ host: "127.0.0.1", port: gateway.port, path: "/api/v1/iam/wait", agent: false })
    request.on("error", () => {})
    await arrived.promise
    request.destroy()
    await closed.promise
    expect(errors).toEqual([])
  })

  it("aborts the upstream request when the client leaves in the middle of its body", async () => {
    const firstBytes = deferred()
    const closed = deferred()
    const upstream = await upstreamServer((req, res) => {
      res.on("close", () => closed.resolve())
      req.once("data", () => firstBytes.resolve())
    })
    const errors: Array<[string, string]> = []
    const gateway = await serveGateway(HttpUpstream.make("IAM", upstream.url, { onError: (s, k) => errors.push([s, k]) }))
    const request = http.request({ host: "127.0.0.1", port: gateway.port, path: "/api/v1/iam/upload", method: "POST", agent: false })
    request.on("error", () => {})
    request.write("part of a body")
    await firstBytes.promise
    request.destroy()
    await closed.promise
    expect(errors).toEqual([])
  })

  it("never sends a request whose small body the client left before finishing", async () => {
    const urls: Array<string | undefined> = []
    const upstream = await upstreamServer((req, res) => {
      urls.push(req.url)
      res.end("ok")
    })
    const errors: Array<[string, string]> = []
    const gateway = await serveGateway(HttpUpstream.make("IAM", upstream.url, { onError: (s, k) => errors.push([s, k]) }))
    const request = http.request({
      host: "127.0.0.1",
      port: gateway.port,
      path: "/api/v1/iam/left",
      method: "POST",
      agent: false,
      headers: { "content-length": "100" }
    })
    request.on("error", () => {})
    const closed = new Promise((resolve) => request.on("close", resolve))
    request.write("only ten b", () => request.destroy())
    await closed
    expect((await send(gateway.port, "/api/v1/iam/after")).body).toBe("ok")
    expect(urls).toEqual(["/after"])
    expect(errors).toEqual([])
  })

  it("aborts the upstream response when the client leaves while it streams", async () => {
    const closed = deferred()
    const upstream = await upstreamServer((_req, res) => {
      res.on("close", () => closed.resolve())
      res.writeHead(200, { "content-type": "text/plain" })
      res.write("tick")
    })
    const gateway = await serveGateway(HttpUpstream.make("STACKS", upstream.url))
    const { request, response } = await open(gateway.port, "/api/v1/stacks/follow")
    await once(response, "data")
    request.destroy()
    await closed.promise
  })
})

describe("HttpUpstream through a web handler", () => {
  const quiet = (app: HttpApp.Default<never, Scope.Scope>) => {
    const { dispose, handler } = HttpApp.toWebHandlerLayer(app, Logger.replace(Logger.defaultLogger, Logger.none))
    cleanups.push(dispose)
    return handler
  }
  const scoped = async (make: Effect.Effect<Upstream, never, Scope.Scope>) => {
    const scope = Effect.runSync(Scope.make())
    cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
    return Effect.runPromise(Scope.extend(make, scope))
  }
  const echo = async () =>
    upstreamServer(async (req, res) => {
      const body = await readAll(req)
      if (req.url === "/empty") return res.writeHead(204, { "x-empty": "yes" }).end()
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, headers: req.headers, body }))
    })

  it("takes the protocol and host from the request URL, and answers a 204 without a body", async () => {
    const upstream = await echo()
    const routes = [{ prefix: "/api/v1/vault", service: "VAULT" as const }]
    const handler = quiet(Gateway.make({ routes, upstreams: [await scoped(HttpUpstream.make("VAULT", upstream.url))] }))
    const answer = await handler(new Request("https://core.test/api/v1/vault/secrets", { method: "POST" }))
    const seen = await answer.json()
    expect([answer.status, seen.method, seen.body]).toEqual([200, "POST", ""])
    expect(seen.headers).toMatchObject({ "x-forwarded-proto": "https", "x-forwarded-host": "core.test", host: `127.0.0.1:${upstream.port}` })
    expect(seen.headers["x-forwarded-for"]).toBeUndefined()
    const empty = await handler(new Request("https://core.test/api/v1/vault/empty"))
    expect([empty.status, empty.headers.get("x-empty"), await empty.text()]).toEqual([204, "yes", ""])
  })

  it("keeps a trusted proxy's X-Forwarded-Proto and X-Forwarded-Host only with trustProxy", async () => {
    const upstream = await echo()
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "public.example" }
    for (const trustProxy of [true, false]) {
      const iam = await scoped(HttpUpstream.make("IAM", upstream.url, { trustProxy }))
      const handler = quiet(Gateway.make({ upstreams: [iam] }))
      const seen = await (await handler(new Request("http://core.test/api/v1/iam/x", { headers: forwarded }))).json()
      expect([seen.headers["x-forwarded-proto"], seen.headers["x-forwarded-host"]]).toEqual(
        trustProxy ? ["https", "public.example"] : ["http", "core.test"]
      )
    }
  })
})

describe("HttpUpstream called from code", () => {
  it("answers a request built in process, its body read inside the scope (as the identity resolver does)", async () => {
    const upstream = await upstreamServer(async (req, res) => {
      const body = await readAll(req)
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ url: req.url, body, host: req.headers["x-forwarded-host"] }))
    })
    const answer = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function*() {
          const iam = yield* HttpUpstream.make("IAM", upstream.url)
          const request = HttpServerRequest.fromWeb(
            new Request("http://iam.internal/api/core/apikey/validate", { method: "POST", body: "{\"key\":\"k\"}" })
          )
          const response = yield* iam.forward(request)
          const runtime = yield* Effect.runtime<never>()
          return yield* Effect.promise(() => HttpServerResponse.toWeb(response, { runtime }).json())
        })
      ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none)))
    )
    expect(answer).toEqual({ url: "/api/core/apikey/validate", body: "{\"key\":\"k\"}", host: "iam.internal" })
  })
})

describe("node path", () => {
  const KiB = 1024

  /**
   * A `node:http` server on 127.0.0.1 whose handler hands every request to `upstream.node`, as the
   * gateway's Node listener does: the inbound headers without hop-by-hop ones and with the request
   * id, `/api` stripped from the path, failures answered with the kernel's envelope.
   */
  const serveNode = async (make: Effect.Effect<Upstream, never, Scope.Scope>) => {
    const { layer, warnings } = captureLogs()
    const scope = Effect.runSync(Scope.make())
    cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
    const upstream = await Effect.runPromise(make.pipe(Effect.provide(layer), Scope.extend(scope)))
    const server = http.createServer((req, res) => {
      const requestId = String(req.headers["x-request-id"] ?? "r-node")
      const headers: Record<string, string> = {}
      for (const name in req.headers) {
        const value = req.headers[name]
        if (typeof value === "string" && !HOP_BY_HOP.includes(name)) headers[name] = value
      }
      headers["x-request-id"] = requestId
      upstream.node!(req, res, {
        url: req.url!.replace(/^\/api/, ""),
        headers,
        requestId,
        fail: (error) => {
          const description = ErrorResponse.describe(error)
          const body = JSON.stringify(ErrorResponse.envelope(description, requestId))
          res.writeHead(description.status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body)
        }
      })
    })
    server.listen(0, "127.0.0.1")
    await once(server, "listening")
    cleanups.push(() => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    })
    return { port: (server.address() as AddressInfo).port, warnings }
  }

  const counting = () => {
    const errors: Array<[string, string]> = []
    return { errors, onError: (service: string, kind: string) => void errors.push([service, kind]) }
  }

  it("passes status, headers and body through: hop-by-hop headers dropped, every Set-Cookie kept", async () => {
    const seen = deferred<{ method?: string; headers: http.IncomingHttpHeaders; body: string }>()
    const upstream = await upstreamServer(async (req, res) => {
      seen.resolve({ method: req.method, headers: req.headers, body: await readAll(req) })
      res.writeHead(201, {
        "content-type": "application/json",
        "content-length": "11",
        connection: "keep-alive, x-hop",
        "x-hop": "private",
        "keep-alive": "timeout=5",
        "x-upstream": "billing",
        "set-cookie": ["a=1; Path=/; HttpOnly", "b=2; Path=/api; Max-Age=60"]
      })
      res.end("{\"ok\":true}")
    })
    const proxy = await serveNode(HttpUpstream.make("BILLING", upstream.url))
    const answer = await send(proxy.port, "/api/usage", {
      method: "POST",
      headers: {
        host: "core.test:8443",
        "content-type": "application/json",
        "x-request-id": "r-pass",
        "x-forwarded-for": "203.0.113.7",
        "x-forwarded-proto": "https"
      },
      body: "{\"name\":\"web\"}"
    })
    const request = await seen.promise
    expect([request.method, request.body]).toEqual(["POST", "{\"name\":\"web\"}"])
    expect(request.headers).toMatchObject({
      host: `127.0.0.1:${upstream.port}`,
      "content-length": "14",
      "x-forwarded-for": "203.0.113.7, 127.0.0.1",
      "x-forwarded-proto": "http",
      "x-forwarded-host": "core.test:8443",
      "x-request-id": "r-pass"
    })
    expect([answer.status, answer.body]).toEqual([201, "{\"ok\":true}"])
    expect(answer.headers).toMatchObject({
      "content-type": "application/json",
      "content-length": "11",
      "x-upstream": "billing",
      "set-cookie": ["a=1; Path=/; HttpOnly", "b=2; Path=/api; Max-Age=60"]
    })
    expect([answer.headers["x-hop"], answer.headers["keep-alive"]]).toEqual([undefined, undefined])
  })

  it("appends the path and query to the base path, and keeps a trusted proxy's X-Forwarded-* only with trustProxy", async () => {
    const seen: Array<{ url?: string; proto?: string | Array<string>; host?: string | Array<string> }> = []
    const upstream = await upstreamServer((req, res) => {
      seen.push({ url: req.url, proto: req.headers["x-forwarded-proto"], host: req.headers["x-forwarded-host"] })
      res.end("ok")
    })
    const forwarded = { host: "core.test", "x-forwarded-proto": "https", "x-forwarded-host": "public.example" }
    for (const trustProxy of [false, true]) {
      const proxy = await serveNode(HttpUpstream.make("REGISTRY", `${upstream.url}/registry/`, { trustProxy }))
      expect((await send(proxy.port, "/api/flows/f_1?limit=2&q=a%20b", { headers: forwarded })).body).toBe("ok")
    }
    expect(seen).toEqual([
      { url: "/registry/flows/f_1?limit=2&q=a%20b", proto: "http", host: "core.test" },
      { url: "/registry/flows/f_1?limit=2&q=a%20b", proto: "https", host: "public.example" }
    ])
  })

  it("streams a large request body and a large response body through intact", async () => {
    const upload = Buffer.from(Array.from({ length: 3 * 1024 * KiB }, (_, i) => (i * 13 + (i >> 10)) % 256))
    const download = Buffer.from(Array.from({ length: 2 * 1024 * KiB }, (_, i) => (i * 7 + (i >> 8)) % 256))
    const received = deferred<{ same: boolean; encoding?: string }>()
    const upstream = await upstreamServer(async (req, res) => {
      const chunks: Array<Buffer> = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      received.resolve({ same: Buffer.concat(chunks).equals(upload), encoding: req.headers["transfer-encoding"] })
      res.writeHead(200, { "content-type": "application/octet-stream" })
      for (let offset = 0; offset < download.length; offset += 64 * KiB) {
        if (!res.write(download.subarray(offset, offset + 64 * KiB))) await once(res, "drain")
      }
      res.end()
    })
    const proxy = await serveNode(HttpUpstream.make("PROVISIONING", upstream.url))
    const answer = new Promise<{ status?: number; body: Buffer }>((resolve, reject) => {
      const request = http.request({ host: "127.0.0.1", port: proxy.port, path: "/api/upload", method: "PUT", agent: false }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }))
      })
      request.on("error", reject)
      void (async () => {
        for (let offset = 0; offset < upload.length; offset += 64 * KiB) {
          if (!request.write(upload.subarray(offset, offset + 64 * KiB))) await once(request, "drain")
        }
        request.end()
      })()
    })
    expect(await received.promise).toEqual({ same: true, encoding: "chunked" })
    const { status, body } = await answer
    expect([status, body.length, body.equals(download)]).toEqual([200, download.length, true])
  })

  it("answers HEAD with the upstream's headers and a 204 without a body, on one pooled connection", async () => {
    const upstream = await upstreamServer((req, res) => {
      if (req.url === "/empty") return res.writeHead(204, { "x-empty": "yes" }).end()
      res.writeHead(200, { "content-type": "text/plain", "content-length": "5" }).end(req.method === "HEAD" ? undefined : "hello")
    })
    const proxy = await serveNode(HttpUpstream.make("CLI", upstream.url))
    const head = await send(proxy.port, "/api/file", { method: "HEAD" })
    const empty = await send(proxy.port, "/api/empty", { method: "DELETE" })
    const get = await send(proxy.port, "/api/file")
    expect([head.status, head.headers["content-length"], head.body]).toEqual([200, "5", ""])
    expect([empty.status, empty.headers["x-empty"], empty.body]).toEqual([204, "yes", ""])
    expect([get.status, get.body]).toEqual([200, "hello"])
    expect(upstream.sockets.length).toBe(1)
  })

  it("answers 502 UPSTREAM_UNAVAILABLE on a refused connection, reported once", async () => {
    const port = await refusedPort()
    const { errors, onError } = counting()
    const proxy = await serveNode(HttpUpstream.make("BILLING", `http://127.0.0.1:${port}/internal`, { onError }))
    const answer = await send(proxy.port, "/api/plans", { headers: { "x-request-id": "r-refused" } })
    expect([answer.status, answer.headers["content-type"]]).toEqual([502, "application/json"])
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "UPSTREAM_UNAVAILABLE", message: "The BILLING service is not reachable", requestId: "r-refused", details: null }
    })
    expect(errors).toEqual([["BILLING", "unavailable"]])
    expect(proxy.warnings().map((line) => [line.message, line.annotations])).toEqual([
      ["upstream unreachable", { upstream: "BILLING", kind: "unavailable", reason: "ECONNREFUSED", requestId: "r-refused" }]
    ])
  })

  it("answers 504 UPSTREAM_TIMEOUT when the upstream never answers within the timeout", async () => {
    const arrived = deferred()
    const upstream = await upstreamServer(() => arrived.resolve())
    const { errors, onError } = counting()
    const proxy = await serveNode(HttpUpstream.make("IAM", upstream.url, { timeout: "100 millis", onError }))
    const answer = await send(proxy.port, "/api/slow", { headers: { "x-request-id": "r-slow" } })
    await arrived.promise
    expect(answer.status).toBe(504)
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "UPSTREAM_TIMEOUT", message: "The IAM service did not answer in time", requestId: "r-slow", details: null }
    })
    expect(errors).toEqual([["IAM", "timeout"]])
    expect(proxy.warnings().map((line) => [line.message, line.annotations.reason])).toEqual([["upstream timed out", "timeout"]])
  })

  it("cuts the client's connection when the upstream's body breaks off or stands still after the headers", async () => {
    const cases = [
      { headers: { "content-length": "100" }, stall: false, kind: "unavailable", reason: "closed" },
      { headers: {}, stall: false, kind: "unavailable", reason: "closed" },
      { headers: { "content-length": "100" }, stall: true, kind: "timeout", reason: "idle" },
      { headers: {}, stall: true, kind: "timeout", reason: "idle" }
    ]
    for (const { headers, kind, reason, stall } of cases) {
      const upstream = await upstreamServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", ...headers })
        res.write("partial", () => stall || res.socket?.destroy())
      })
      const { errors, onError } = counting()
      const proxy = await serveNode(HttpUpstream.make("STACKS", upstream.url, { idleTimeout: "100 millis", onError }))
      const { response } = await open(proxy.port, "/api/logs")
      expect(response.statusCode).toBe(200)
      expect(await ended(response)).toEqual({ complete: false, body: "partial" })
      expect(errors).toEqual([["STACKS", kind]])
      expect(proxy.warnings().map((line) => [line.message, line.annotations.reason])).toEqual([["upstream response broken off", reason]])
    }
  })

  it("answers 504 when the upstream stops taking a streamed request body for the idle timeout, not the head's timeout", async () => {
    const arrived = deferred()
    const upstream = await upstreamServer((req) => {
      req.pause()
      arrived.resolve()
    })
    const { errors, onError } = counting()
    const proxy = await serveNode(
      HttpUpstream.make("PROVISIONING", upstream.url, { timeout: "50 millis", idleTimeout: "400 millis", onError })
    )
    const chunk = Buffer.alloc(64 * KiB, 1)
    let client: http.ClientRequest | undefined
    const started = Date.now()
    const answer = upload(proxy.port, "/api/upload", (request) => {
      client = request
      for (let i = 0; i < 512; i++) request.write(chunk)
    })
    await arrived.promise
    const { status, body } = await answer
    client?.destroy()
    expect([status, JSON.parse(body).error.code]).toEqual([504, "UPSTREAM_TIMEOUT"])
    expect(Date.now() - started).toBeGreaterThanOrEqual(350)
    expect(errors).toEqual([["PROVISIONING", "timeout"]])
    expect(proxy.warnings().map((line) => [line.message, line.annotations.reason])).toEqual([["upstream timed out", "timeout"]])
  })

  it("never counts a slow streamed upload against the timeout, which starts once the body is sent", async () => {
    const upstream = await upstreamServer(async (req, res) => res.end(`got ${(await readAll(req)).length}`))
    const proxy = await serveNode(HttpUpstream.make("PROVISIONING", upstream.url, { timeout: "100 millis" }))
    const answer = upload(proxy.port, "/api/upload", async (request) => {
      for (let i = 0; i < 6; i++) {
        request.write("0123456789")
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      request.end()
    })
    expect(await answer).toMatchObject({ status: 200, body: "got 60" })
  })

  it("aborts the upstream request when the client leaves before the headers, and while the body streams", async () => {
    for (const streaming of [false, true]) {
      const arrived = deferred()
      const closed = deferred()
      const upstream = await upstreamServer((_req, res) => {
        res.on("close", () => closed.resolve())
        if (streaming) res.writeHead(200, { "content-type": "text/plain" }).write("tick")
        arrived.resolve()
      })
      const { errors, onError } = counting()
      const proxy = await serveNode(HttpUpstream.make("IAM", upstream.url, { onError }))
      const request = http.get({ host: "127.0.0.1", port: proxy.port, path: "/api/wait", agent: false })
      request.on("error", () => {})
      if (streaming) await once(await once(request, "response").then(([response]) => response as http.IncomingMessage), "data")
      else await arrived.promise
      request.destroy()
      await closed.promise
      expect([upstream.sockets.length, upstream.sockets[0].destroyed]).toEqual([1, true])
      expect(errors).toEqual([])
    }
  })

  it("aborts the upstream request when the client leaves in the middle of its body", async () => {
    const firstBytes = deferred()
    const closed = deferred()
    const upstream = await upstreamServer((req, res) => {
      res.on("close", () => closed.resolve())
      req.once("data", () => firstBytes.resolve())
    })
    const { errors, onError } = counting()
    const proxy = await serveNode(HttpUpstream.make("IAM", upstream.url, { onError }))
    const request = http.request({ host: "127.0.0.1", port: proxy.port, path: "/api/upload", method: "POST", agent: false })
    request.on("error", () => {})
    request.write("part of a body")
    await firstBytes.promise
    request.destroy()
    await closed.promise
    expect(errors).toEqual([])
  })
})

describe("HttpUpstream construction", () => {
  it("makes one upstream per configured service URL and skips unknown names", async () => {
    const upstream = await upstreamServer((req, res) => res.end(req.url))
    const made = await Effect.runPromise(
      Effect.scoped(HttpUpstream.makeAll({ billing: upstream.url, iam: undefined, nope: upstream.url, cli: `${upstream.url}/cli` }))
    )
    expect(made.map((one) => one.service)).toEqual(["BILLING", "CLI"])
  })

  it("dies on a base URL that is not http(s) or carries credentials", async () => {
    for (const url of ["ftp://billing", "http://user:secret@billing", "http://billing/?x=1", "::secret::"]) {
      const exit = await Effect.runPromiseExit(Effect.scoped(HttpUpstream.make("BILLING", url)))
      expect(Exit.isFailure(exit) && exit.cause._tag).toBe("Die")
      expect(JSON.stringify(exit)).not.toContain("secret")
    }
  })
})
