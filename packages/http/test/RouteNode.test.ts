import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { defineRoutes } from "@core/contracts"
import { Effect, ManagedRuntime } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { type Callers, ErrorResponse, NotFound, Route } from "@core/kernel"
import { type HttpHarness, makeHttpHarness, type TestRequestInit } from "@core/kernel/testing"
import * as RouteNode from "../src/RouteNode.js"
import { FakeCallers, handlers, seen, transportHandlers } from "./fixtures/routes.js"

const all = [...handlers, ...transportHandlers]

interface Served {
  readonly url: string
  readonly close: () => Promise<void>
}

/** `RouteNode.listener` on a real `node:http` server at 127.0.0.1. */
const serveNode = async <const H extends ReadonlyArray<Route.Handler<any, any>>>(
  list: H,
  options?: Route.RouterOptions
): Promise<Served> => {
  const runtime = ManagedRuntime.make(FakeCallers)
  const listener = await runtime.runPromise(RouteNode.listener(list, options))
  const server = http.createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await runtime.dispose()
    }
  }
}

/** The same list through the web-standard handler, every failure an envelope (as `@core/http` serves it). */
const serveWeb = (list: ReadonlyArray<Route.Handler<any, any>>, options?: Route.RouterOptions) =>
  makeHttpHarness(ErrorResponse.withErrorEnvelope(Effect.runSync(HttpRouter.toHttpApp(Route.router(list, options)))), FakeCallers)

const initOf = ({ token, apiKey, json, ...rest }: TestRequestInit): RequestInit => {
  const headers = new Headers(rest.headers)
  if (token !== undefined) headers.set("authorization", `Bearer ${token}`)
  if (apiKey !== undefined) headers.set("x-api-key", apiKey)
  if (json !== undefined) headers.set("content-type", "application/json")
  return { ...rest, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) }
}

interface Seen {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | null>
  readonly body: string
}

const COMPARED = ["content-type", "content-length", "x-request-id", "retry-after", "location"]

const seenOf = async (response: Response): Promise<Seen> => {
  const headers: Record<string, string | Array<string> | null> = {}
  for (const name of COMPARED) headers[name] = response.headers.get(name)
  headers["set-cookie"] = response.headers.getSetCookie()
  return { status: response.status, headers, body: await response.text() }
}

const multipart = () => {
  const form = new FormData()
  form.append("name", "value")
  form.append("file", new Blob(["content"], { type: "text/plain" }), "a.txt")
  return form
}

