import { afterEach, describe, expect, it } from "vitest"
import {
  CoreAbortError,
  CoreConnectionError,
  CoreTimeoutError,
  InternalServerError,
  RateLimitError,
  createClient
} from "../src/index.js"
import { backoffDelay, defaultRetryPolicy, parseRetryAfter, resolveRetryPolicy } from "../src/retry.js"
import { envelope, refusedUrl, startScriptServer, type Reply, type ScriptServer } from "./script-server.js"

let server: ScriptServer | undefined
afterEach(async () => server?.close())

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const ok: Reply = { status: 200, body: { ok: true } }
const unavailable: Reply = { status: 503, body: envelope("UPSTREAM_UNAVAILABLE", "down", "req_503") }
const fast = { limit: 2, baseDelayMs: 20, maxDelayMs: 50 }

const countingFetch = () => {
  const calls = { count: 0 }
  const fetch: typeof globalThis.fetch = (input, init) => {
    calls.count++
    return globalThis.fetch(input, init)
  }
  return { calls, fetch }
}

describe("retries", () => {
  it("retries a 429 after the Retry-After seconds", async () => {
    server = await startScriptServer([{ status: 429, headers: { "retry-after": "1" }, body: envelope("RATE_LIMITED", "Slow down", "r") }, ok])
    const started = Date.now()
    const result = await createClient({ baseUrl: server.url }).request("GET", "/things")
    expect(result).toEqual({ ok: true })
    expect(server.requests).toHaveLength(2)
    const waited = server.requests[1].at - server.requests[0].at
    expect(waited).toBeGreaterThanOrEqual(950)
    expect(waited).toBeLessThan(1800)
    expect(Date.now() - started).toBeLessThan(2500)
  })

  it("retries 503 with backoff up to the limit, then throws the last answer", async () => {
    server = await startScriptServer([unavailable, unavailable, unavailable, ok])
    const error = await createClient({ baseUrl: server.url, retry: fast }).request("GET", "/things").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error).toMatchObject({ status: 503, code: "UPSTREAM_UNAVAILABLE" })
    expect(server.requests).toHaveLength(3)
  })

  it("succeeds when a 503 clears before the limit", async () => {
    server = await startScriptServer([unavailable, unavailable, ok])
    await expect(createClient({ baseUrl: server.url, retry: fast }).request("DELETE", "/things/1")).resolves.toEqual({ ok: true })
    expect(server.requests.map((r) => r.method)).toEqual(["DELETE", "DELETE", "DELETE"])
  })

  it("does not retry 500", async () => {
    server = await startScriptServer([{ status: 500, body: envelope("INTERNAL_ERROR", "boom", "r") }, ok])
    await expect(createClient({ baseUrl: server.url, retry: fast }).request("GET", "/x")).rejects.toBeInstanceOf(InternalServerError)
    expect(server.requests).toHaveLength(1)
  })

  it("sends one Idempotency-Key on a POST and the same key on each retry", async () => {
    server = await startScriptServer([{ status: 429, headers: { "retry-after": "0" } }, unavailable, { status: 201, body: { id: "a" } }])
    const result = await createClient({ baseUrl: server.url, retry: fast }).request("POST", "/things", { body: { name: "a" } })
    expect(result).toEqual({ id: "a" })
    const keys = server.requests.map((r) => r.headers["idempotency-key"])
    expect(keys).toHaveLength(3)
    expect(keys[0]).toMatch(uuid)
    expect(new Set(keys).size).toBe(1)
    expect(server.requests.map((r) => r.body)).toEqual(Array(3).fill('{"name":"a"}'))
  })

  it("gives each POST its own key, and PATCH one too, but not GET, PUT or DELETE", async () => {
    server = await startScriptServer(() => ok)
    const client = createClient({ baseUrl: server.url })
    for (const method of ["POST", "POST", "PATCH", "GET", "PUT", "DELETE"] as const) await client.request(method, "/x")
    const [post1, post2, patch, ...rest] = server.requests.map((r) => r.headers["idempotency-key"])
    expect([post1, post2, patch].every((key) => uuid.test(String(key)))).toBe(true)
    expect(post1).not.toBe(post2)
    expect(rest).toEqual([undefined, undefined, undefined])
  })

  it("uses a caller's key as given", async () => {
    server = await startScriptServer([unavailable, ok])
    await createClient({ baseUrl: server.url, retry: fast }).request("POST", "/x", { idempotencyKey: "my-key" })
    expect(server.requests.map((r) => r.headers["idempotency-key"])).toEqual(["my-key", "my-key"])
  })

  it("takes a key given as a header, sending it once", async () => {
    server = await startScriptServer([unavailable, ok])
    await createClient({ baseUrl: server.url, retry: fast }).request("POST", "/x", { headers: { "Idempotency-Key": "hdr-key" } })
    expect(server.requests.map((r) => r.headers["idempotency-key"])).toEqual(["hdr-key", "hdr-key"])
  })

  it("never retries a POST without an idempotency key", async () => {
    server = await startScriptServer([unavailable, ok])
    const client = createClient({ baseUrl: server.url, retry: fast })
    await expect(client.request("POST", "/x", { idempotencyKey: false })).rejects.toMatchObject({ status: 503 })
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].headers["idempotency-key"]).toBeUndefined()
  })

  it("sends no automatic key when idempotencyKeys is off", async () => {
    server = await startScriptServer([unavailable, ok])
    const client = createClient({ baseUrl: server.url, retry: fast, idempotencyKeys: false })
    await expect(client.request("POST", "/x")).rejects.toMatchObject({ status: 503 })
    expect(server.requests).toHaveLength(1)
  })

  it("throws at once when Retry-After is longer than maxRetryAfterMs", async () => {
    server = await startScriptServer([{ status: 429, headers: { "retry-after": "120" }, body: envelope("RATE_LIMITED", "later", "r") }, ok])
    const started = Date.now()
    const error = await createClient({ baseUrl: server.url }).request("GET", "/x").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).retryAfterMs).toBe(120_000)
    expect(server.requests).toHaveLength(1)
    expect(Date.now() - started).toBeLessThan(1000)
  })
})

