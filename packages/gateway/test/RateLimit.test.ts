import { HttpServerResponse } from "@effect/platform"
import { buildPath, Iam, pathParamNames, type RouteSpec } from "@core/contracts"
import { NodeHttpServer } from "@effect/platform-node"
import { type Duration, Effect, Exit, Layer, Logger, ManagedRuntime, Scope, TestClock, TestContext } from "effect"
import { Redis } from "ioredis"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import * as Net from "node:net"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { Gateway, type Middleware, OpenApiDocument, Routes, Upstream } from "../src/index.js"
import * as RateLimit from "../src/RateLimit.js"
import * as Transport from "./Transport.js"

const upstreams = Effect.runSync(
  Effect.all(Routes.SERVICES.map((service) => Upstream.fromHttpApp(service, Effect.succeed(HttpServerResponse.text(service)))))
)

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface LogLine {
  readonly level: string
  readonly message: string
}

/**
 * The gateway with the rate limiter, served by a real Node HTTP server on 127.0.0.1; with
 * `testClock` its requests read time from a `TestClock` that `advance` moves.
 */
const serve = async (
  rateLimiter: Middleware.Guard,
  { testClock = true, upstreams: replacing = [] }: { testClock?: boolean; upstreams?: ReadonlyArray<Upstream.Upstream> } = {}
) => {
  const logs: Array<LogLine> = []
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      logs.push({ level: logLevel.label, message: String(Array.isArray(message) ? message[0] : message) })
    })
  )
  const runtime = ManagedRuntime.make(testClock ? Layer.merge(TestContext.TestContext, logger) : logger)
  const options = { upstreams: [...upstreams, ...replacing], fallback: Effect.succeed(HttpServerResponse.text("ok")), guards: { rateLimiter } }
  const listener = Transport.TRANSPORT === "node" ? Gateway.listener(options) : NodeHttpServer.makeHandler(Gateway.make(options))
  const server = Http.createServer(await runtime.runPromise(listener))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  cleanups.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await runtime.dispose()
  })
  const port = (server.address() as Net.AddressInfo).port
  return {
    logs,
    advance: (duration: Duration.DurationInput) => runtime.runPromise(TestClock.adjust(duration)),
    send: (path: string, init: RequestInit = {}) => send(port, path, init)
  }
}

interface RequestInit {
  readonly method?: string
  readonly headers?: Record<string, string>
  /** The client's source address (any of 127.0.0.0/8 reaches the loopback server). */
  readonly from?: string
}

interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** One request on its own connection; an answer later than five seconds fails the test. */
const send = (port: number, path: string, init: RequestInit): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const request = Http.request(
      { host: "127.0.0.1", port, path, method: init.method ?? "GET", headers: init.headers, localAddress: init.from, agent: false, timeout: 5_000 },
      (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (body += chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      }
    )
    request.on("timeout", () => request.destroy(new Error(`no answer to ${path} within 5 s`)))
    request.on("error", reject)
    request.end()
  })

const statuses = async (count: number, request: () => Promise<Answer>): Promise<Array<number>> => {
  const result: Array<number> = []
  for (let i = 0; i < count; i++) result.push((await request()).status)
  return result
}

const limits = (answer: Answer) => [
  answer.headers["ratelimit-limit"],
  answer.headers["ratelimit-remaining"],
  answer.headers["ratelimit-reset"]
]

const times = <A>(count: number, value: A): Array<A> => Array.from({ length: count }, () => value)