describe("RouteNode: catalogued routes on Node's own request and response", () => {
  let web: HttpHarness<Callers>
  let node: Served
  beforeAll(async () => {
    web = await serveWeb(all)
    node = await serveNode(all)
  })
  afterAll(async () => {
    await node.close()
    await web.dispose()
  })

  /** Send one request both ways (with a fixed request id, so envelopes compare), and answer both. */
  const both = async (path: string, init: TestRequestInit = {}) => {
    const withId = { ...init, headers: { "x-request-id": "req-1", ...init.headers } }
    const [byWeb, byNode] = await Promise.all([web.fetch(path, withId), fetch(`${node.url}${path}`, initOf(withId))])
    return { web: await seenOf(byWeb), node: await seenOf(byNode) }
  }

  const CASES: ReadonlyArray<readonly [string, string, TestRequestInit?]> = [
    ["public route", "/ping"],
    ["201 for a user", "/orgs/org_1/things", { method: "POST", token: "usr_owner", json: { name: "a" } }],
    ["201 for an API key", "/orgs/org_1/things", { method: "POST", apiKey: "core_good", json: { name: "b" } }],
    ["a form body", "/orgs/org_1/things", {
      method: "POST",
      token: "usr_owner",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "name=formed"
    }],
    ["401 without credentials", "/orgs/org_1/things", { method: "POST", json: { name: "a" } }],
    ["401 with bad credentials", "/orgs/org_1/things", { method: "POST", apiKey: "core_bad", json: { name: "a" } }],
    ["404 for another tenant", "/orgs/org_2/things", { method: "POST", apiKey: "core_good", json: { name: "a" } }],
    ["403 without the permission", "/orgs/org_1/things", { method: "POST", token: "usr_reader", json: { name: "a" } }],
    ["400 on the body", "/orgs/org_1/things", { method: "POST", token: "usr_owner", json: { name: "" } }],
    ["400 on the query", "/things?limit=0", { token: "static" }],
    ["400 INVALID_JSON", "/orgs/org_1/things", {
      method: "POST",
      token: "usr_owner",
      body: "{",
      headers: { "content-type": "application/json" }
    }],
    ["415", "/orgs/org_1/things", { method: "POST", token: "usr_owner", body: "x", headers: { "content-type": "text/plain" } }],
    ["413 with Content-Length over", "/uploads", { method: "POST", json: { data: "x".repeat(100) } }],
    ["a body under the limit", "/uploads", { method: "POST", json: { data: "x" } }],
    ["401 for a kind the route refuses", "/things/thg_1", { method: "DELETE", apiKey: "core_good" }],
    ["204", "/things/thg_1", { method: "DELETE", token: "usr_owner" }],
    ["403 for a non-operator", "/things", { token: "usr_owner" }],
    ["an operator route", "/things?limit=5", { token: "usr_op" }],
    ["an unknown route", "/nope"],
    ["a known path with another method", "/ping", { method: "POST" }],
    ["OPTIONS", "/ping", { method: "OPTIONS" }],
    ["HEAD served by GET", "/ping", { method: "HEAD" }],
    ["HEAD of a parameter route", "/items/abc", { method: "HEAD" }],
    ["broken percent-encoding", "/items/%E0%A4%A"],
    ["another case and a trailing slash", "/PING/"],
    ["a fixed word before a parameter", "/items/lookup"],
    ["a parameter", "/items/abc"],
    ["an encoded slash in a parameter", "/items/a%2Fb"],
    ["an encoded percent in a parameter", "/items/100%25"],
    ["unicode in a parameter", "/items/caf%C3%A9"],
    ["a parameter over 100 characters", `/items/${"a".repeat(101)}`],
    ["a parameter of 100 characters", `/items/${"a".repeat(100)}`],
    ["repeated slashes", "/items//abc"],
    ["a parameter keeps its case, fixed words do not", "/ITEMS/AbC/"],
    ["fixed words in another case", "/Items/LookUp"],
    ["encoded characters in a parameter", "/items/%41b%3Fc%23d%26e%2Bf"],
    ["an empty query", "/ping?"],
    ["a path that only starts like a route", "/pings"],
    ["a longer path than any route", "/items/abc/def"],
    ["route context, search parameters and URL", "/echo/x%20y/more?a=1&a=2&b=%20"],
    ["a query after ;", "/echo/x/more;jsessionid=1"],
    ["a twice-encoded percent and broken query encoding", "/echo/a%2525b/more?a=%E0%A4%A&b+c=d+e&=x&flag"],
    ["a streamed body", "/stream"],
    ["cookies and text", "/cookie", { method: "POST" }],
    ["a defect", "/crash"],
    ["the request's own text", "/text", { method: "POST", body: "héllo wörld", headers: { "content-type": "text/plain" } }],
    ["a multipart body", "/parts", { method: "POST", body: multipart() }]
  ]

  for (const [name, path, init] of CASES) {
    it(`answers as the web handler does: ${name}`, async () => {
      const { web, node } = await both(path, init)
      expect(node).toEqual(web)
    })
  }

  it("answers the declared statuses and envelopes (not only the same as the web handler)", async () => {
    expect((await both("/orgs/org_1/things", { method: "POST", token: "usr_owner", json: { name: "a" } })).node.status).toBe(201)
    const unknown = (await both("/nope")).node
    expect(unknown.status).toBe(404)
    expect(JSON.parse(unknown.body)).toEqual({ error: { code: "NOT_FOUND", message: "Route not found", requestId: "req-1", details: null } })
    expect(unknown.headers["x-request-id"]).toBe("req-1")
    const tooLarge = (await both("/uploads", { method: "POST", json: { data: "x".repeat(100) } })).node
    expect(tooLarge.status).toBe(413)
    expect(JSON.parse(tooLarge.body).error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: 64 } })
    const head = (await both("/ping", { method: "HEAD" })).node
    expect(head).toMatchObject({ status: 200, body: "", headers: { "content-type": "application/json", "content-length": "11" } })
    const crash = (await both("/crash")).node
    expect(crash.status).toBe(500)
    expect(crash.body).not.toContain("boom")
    expect((await both("/stream")).node.body).toBe("one,two,three")
  })

  /** One raw request on a kept-alive connection: the body written as the given chunks. */
  const raw = (agent: http.Agent, path: string, headers: http.OutgoingHttpHeaders, chunks: ReadonlyArray<string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(`${node.url}${path}`, { method: "POST", agent, headers }, (response) => {
        let body = ""
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ status: response.statusCode!, body }))
      })
      request.on("error", reject)
      for (const chunk of chunks) request.write(chunk)
      request.end()
    })

  it("answers 413 on a chunked body once it passes the limit, and the connection serves the next request", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const chunks = ["{\"data\":\"", ...Array.from({ length: 20 }, () => "xxxxxxxxxx"), "\"}"]
      const chunked = await raw(agent, "/uploads", { "content-type": "application/json", "transfer-encoding": "chunked" }, chunks)
      expect(chunked.status).toBe(413)
      expect(JSON.parse(chunked.body).error.code).toBe("PAYLOAD_TOO_LARGE")
      const announced = await raw(agent, "/uploads", { "content-type": "application/json", "content-length": 1000 }, ["x".repeat(1000)])
      expect(announced.status).toBe(413)
      const next = await raw(agent, "/uploads", { "content-type": "application/json" }, ["{\"data\":\"ok\"}"])
      expect(next).toEqual({ status: 201, body: "{\"size\":2}" })
      const webChunked = await web.fetch("/uploads", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Blob(chunks).stream(),
        duplex: "half"
      } as TestRequestInit)
      expect(webChunked.status).toBe(chunked.status)
    } finally {
      agent.destroy()
    }
  })

  it("interrupts the handler when the client goes away, and goes on serving", async () => {
    const { started, interrupted } = seen
    const aborted = new AbortController()
    const pending = fetch(`${node.url}/slow`, { signal: aborted.signal }).catch((error: unknown) => error)
    await expect.poll(() => seen.started).toBe(started + 1)
    aborted.abort()
    expect(await pending).toBeInstanceOf(Error)
    await expect.poll(() => seen.interrupted).toBe(interrupted + 1)
    expect((await fetch(`${node.url}/ping`)).status).toBe(200)
  })

  it("gives each request a scope, closed once it is answered", async () => {
    const { finalized } = seen
    expect(await (await fetch(`${node.url}/scoped`)).json()).toEqual({ ok: true })
    await expect.poll(() => seen.finalized).toBe(finalized + 1)
  })

  it("serves concurrent requests, each its own answer", async () => {
    const answers = await Promise.all(Array.from({ length: 120 }, async (_, i) => {
      const response = i % 3 === 0
        ? await fetch(`${node.url}/items/n${i}`)
        : i % 3 === 1
        ? await fetch(`${node.url}/orgs/org_1/things`, initOf({ method: "POST", token: "usr_owner", json: { name: `n${i}` } }))
        : await fetch(`${node.url}/things?limit=${(i % 100) + 1}`, initOf({ token: "usr_op" }))
      return [i, response.status, await response.json()] as const
    }))
    for (const [i, status, body] of answers) {
      if (i % 3 === 0) expect([status, body]).toEqual([200, { id: `n${i}` }])
      else if (i % 3 === 1) expect([status, body]).toEqual([201, { id: "thg_1", name: `n${i}` }])
      else expect([status, body]).toEqual([200, { limit: (i % 100) + 1, caller: "user" }])
    }
  })
})