describe("connection failures, timeouts and aborts", () => {
  it("turns a refused connection into CoreConnectionError after retrying a GET", async () => {
    const { calls, fetch } = countingFetch()
    const error = await createClient({ baseUrl: await refusedUrl(), fetch, retry: fast }).request("GET", "/x").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CoreConnectionError)
    expect((error as Error).message).toMatch(/ECONNREFUSED/)
    expect(calls.count).toBe(3)
  })

  it("does not retry a POST whose connection failed", async () => {
    const { calls, fetch } = countingFetch()
    const error = await createClient({ baseUrl: await refusedUrl(), fetch, retry: fast }).request("POST", "/x").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CoreConnectionError)
    expect(calls.count).toBe(1)
  })

  it("turns a connection lost while reading the body into CoreConnectionError", async () => {
    const { createServer } = await import("node:http")
    const dropping = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
      res.write('{"partial":')
      setTimeout(() => res.destroy(), 50)
    })
    await new Promise<void>((resolve) => dropping.listen(0, "127.0.0.1", resolve))
    const { port } = dropping.address() as import("node:net").AddressInfo
    const error = await createClient({ baseUrl: `http://127.0.0.1:${port}` }).request("GET", "/x").catch((e: unknown) => e)
    dropping.close()
    expect(error).toBeInstanceOf(CoreConnectionError)
  })

  it("fails with CoreTimeoutError when an attempt is too slow, without retrying", async () => {
    server = await startScriptServer([{ ...ok, delayMs: 3000 }, ok])
    const started = Date.now()
    const error = await createClient({ baseUrl: server.url, timeout: 200 }).request("GET", "/slow").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CoreTimeoutError)
    expect(error).toMatchObject({ timeoutMs: 200, message: "Request timed out after 200 ms" })
    expect(Date.now() - started).toBeLessThan(1500)
    expect(server.requests).toHaveLength(1)
  })

  it("takes a per-request timeout over the client's", async () => {
    server = await startScriptServer([{ ...ok, delayMs: 3000 }])
    const client = createClient({ baseUrl: server.url, timeout: 10_000 })
    await expect(client.request("GET", "/slow", { timeout: 100 })).rejects.toBeInstanceOf(CoreTimeoutError)
  })

  it("fails with CoreAbortError when the signal aborts a request in flight", async () => {
    server = await startScriptServer([{ ...ok, delayMs: 3000 }])
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error("user left")), 100)
    const started = Date.now()
    const error = await createClient({ baseUrl: server.url }).request("GET", "/slow", { signal: controller.signal }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CoreAbortError)
    expect((error as CoreAbortError).cause).toEqual(new Error("user left"))
    expect(Date.now() - started).toBeLessThan(1500)
  })

  it("stops waiting for a retry when the signal aborts", async () => {
    server = await startScriptServer([{ status: 429, headers: { "retry-after": "30" } }, ok])
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const started = Date.now()
    await expect(createClient({ baseUrl: server.url }).request("GET", "/x", { signal: controller.signal })).rejects.toBeInstanceOf(CoreAbortError)
    expect(Date.now() - started).toBeLessThan(1500)
    expect(server.requests).toHaveLength(1)
  })

  it("sends nothing when the signal has already aborted", async () => {
    server = await startScriptServer([ok])
    const signal = AbortSignal.abort()
    await expect(createClient({ baseUrl: server.url }).request("GET", "/x", { signal })).rejects.toBeInstanceOf(CoreAbortError)
    expect(server.requests).toHaveLength(0)
  })
})

describe("retry policy", () => {
  it("parses Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z")
    expect(parseRetryAfter("1", now)).toBe(1000)
    expect(parseRetryAfter(" 2.5 ", now)).toBe(2500)
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:03 GMT", now)).toBe(3000)
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:59:00 GMT", now)).toBe(0)
    expect(parseRetryAfter("soon", now)).toBeNull()
    expect(parseRetryAfter("", now)).toBeNull()
    expect(parseRetryAfter(null, now)).toBeNull()
  })

  it("backs off exponentially, capped, jittered down by at most 25 %", () => {
    const policy = resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 350 })
    expect([1, 2, 3, 4].map((retry) => backoffDelay(retry, policy, () => 0))).toEqual([100, 200, 350, 350])
    expect(backoffDelay(2, policy, () => 0.999)).toBe(150)
  })

  it("takes a number as the limit and keeps the other defaults", () => {
    expect(resolveRetryPolicy(5)).toEqual({ ...defaultRetryPolicy, limit: 5 })
    expect(resolveRetryPolicy({ limit: undefined, maxDelayMs: 1 })).toEqual({ ...defaultRetryPolicy, maxDelayMs: 1 })
  })
})