describe("RateLimit in memory", () => {
  it("allows 600 requests a minute per key and answers the 601st with 429 RATE_LIMITED", async () => {
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore() }))
    const first = await gateway.send("/api/v1/platforms/plt_1")
    expect([first.status, first.body, ...limits(first)]).toEqual([200, "REGISTRY", "600", "599", "60"])
    expect(await statuses(598, () => gateway.send("/api/v1/platforms/plt_1?page=2"))).toEqual(times(598, 200))
    const last = await gateway.send("/api/v1/platforms/plt_1")
    expect([last.status, ...limits(last)]).toEqual([200, "600", "0", "60"])

    const refused = await gateway.send("/api/v1/platforms/plt_1", { headers: { "x-request-id": "r-601" } })
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.body)).toEqual({
      error: { code: "RATE_LIMITED", message: "Too many requests. Try again later.", requestId: "r-601", details: null }
    })
    expect({
      contentType: refused.headers["content-type"],
      retryAfter: refused.headers["retry-after"],
      limit: refused.headers["ratelimit-limit"],
      remaining: refused.headers["ratelimit-remaining"],
      reset: refused.headers["ratelimit-reset"],
      requestId: refused.headers["x-request-id"],
      nosniff: refused.headers["x-content-type-options"]
    }).toEqual({
      contentType: "application/json",
      retryAfter: "60",
      limit: "600",
      remaining: "0",
      reset: "60",
      requestId: "r-601",
      nosniff: "nosniff"
    })
  })

  it("keeps one counter per address and per path (the query and trailing slashes aside)", async () => {
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore(), rules: RateLimit.rulesFrom({ perMinute: 2 }) }))
    expect(await statuses(3, () => gateway.send("/api/v1/iam/a"))).toEqual([200, 200, 429])
    expect((await gateway.send("/api/v1/iam/a?x=1")).status).toBe(429)
    expect((await gateway.send("/api/v1/iam/a/")).status).toBe(429)
    expect((await gateway.send("/api/v1/iam//a")).status).toBe(429)
    const otherPath = await gateway.send("/api/v1/iam/b")
    expect([otherPath.status, ...limits(otherPath)]).toEqual([200, "2", "1", "60"])
    const otherAddress = await gateway.send("/api/v1/iam/a", { from: "127.0.0.2" })
    expect([otherAddress.status, ...limits(otherAddress)]).toEqual([200, "2", "1", "60"])
  })

  it("stops sign-up, sign-in, magic-link and password-reset requests at the 11th a minute", async () => {
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore() }))
    const paths = [
      "/api/v1/iam/api/auth/sign-up/email",
      "/api/v1/iam/api/auth/sign-in/email",
      "/api/v1/iam/api/auth/sign-in/magic-link",
      "/api/v1/iam/api/auth/request-password-reset",
      "/api/v1/iam/sign-in",
      "/sign-up"
    ]
    for (const path of paths) {
      const first = await gateway.send(path, { method: "POST" })
      expect([path, first.status, ...limits(first)]).toEqual([path, 200, "10", "9", "60"])
      expect(await statuses(10, () => gateway.send(path, { method: "POST" }))).toEqual([...times(9, 200), 429])
    }
    for (const spelling of ["/api/v1/iam/api/auth/sign-in/%65mail", "/api/v1/iam/api/auth//sign-in/email/"]) {
      expect([spelling, (await gateway.send(spelling, { method: "POST" })).status]).toEqual([spelling, 429])
    }
    const pageView = await gateway.send("/sign-up")
    expect([pageView.status, pageView.headers["ratelimit-limit"]]).toEqual([200, "600"])
  })

  const concrete = (path: string) => buildPath(path, Object.fromEntries(pathParamNames(path).map((name) => [name, `${name}-1`])))
  const identityRoutes = Object.values(Iam.IdentityRoutes) as ReadonlyArray<RouteSpec>
  const ofClass = (routes: ReadonlyArray<RouteSpec>, rateLimit: RouteSpec["rateLimit"]) =>
    routes.filter((route) => route.rateLimit === rateLimit)

  it("limits every credentials route of the identity catalogue to 10 a minute, at both addresses of the pages", async () => {
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore() }))
    const strict = [
      ...ofClass(identityRoutes, "credentials").map((route) => [route.method, `/api/v1/iam${concrete(route.path)}`] as const),
      ...ofClass(Object.values(Iam.WebRoutes), "credentials").map((route) => [route.method, route.path] as const)
    ]
    expect(strict.map(([method, path]) => `${method} ${path}`)).toEqual(expect.arrayContaining([
      "POST /api/v1/iam/api/auth/sign-up/email",
      "POST /api/v1/iam/api/auth/sign-in/email",
      "POST /api/v1/iam/api/auth/sign-in/magic-link",
      "POST /api/v1/iam/api/auth/request-password-reset",
      "POST /api/v1/iam/sign-in",
      "POST /sign-up"
    ]))
    for (const [method, path] of strict) {
      const first = await gateway.send(path, { method })
      expect([method, path, first.status, ...limits(first)]).toEqual([method, path, 200, "10", "9", "60"])
      expect([method, path, ...(await statuses(10, () => gateway.send(path, { method })))]).toEqual([method, path, ...times(9, 200), 429])
    }
    for (const [method, path] of [["POST", "/api/v1/iam/api/auth/forget-password"], ["GET", "/api/v1/iam/api/auth/sign-in/email"]]) {
      const answer = await gateway.send(path, { method })
      expect([method, path, answer.status, answer.headers["ratelimit-limit"]]).toEqual([method, path, 200, "600"])
    }
    const resetLink = await gateway.send("/api/v1/iam/api/auth/reset-password/rst_1")
    expect(limits(resetLink)).toEqual(["600", "599", "60"])
  })

  it("never counts the exempt routes of the identity and gateway catalogues", async () => {
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore(), rules: RateLimit.rulesFrom({ perMinute: 1, authPerMinute: 1 }) }))
    const exempt = [
      ...ofClass(identityRoutes, "exempt").map((route) => [route.method, `/api/v1/iam${concrete(route.path)}`] as const),
      ...ofClass(Object.values(OpenApiDocument.GatewayRoutes), "exempt").map((route) => [route.method, route.path] as const)
    ]
    expect(exempt.map(([method, path]) => `${method} ${path}`)).toEqual(expect.arrayContaining([
      "POST /api/v1/iam/oauth/device/token",
      "POST /api/v1/iam/oauth/token",
      "GET /health",
      "GET /ready",
      "GET /metrics"
    ]))
    for (const [method, path] of exempt) {
      const answers = await Promise.all(times(3, path).map((p) => gateway.send(p, { method })))
      expect([method, path, answers.map((answer) => [answer.status, answer.headers["ratelimit-limit"]])]).toEqual([method, path, times(3, [200, undefined])])
    }
  })

  it("counts a browser's preflights against the general limit, never the sign-in's", async () => {
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore() }))
    const path = "/api/v1/iam/api/auth/sign-in/email"
    const preflights = await statuses(12, () => gateway.send(path, { method: "OPTIONS" }))
    expect(preflights).toEqual(times(12, 200))
    const signIn = await gateway.send(path, { method: "POST" })
    expect([signIn.status, ...limits(signIn)]).toEqual([200, "10", "9", "60"])
  })

  it("leaves the token endpoints (governed by slow_down), /health, /ready and /metrics alone", async () => {
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore(), rules: RateLimit.rulesFrom({ perMinute: 1, authPerMinute: 1 }) }))
    for (const path of ["/api/v1/iam/oauth/device/token", "/api/v1/iam/oauth/token", "/health", "/ready", "/metrics"]) {
      const method = path.startsWith("/api") ? "POST" : "GET"
      const answers = await Promise.all(times(5, path).map((p) => gateway.send(p, { method })))
      expect(answers.map((answer) => [answer.status, answer.headers["ratelimit-limit"]])).toEqual(times(5, [200, undefined]))
    }
  })

  it("keys by the first X-Forwarded-For address only when the proxy is trusted", async () => {
    const rules = RateLimit.rulesFrom({ perMinute: 1 })
    const direct = await serve(RateLimit.middleware({ store: RateLimit.memoryStore(), rules }))
    const forwardedFor = (address: string) => ({ headers: { "x-forwarded-for": address } })
    expect((await direct.send("/api/v1/cli/x", forwardedFor("203.0.113.1"))).status).toBe(200)
    expect((await direct.send("/api/v1/cli/x", forwardedFor("203.0.113.2"))).status).toBe(429)

    const proxied = await serve(RateLimit.middleware({ store: RateLimit.memoryStore(), rules, trustProxy: true }))
    expect((await proxied.send("/api/v1/cli/x", forwardedFor(" 203.0.113.1 , 10.0.0.1"))).status).toBe(200)
    expect((await proxied.send("/api/v1/cli/x", forwardedFor("203.0.113.1:4711"))).status).toBe(429)
    expect((await proxied.send("/api/v1/cli/x", forwardedFor("203.0.113.2"))).status).toBe(200)
    expect((await proxied.send("/api/v1/cli/x", forwardedFor("[2001:DB8::1]:443"))).status).toBe(200)
    expect((await proxied.send("/api/v1/cli/x", forwardedFor("2001:db8::1"))).status).toBe(429)
    expect((await proxied.send("/api/v1/cli/x")).status).toBe(200)
    for (const invalid of ["not-an-address", "", `1.2.3.4${"5".repeat(300)}`, "::ffff:127.0.0.1:80"]) {
      expect([invalid, (await proxied.send("/api/v1/cli/x", forwardedFor(invalid))).status]).toEqual([invalid, 429])
    }
  })

  it("keeps an upstream's own RateLimit headers", async () => {
    const ownLimit = Effect.runSync(Upstream.fromHttpApp("IAM", Effect.succeed(HttpServerResponse.text("slow down", {
      status: 429,
      headers: { "retry-after": "900", "ratelimit-limit": "5", "ratelimit-remaining": "0", "ratelimit-reset": "900" }
    }))))
    const gateway = await serve(RateLimit.middleware({ store: RateLimit.memoryStore() }), { upstreams: [ownLimit] })
    const answer = await gateway.send("/api/v1/iam/api/auth/sign-in/email", { method: "POST" })
    expect([answer.status, answer.headers["retry-after"], ...limits(answer)]).toEqual([429, "900", "5", "0", "900"])
  })

  it("starts a new window a minute after the first request, and counts down Retry-After", async () => {
    const rejected: Array<string> = []
    const gateway = await serve(
      RateLimit.middleware({ store: RateLimit.memoryStore(), rules: RateLimit.rulesFrom({ perMinute: 2 }), onRejected: () => rejected.push("x") })
    )
    expect(await statuses(3, () => gateway.send("/api/v1/stacks"))).toEqual([200, 200, 429])
    await gateway.advance("45 seconds")
    const stillRefused = await gateway.send("/api/v1/stacks")
    expect([stillRefused.status, stillRefused.headers["retry-after"], ...limits(stillRefused)]).toEqual([429, "15", "2", "0", "15"])
    await gateway.advance("15 seconds")
    const renewed = await gateway.send("/api/v1/stacks")
    expect([renewed.status, ...limits(renewed)]).toEqual([200, "2", "1", "60"])
    expect(rejected).toEqual(["x", "x"])
  })

  it("holds at most maxKeys counters, forgetting the oldest first", async () => {
    const store = RateLimit.memoryStore({ maxKeys: 2 })
    const limit = { limit: 1, windowMillis: 60_000 }
    const hit = (key: string) => Effect.runSync(Effect.map(store.hit(key, limit), (decision) => decision.allowed))
    expect([hit("a"), hit("a"), hit("b"), hit("c"), hit("b"), hit("a")]).toEqual([true, false, true, true, false, true])
  })

  it("refuses thresholds that are not positive whole numbers", () => {
    expect(() => RateLimit.rulesFrom({ perMinute: 0 })).toThrow("perMinute must be a whole number of at least 1, got 0")
    expect(() => RateLimit.rulesFrom({ authPerMinute: 1.5 })).toThrow("authPerMinute")
  })
})

