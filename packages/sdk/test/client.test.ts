import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { CoreResponseValidationError, createClient } from "../src/index.js"
import { startScriptServer, type ScriptServer } from "./script-server.js"

let server: ScriptServer | undefined
afterEach(async () => server?.close())

const echo = async () => (server = await startScriptServer(() => ({ status: 200, body: { ok: true } })))

describe("createClient", () => {
  it("sends a token as a bearer, and the client's and the request's headers", async () => {
    const { url, requests } = await echo()
    await createClient({ baseUrl: url, token: "ses_abc", headers: { "x-request-id": "req_1" } })
      .request("GET", "/me", { headers: { "x-trace": "t" } })
    expect(requests[0].headers).toMatchObject({
      authorization: "Bearer ses_abc",
      "x-request-id": "req_1",
      "x-trace": "t",
      accept: "application/json"
    })
    expect(requests[0].headers["x-api-key"]).toBeUndefined()
  })

  it("sends an API key as x-api-key", async () => {
    const { url, requests } = await echo()
    await createClient({ baseUrl: url, apiKey: "core_k" }).request("GET", "/me")
    expect(requests[0].headers["x-api-key"]).toBe("core_k")
    expect(requests[0].headers.authorization).toBeUndefined()
  })

  it("appends the path to a base URL that has a path, with or without a leading slash", async () => {
    const { url, requests } = await echo()
    const client = createClient({ baseUrl: `${url}/api/v1/iam` })
    await client.request("POST", "/oauth/device/code")
    await client.request("GET", "api/core/session")
    expect(requests.map((r) => r.url)).toEqual(["/api/v1/iam/oauth/device/code", "/api/v1/iam/api/core/session"])
  })

  it("encodes the query, repeating arrays and leaving out null and undefined", async () => {
    const { url, requests } = await echo()
    await createClient({ baseUrl: url }).request("GET", "/list", {
      query: { limit: 10, q: "a b&c", tag: ["x", "y"], active: true, cursor: null, status: undefined }
    })
    expect(requests[0].url).toBe("/list?limit=10&q=a+b%26c&tag=x&tag=y&active=true")
  })

  it("sends an object body as JSON and a string body as it is", async () => {
    const { url, requests } = await echo()
    const client = createClient({ baseUrl: url })
    await client.request("PUT", "/a", { body: { name: "n", n: 1 } })
    await client.request("POST", "/b", { body: "raw", headers: { "content-type": "text/plain" } })
    expect(requests[0]).toMatchObject({ body: '{"name":"n","n":1}', headers: { "content-type": "application/json" } })
    expect(requests[1]).toMatchObject({ body: "raw", headers: { "content-type": "text/plain" } })
  })

  it("returns undefined for 204 and text for a non-JSON body", async () => {
    server = await startScriptServer([{ status: 204 }, { status: 200, body: "plain" }])
    const client = createClient({ baseUrl: server.url })
    expect(await client.request("DELETE", "/a")).toBeUndefined()
    expect(await client.request("GET", "/b")).toBe("plain")
  })

  it("validates the response with a zod schema and types the result by it", async () => {
    server = await startScriptServer([
      { status: 200, body: { id: "plt_1", tier: "free" } },
      { status: 200, body: { id: 7 } }
    ])
    const client = createClient({ baseUrl: server.url })
    const Platform = z.object({ id: z.string(), tier: z.enum(["free", "starter"]) })
    const platform = await client.request("GET", "/p", { schema: Platform })
    const tier: "free" | "starter" = platform.tier
    expect(tier).toBe("free")
    const error = await client.request("GET", "/p", { schema: Platform }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CoreResponseValidationError)
    expect((error as CoreResponseValidationError).body).toEqual({ id: 7 })
    expect((error as CoreResponseValidationError).issues.map((issue) => issue.path)).toEqual([["id"], ["tier"]])
  })

  it("fails with CoreResponseValidationError when a JSON response is not JSON", async () => {
    server = await startScriptServer([{ status: 200, headers: { "content-type": "application/json" }, body: "{nope" }])
    await expect(createClient({ baseUrl: server.url }).request("GET", "/a")).rejects.toBeInstanceOf(CoreResponseValidationError)
  })

  it("reads /health as text", async () => {
    server = await startScriptServer([{ status: 200, headers: { "content-type": "application/json" }, body: '{"status":"ok"}' }])
    expect(await createClient({ baseUrl: server.url }).health()).toBe('{"status":"ok"}')
    expect(server.requests[0]).toMatchObject({ method: "GET", url: "/health" })
  })

  it("refuses a base URL that is not absolute, a token together with an API key, and a bad timeout", () => {
    expect(() => createClient({ baseUrl: "localhost:8787" })).toThrow(new TypeError('baseUrl must be an absolute http(s) URL, got "localhost:8787"'))
    expect(() => createClient({ baseUrl: "http://x", token: "t", apiKey: "core_k" })).toThrow(new TypeError("Give either token or apiKey, not both"))
    expect(() => createClient({ baseUrl: "http://x", timeout: 0 })).toThrow(new TypeError("timeout must be between 1 and 2147483647 ms, got 0"))
  })
})