describe("RouteNode: options as Route.router takes them", () => {
  const Routes = defineRoutes({
    get: { method: "GET", path: "/api/v1/widgets/{id}", summary: "A widget", auth: "public", responses: { 200: z.object({ id: z.string() }), 404: null } }
  })
  const list = [
    Route.handle(Routes.get, ({ params }) => (params.id === "missing" ? Effect.fail(new NotFound({ message: "No widget" })) : Effect.succeed({ id: params.id })))
  ]
  /** A protocol's renderer: `{ oops: code }` with the status. */
  const renderer: ErrorResponse.Renderer = {
    render: (problem) => HttpServerResponse.unsafeJson({ oops: problem.code }, { status: problem.status })
  }
  const options = { base: "/api/v1/widgets", renderer }

  it("serves a route at its path and under the stripped base, failures through the renderer", async () => {
    const web = await serveWeb(list, options)
    const node = await serveNode(list, options)
    try {
      for (const path of ["/api/v1/widgets/w1", "/w1", "/missing", "/api/v1/widgets/missing", "/nope"]) {
        const init = { headers: { "x-request-id": "req-2" } }
        const [byWeb, byNode] = await Promise.all([web.fetch(path, init), fetch(`${node.url}${path}`, init)])
        expect(await seenOf(byNode)).toEqual(await seenOf(byWeb))
      }
      expect(await (await fetch(`${node.url}/w1`)).json()).toEqual({ id: "w1" })
      expect(await (await fetch(`${node.url}/missing`)).json()).toEqual({ oops: "NOT_FOUND" })
    } finally {
      await node.close()
      await web.dispose()
    }
  })
})
