import { HttpServerResponse } from "@effect/platform"
import { type Configuration, ErrorResponse, loadConfig } from "@core/kernel"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Upstream } from "../src/index.js"
import * as HostCheck from "../src/HostCheck.js"
import * as Transport from "./Transport.js"

/**
 * Decisions 0605 and 0607 on both transports: every 401 with its challenge (`/mcp`'s naming its
 * resource metadata), the gateway's refusals in the protocol of the path (`renderers`), and the
 * DNS rebinding check of `/mcp`. The real vault and identity are driven in tests/standard-clients.test.ts.
 */
const STATIC_KEY = "challenge-static-key-0123456789abcdef"

const configOf = (env: Record<string, string>): Configuration =>
  loadConfig({ NODE_ENV: "test", CORE_SECRET: "s".repeat(40), ...env })

/** A renderer of another protocol: the error's code and message in a body of its own. */
const plainRenderer: ErrorResponse.Renderer = {
  render: (problem) => HttpServerResponse.unsafeJson({ refused: problem.code, message: problem.message }, { status: problem.status, headers: problem.headers })
}

const gatewayOf = (config: Configuration) => {
  const upstreams = Effect.runSync(Effect.all([
    Upstream.fromHttpApp("VAULT", Effect.succeed(HttpServerResponse.unsafeJson({ reached: "vault" }))),
    Upstream.fromHttpApp("REGISTRY", Effect.succeed(HttpServerResponse.unsafeJson({ error: "nope" }, { status: 401 })))
  ]))
  return Transport.handlerOf(Transport.ofAssembled({ config, upstreams, renderers: [{ prefix: "/mcp", renderer: plainRenderer }] }))
}

const secured = gatewayOf(configOf({ CORE_STATIC_API_KEY: STATIC_KEY }))
const published = gatewayOf(configOf({ CORE_STATIC_API_KEY: STATIC_KEY, CORE_PUBLIC_URL: "https://core.example.com" }))

const post = (handler: (request: Request) => Promise<Response>, url: string, headers: Record<string, string> = {}) =>
  handler(new Request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" }))

describe("the gateway's 401s and refusals", () => {
  it("a refused /mcp request is rendered by /mcp's renderer, its 401 naming the resource metadata at the request's root", async () => {
    const refused = await post(secured, "http://localhost/mcp")
    expect(refused.status).toBe(401)
    expect(refused.headers.get("www-authenticate")).toBe(
      'Bearer realm="core", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"'
    )
    expect(await refused.json()).toEqual({ refused: "UNAUTHORIZED", message: expect.stringMatching(/^Authentication required/) })
  })

  it("CORE_PUBLIC_URL, when set, is the root the challenge names", async () => {
    const refused = await post(published, "http://localhost/mcp")
    expect(refused.headers.get("www-authenticate")).toBe(
      'Bearer realm="core", resource_metadata="https://core.example.com/.well-known/oauth-protected-resource/mcp"'
    )
  })

  it("other 401s, the gateway's or an upstream's without one, carry the bearer challenge; other paths keep the envelope", async () => {
    const gateway = await post(secured, "http://localhost/api/v1/platforms")
    expect(gateway.status).toBe(401)
    expect(gateway.headers.get("www-authenticate")).toBe('Bearer realm="core"')
    expect((await gateway.json()).error.code).toBe("UNAUTHORIZED")
    const upstream = await post(secured, "http://localhost/api/v1/platforms", { authorization: `Bearer ${STATIC_KEY}` })
    expect([upstream.status, upstream.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="core"'])
  })

  it("/mcp refuses another site's Host (403, in its protocol), and takes this server's names", async () => {
    const key = { authorization: `Bearer ${STATIC_KEY}` }
    const evil = await post(secured, "http://evil.example.com/mcp", key)
    expect(evil.status).toBe(403)
    expect(await evil.json()).toEqual({ refused: "FORBIDDEN", message: expect.stringMatching(/DNS rebinding protection/) })
    for (const url of ["http://localhost:8787/mcp", "http://127.0.0.1/mcp", "http://[::1]:1/mcp"]) {
      expect((await post(secured, url, key)).status, url).toBe(200)
    }
    expect((await post(published, "http://core.example.com/mcp", key)).status).toBe(200)
  })
})

describe("HostCheck.policy", () => {
  it("takes the public host and loopback names at any port, the forwarded host only behind a trusted proxy", () => {
    const check = HostCheck.policy({ publicUrl: "https://core.example.com", trustProxy: false })
    expect(check({ headers: { host: "core.example.com:443" } })).toBeUndefined()
    expect(check({ headers: { host: "LOCALHOST:8787" } })).toBeUndefined()
    expect(check({ headers: {} })).toBeUndefined()
    expect(check({ headers: { host: "core.example.com.evil.example" } })).toMatch(/DNS rebinding/)
    expect(check({ headers: { host: "localhost", "x-forwarded-host": "evil.example.com" } })).toBeUndefined()
    const proxied = HostCheck.policy({ publicUrl: "https://core.example.com", trustProxy: true })
    expect(proxied({ headers: { host: "10.0.0.5:8787", "x-forwarded-host": "core.example.com" } })).toBeUndefined()
    expect(proxied({ headers: { host: "localhost", "x-forwarded-host": "evil.example.com" } })).toMatch(/DNS rebinding/)
  })
})