const REDIS_URL = process.env.REDIS_URL

/** A TCP proxy in front of Redis that can be cut (closed, its sockets destroyed), stalled and restored. */
const redisProxy = async (target: URL) => {
  const sockets = new Set<Net.Socket>()
  let stalled = false
  const server = Net.createServer((client) => {
    const upstream = Net.connect(Number(target.port || 6379), target.hostname)
    for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
      sockets.add(from)
      from.on("data", (chunk) => stalled || to.write(chunk))
      from.on("close", () => to.destroy())
      from.on("error", () => to.destroy())
    }
  })
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  await listen(0)
  const port = (server.address() as Net.AddressInfo).port
  const url = new URL(target)
  url.host = `127.0.0.1:${port}`
  const cut = async () => {
    const closed = new Promise((resolve) => server.close(resolve))
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    await closed
  }
  cleanups.push(cut)
  return {
    url: url.toString(),
    cut,
    stall: () => void (stalled = true),
    restore: async () => {
      stalled = false
      if (!server.listening) await listen(port)
    }
  }
}

describe.skipIf(REDIS_URL === undefined)("RateLimit in Redis", () => {
  const url = REDIS_URL ?? ""
  const prefixes: Array<string> = []
  const admin = () => new Redis(url, { lazyConnect: true })

  afterAll(async () => {
    const client = admin()
    for (const prefix of prefixes) {
      const keys = await client.keys(`${prefix}*`)
      if (keys.length > 0) await client.del(...keys)
    }
    client.disconnect()
  })

  const newPrefix = () => {
    const prefix = `core:ratelimit:test-${randomUUID()}:`
    prefixes.push(prefix)
    return prefix
  }

  const store = async (storeUrl: string, options: RateLimit.RedisStoreOptions) => {
    const scope = Effect.runSync(Scope.make())
    cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
    return Effect.runPromise(Scope.extend(RateLimit.redisStoreFromUrl(storeUrl, options), scope))
  }

  const rules = RateLimit.rulesFrom({ perMinute: 3 })

  it("shares one sliding-window counter between two gateways", async () => {
    const prefix = newPrefix()
    const one = await serve(RateLimit.middleware({ store: await store(url, { prefix }), rules }), { testClock: false })
    const two = await serve(RateLimit.middleware({ store: await store(url, { prefix }), rules }), { testClock: false })
    const answers = [
      await one.send("/api/v1/billing/plans"),
      await two.send("/api/v1/billing/plans"),
      await one.send("/api/v1/billing/plans"),
      await two.send("/api/v1/billing/plans")
    ]
    expect(answers.map((answer) => [answer.status, answer.headers["ratelimit-limit"], answer.headers["ratelimit-remaining"]])).toEqual([
      [200, "3", "2"],
      [200, "3", "1"],
      [200, "3", "0"],
      [429, "3", "0"]
    ])
    const refused = answers[3]!
    expect(JSON.parse(refused.body).error.code).toBe("RATE_LIMITED")
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(80)
    expect(refused.headers["retry-after"]).toBe(refused.headers["ratelimit-reset"])
    const client = admin()
    const key = `${prefix}127.0.0.1:/api/v1/billing/plans`
    const [counter, ttl] = [await client.hget(key, "current"), await client.pttl(key)]
    client.disconnect()
    expect(counter).toBe("3")
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(120_000)
    expect([...one.logs, ...two.logs].filter((line) => line.message.startsWith("rate limiter"))).toEqual([])
  })

  it("weighs the previous window's count by the share of it still inside the sliding window", async () => {
    const prefix = newPrefix()
    const redisStore = await store(url, { prefix })
    const client = admin()
    const hour = { limit: 3, windowMillis: 3_600_000 }
    const [nowSeconds] = await client.time()
    const previousIndex = Math.floor(Number(nowSeconds) * 1000 / hour.windowMillis) - 1
    await client.hset(`${prefix}light`, { index: previousIndex, current: 1, previous: 0 })
    await client.hset(`${prefix}heavy`, { index: previousIndex, current: 1_000_000, previous: 0 })
    const light = await Effect.runPromise(redisStore.hit("light", hour))
    const heavy = await Effect.runPromise(redisStore.hit("heavy", hour))
    client.disconnect()
    expect([light.allowed, light.limit, light.remaining]).toEqual([true, 3, 1])
    expect([heavy.allowed, heavy.remaining]).toEqual([false, 0])
    expect(heavy.retryAfterSeconds).toBe(heavy.resetSeconds)
    expect(heavy.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(heavy.retryAfterSeconds).toBeLessThanOrEqual(3_600)
  })

  it.each(["cut off", "stalled"] as const)("keeps answering from memory while Redis is %s, and uses Redis again when it is back", async (failure) => {
    const prefix = newPrefix()
    const proxy = await redisProxy(new URL(url))
    const gateway = await serve(RateLimit.middleware({ store: await store(proxy.url, { prefix, retryMillis: 50 }), rules }), { testClock: false })
    const other = await serve(RateLimit.middleware({ store: await store(url, { prefix }), rules }), { testClock: false })
    expect(await statuses(4, () => gateway.send("/api/v1/iam/x"))).toEqual([200, 200, 200, 429])

    if (failure === "cut off") await proxy.cut()
    else proxy.stall()
    expect(await statuses(4, () => gateway.send("/api/v1/iam/x"))).toEqual([200, 200, 200, 429])
    expect(await statuses(4, () => gateway.send("/api/v1/iam/y"))).toEqual([200, 200, 200, 429])
    expect((await other.send("/api/v1/iam/y")).headers["ratelimit-remaining"]).toBe("2")

    await proxy.restore()
    const back = () => gateway.logs.some((line) => line.message === "rate limiter: Redis answers again")
    while (!back()) expect((await gateway.send("/api/v1/iam/probe")).status).not.toBe(500)
    await gateway.send("/api/v1/iam/z")
    await gateway.send("/api/v1/iam/z")
    expect((await other.send("/api/v1/iam/z")).headers["ratelimit-remaining"]).toBe("0")
    expect(gateway.logs.filter((line) => line.message.startsWith("rate limiter"))).toEqual([
      { level: "WARN", message: "rate limiter: Redis failed, counting in memory" },
      { level: "INFO", message: "rate limiter: Redis answers again" }
    ])
  })

  it("serves from memory when Redis never answers at start", async () => {
    const sockets = new Set<Net.Socket>()
    const silent = Net.createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    })
    const silentUrl = `redis://127.0.0.1:${(silent.address() as Net.AddressInfo).port}`
    const gateway = await serve(RateLimit.middleware({ store: await store(silentUrl, { prefix: newPrefix() }), rules }), { testClock: false })
    expect(await statuses(4, () => gateway.send("/api/v1/iam/x"))).toEqual([200, 200, 200, 429])
    expect(gateway.logs.filter((line) => line.message.startsWith("rate limiter"))).toEqual([
      { level: "WARN", message: "rate limiter: Redis failed, counting in memory" }
    ])
  })
})
