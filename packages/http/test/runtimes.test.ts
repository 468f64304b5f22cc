import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Running, runtimes } from "./runtimes.js"

const MiB = 1024 * 1024

const chunkedBody = (chunks: number, size: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < chunks; i++) controller.enqueue(new Uint8Array(size).fill(0x20))
      controller.close()
    }
  })

const call = async (url: string, init?: RequestInit & { duplex?: "half" }) => {
  const response = await fetch(url, init)
  const text = await response.text()
  const json = response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined
  return { status: response.status, headers: response.headers, text, json }
}

const postJson = (url: string, body: BodyInit, extra: Record<string, string> = {}) =>
  call(url, { method: "POST", body, headers: { "content-type": "application/json", "x-request-id": "req-1", ...extra }, duplex: "half" })

const envelope = (code: string, message: string, details: unknown = null, requestId = "req-1") =>
  ({ error: { code, message, requestId, details } })

describe.each(Object.keys(runtimes))("%s", (name) => {
  let server: Running
  beforeAll(async () => {
    server = await runtimes[name]()
  })
  afterAll(() => server.close())

  it("answers 200 JSON with the mount prefix stripped and the query string kept", async () => {
    const res = await call(`${server.base}/hello?tag=a&tag=b&q=x%20y`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/json")
    expect(res.json).toEqual({ hello: "world", path: "/hello", query: { tag: ["a", "b"], q: "x y" } })
  })

  it("parses a JSON body with its contract", async () => {
    const res = await postJson(`${server.base}/echo`, JSON.stringify({ message: "hi", count: 2 }), { "content-type": "application/json; charset=utf-8" })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ echo: { message: "hi", count: 2 } })
  })

  it("answers 400 VALIDATION_ERROR with the issues", async () => {
    const res = await postJson(`${server.base}/echo`, JSON.stringify({ message: "", count: 11 }))
    expect(res.status).toBe(400)
    expect(res.json).toEqual(envelope("VALIDATION_ERROR", "Invalid request body", {
      issues: [
        { path: "message", message: "Too small: expected string to have >=1 characters" },
        { path: "count", message: "Too big: expected number to be <=10" }
      ]
    }))
  })

  it("answers 400 INVALID_JSON for a malformed body", async () => {
    const res = await postJson(`${server.base}/echo`, "{\"message\": ")
    expect(res.status).toBe(400)
    expect(res.json).toEqual(envelope("INVALID_JSON", "The request body is not valid JSON"))
  })

  it("answers 415 for another content type", async () => {
    const res = await postJson(`${server.base}/echo`, "message=hi", { "content-type": "application/x-www-form-urlencoded" })
    expect(res.status).toBe(415)
    expect(res.json).toEqual(envelope("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json"))
  })

  it("answers 413 for a body over the limit announced by Content-Length", async () => {
    const res = await postJson(`${server.base}/echo`, new Uint8Array(2 * MiB).fill(0x20))
    expect(res.status).toBe(413)
    expect(res.json).toEqual(envelope("PAYLOAD_TOO_LARGE", "The request body exceeds the limit of 1048576 bytes", { limit: MiB }))
  })

  it("answers 413 for a streamed body without Content-Length, counted while read", async () => {
    const res = await postJson(`${server.base}/echo`, chunkedBody(64, 64 * 1024))
    expect(res.status).toBe(413)
    expect(res.json).toEqual(envelope("PAYLOAD_TOO_LARGE", "The request body exceeds the limit of 1048576 bytes", { limit: MiB }))
    const after = await call(`${server.base}/hello`)
    expect(after.status).toBe(200)
  })

  it("takes a larger per-route limit for a streamed upload", async () => {
    const res = await call(`${server.base}/upload`, { method: "POST", body: chunkedBody(48, 64 * 1024), duplex: "half" })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ size: 3 * MiB })
  })

  it("streams a large response back whole", async () => {
    const res = await fetch(`${server.base}/big`)
    const body = new Uint8Array(await res.arrayBuffer())
    expect(res.status).toBe(200)
    expect(body.byteLength).toBe(8 * MiB)
    expect([body[0], body[64 * 1024], body[8 * MiB - 1]]).toEqual([0, 1, 127])
  })

  it("keeps serving after a client leaves in the middle of a response", async () => {
    const abort = new AbortController()
    const res = await fetch(`${server.base}/big`, { signal: abort.signal })
    const reader = res.body!.getReader()
    await reader.read()
    abort.abort()
    await expect(reader.read()).rejects.toThrow()
    const after = await call(`${server.base}/hello`)
    expect(after.status).toBe(200)
  })

  it("answers 404 NOT_FOUND for a tagged NotFound and for an unknown route", async () => {
    const thing = await call(`${server.base}/missing-thing`, { headers: { "x-request-id": "req-1" } })
    expect(thing.status).toBe(404)
    expect(thing.json).toEqual(envelope("NOT_FOUND", "Thing not found"))
    const route = await call(`${server.base}/no-such-route`, { headers: { "x-request-id": "req-1" } })
    expect(route.status).toBe(404)
    expect(route.json).toEqual(envelope("NOT_FOUND", "Route not found"))
  })

  it("answers 500 INTERNAL_ERROR for a defect, without a stack trace", async () => {
    const res = await call(`${server.base}/boom`, { headers: { "x-request-id": "req-1" } })
    expect(res.status).toBe(500)
    expect(res.headers.get("x-request-id")).toBe("req-1")
    expect(res.json).toEqual(envelope("INTERNAL_ERROR", "An internal error occurred"))
    expect(res.text).not.toMatch(/kaboom|line 42|at .*\.ts/)
  })

  it("leaves the host app's own routes alone", async () => {
    if (server.hostRoute === undefined) return
    const res = await call(server.hostRoute)
    expect([res.status, res.text]).toEqual([200, "host route"])
  })
})
