import { execFile } from "node:child_process"
import * as http from "node:http"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import * as oauth from "openid-client"
import { describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"

/**
 * Standard clients against the real all-in-one server, as they are used: OAuth
 * discovery from the issuer URL alone (`openid-client`, RFC 8414 path insertion) and the device
 * grant with what it discovered; every 401 with its challenge (RFC 7235), `/mcp`'s in JSON-RPC and
 * naming its protected resource metadata (RFC 9728), which the official MCP client finds; the MCP
 * transport's rules (DNS rebinding, batches, a second initialize, tool arguments); the device
 * approval's cross-site refusal in OAuth's words. With the static key, and with the development
 * bypass.
 */
const SLOW = 180_000
const STATIC_KEY = "standard-clients-static-key-0123456789"
const VAULT = fileURLToPath(new URL("../packages/vault/test/fixtures/vault", import.meta.url))
const ROOT = fileURLToPath(new URL("..", import.meta.url))
const DISCOVERY = fileURLToPath(new URL("./fixtures/mcp-oauth-discovery.mjs", import.meta.url))
const MCP_CLIENT = fileURLToPath(new URL("../packages/vault/test/fixtures/mcp-client.mjs", import.meta.url))
const run = promisify(execFile)

const MCP_ACCEPT = "application/json, text/event-stream"
const rpc = (id: number, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

/** A raw request with any `Host` (fetch will not send another): status, headers and JSON body. */
const raw = (base: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const url = new URL(path, base)
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const request = http.request(url, {
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      headers: { ...(body === undefined ? {} : { "content-type": "application/json", accept: MCP_ACCEPT }), ...options.headers }
    }, (response) => {
      let text = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }))
    })
    request.on("error", reject)
    request.end(body)
  })

const signUp = async (base: string, email: string) => {
  const response = await fetch(`${base}/api/v1/iam/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Ada", email, password: "correct horse battery staple" })
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { token: string }).token
}

const challengeOf = (base: string) => `Bearer realm="core", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`

const AUTHENTICATION_REQUIRED = "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)"

/** The 401s every deployment answers, whichever way it authenticates. */
const everyFourOhOne = (server: { readonly base: string }) => {
  it("/mcp without credentials, or with bad ones: 401 as a JSON-RPC error, its challenge naming the resource metadata", async () => {
    for (const [headers, message] of [
      [{}, AUTHENTICATION_REQUIRED],
      [{ authorization: "Bearer not-a-session" }, "Invalid or expired session"],
      [{ "x-api-key": "core_not-a-key" }, "Invalid API key: expected x-api-key: core_<key>"]
    ] as const) {
      const answer = await raw(server.base, "/mcp", { headers, body: rpc(1, "ping") })
      expect(answer.status).toBe(401)
      expect(answer.headers["www-authenticate"]).toBe(challengeOf(server.base))
      expect(answer.body).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message, data: { code: "UNAUTHORIZED", requestId: answer.headers["x-request-id"] } }
      })
    }
  })

  it("the gateway's and the services' other 401s carry the bearer challenge", async () => {
    for (const [path, headers] of [
      ["/api/v1/platforms", {}],
      ["/api/v1/platforms", { authorization: "Bearer not-a-session" }],
      ["/api/v1/iam/api/core/session", {}],
      ["/api/v1/iam/api/core/session", { authorization: "Bearer not-a-session" }]
    ] as const) {
      const answer = await raw(server.base, path, { headers })
      expect(answer.status, path).toBe(401)
      expect(answer.headers["www-authenticate"], path).toBe('Bearer realm="core"')
      expect(answer.body.error.code, path).toBe("UNAUTHORIZED")
    }
    const token = await raw(server.base, "/api/v1/iam/oauth/device/code", { body: { client_id: "someone-else" } })
    expect(token.status).toBe(401)
    expect(token.body.error).toBe("invalid_client")
    expect(token.headers["www-authenticate"]).toBe('Bearer realm="core"')
  })
}

describe("with CORE_STATIC_API_KEY", () => {
  const server = useServer({ CORE_STATIC_API_KEY: STATIC_KEY, CORE_VAULT_DIR: VAULT }, SLOW)
  const key = { authorization: `Bearer ${STATIC_KEY}` }

  everyFourOhOne(server)

  it("openid-client discovers the metadata from the issuer URL alone (RFC 8414 path insertion) and runs the device grant with it", async () => {
    const issuer = new URL(`${server.base}/api/v1/iam`)
    const root = await raw(server.base, "/.well-known/oauth-authorization-server/api/v1/iam")
    expect(root.status).toBe(200)
    expect(root.headers["cache-control"]).toBe("no-store")
    const config = await oauth.discovery(issuer, "core-cli", undefined, oauth.None(), {
      execute: [oauth.allowInsecureRequests],
      algorithm: "oauth2"
    })
    expect(config.serverMetadata()).toEqual({
      issuer: issuer.href,
      token_endpoint: `${issuer.href}/oauth/token`,
      device_authorization_endpoint: `${issuer.href}/oauth/device/code`,
      grant_types_supported: ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ["none"]
    })

    const device = await oauth.initiateDeviceAuthorization(config, {})
    expect(device.verification_uri).toBe(`${issuer.href}/device`)
    const session = await signUp(server.base, "discovery@example.com")
    const approval = await raw(server.base, "/api/v1/iam/oauth/device/authorize", {
      headers: { authorization: `Bearer ${session}` },
      body: { user_code: device.user_code }
    })
    expect(approval).toMatchObject({ status: 200, body: { ok: true } })
    const tokens = await oauth.pollDeviceAuthorizationGrant(config, device)
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, refresh_token: expect.any(String) })

    // The device's access token opens /mcp to the official MCP client.
    const { stdout } = await run(process.execPath, [MCP_CLIENT, server.base, tokens.access_token], { cwd: ROOT })
    expect(JSON.parse(stdout).ping).toEqual({})
  }, 60_000)

  it("the official MCP client follows /mcp's challenge to its protected resource metadata, which names the identity issuer", async () => {
    const { stdout } = await run(process.execPath, [DISCOVERY, server.base], { cwd: ROOT })
    const seen = JSON.parse(stdout)
    expect(seen.refused.status).toBe(401)
    expect(seen.resourceMetadataUrl).toBe(`${server.base}/.well-known/oauth-protected-resource/mcp`)
    expect(seen.resourceMetadata).toEqual({
      resource: `${server.base}/mcp`,
      authorization_servers: [`${server.base}/api/v1/iam`],
      bearer_methods_supported: ["header"],
      resource_name: "Core architecture vault (MCP)"
    })
    // Its own sign-in is the authorization code grant, which Core does not offer (decision 0606):
    // it reaches the issuer's metadata and stops at the missing authorization_endpoint.
    expect(seen.authorizationServer).toEqual({ error: "invalid metadata: authorization_endpoint" })
    expect(seen.connected).toBe("invalid metadata: authorization_endpoint")
    const metadata = await raw(server.base, "/.well-known/oauth-protected-resource/mcp")
    expect(metadata.status).toBe(200)
  }, 60_000)

  it("/mcp refuses another site's Host or Origin (DNS rebinding) with 403; this server's names and loopback pass", async () => {
    for (const headers of [{ host: "evil.example.com", origin: "http://evil.example.com" }, { host: "evil.example.com:80" }] as Array<Record<string, string>>) {
      const answer = await raw(server.base, "/mcp", { headers: { ...key, ...headers }, body: rpc(1, "ping") })
      expect(answer.status, JSON.stringify(headers)).toBe(403)
      expect(answer.body.error).toEqual({
        code: -32000,
        message: `Host ${JSON.stringify(headers.host)} is not this server's name (DNS rebinding protection): use the address in CORE_PUBLIC_URL or localhost`,
        data: { code: "FORBIDDEN", requestId: answer.headers["x-request-id"] }
      })
    }
    // Another site's Origin with this server's Host: refused by CORS, in JSON-RPC too.
    const cors = await raw(server.base, "/mcp", { headers: { ...key, origin: "http://evil.example.com" }, body: rpc(1, "ping") })
    expect(cors.status).toBe(403)
    expect(cors.body.error).toMatchObject({ code: -32000, message: "Origin http://evil.example.com is not allowed", data: { code: "FORBIDDEN" } })
    const port = new URL(server.base).port
    for (const headers of [
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      { host: `127.0.0.1:${port}` },
      { host: `[::1]:${port}` }
    ] as Array<Record<string, string>>) {
      const answer = await raw(server.base, "/mcp", { headers: { ...key, ...headers }, body: rpc(1, "ping") })
      expect(answer.status, JSON.stringify(headers)).toBe(200)
    }
  })

  const initialize = async (protocolVersion: string) => {
    const answer = await raw(server.base, "/mcp", {
      headers: key,
      body: rpc(1, "initialize", { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } })
    })
    expect(answer.status).toBe(200)
    return String(answer.headers["mcp-session-id"])
  }

  it("a batch on a 2025-06-18 session is refused (batching was removed); a 2025-03-26 session still takes one", async () => {
    const modern = await initialize("2025-06-18")
    const refused = await raw(server.base, "/mcp", {
      headers: { ...key, "mcp-session-id": modern, "mcp-protocol-version": "2025-06-18" },
      body: [rpc(2, "ping"), rpc(3, "ping")]
    })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request: protocol version 2025-06-18 has no JSON-RPC batches; send one message per request" }
    })
    const older = await initialize("2025-03-26")
    const batch = await raw(server.base, "/mcp", { headers: { ...key, "mcp-session-id": older }, body: [rpc(2, "ping"), rpc(3, "ping")] })
    expect(batch.status).toBe(200)
    expect(batch.body).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }, { jsonrpc: "2.0", id: 3, result: {} }])
  })

  it("a second initialize on a live session answers 400, as the SDK's servers do", async () => {
    const session = await initialize("2025-11-25")
    const again = await raw(server.base, "/mcp", {
      headers: { ...key, "mcp-session-id": session },
      body: rpc(2, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } })
    })
    expect(again.status).toBe(400)
    expect(again.body.error).toEqual({ code: -32600, message: "Invalid Request: Server already initialized" })
    const ping = await raw(server.base, "/mcp", { headers: { ...key, "mcp-session-id": session }, body: rpc(3, "ping") })
    expect(ping.status).toBe(200)
  })

  it("tool arguments: a string is no integer; a wrong type is reported once", async () => {
    const call = async (name: string, args: unknown) =>
      (await raw(server.base, "/mcp", { headers: key, body: rpc(1, "tools/call", { name, arguments: args }) })).body.result
    expect(await call("get_adr", { number: "400" })).toEqual({
      content: [{ type: "text", text: "Invalid arguments for get_adr: number: Invalid input: expected number, received string" }],
      isError: true
    })
    expect(await call("get_related_docs", { path: [] })).toEqual({
      content: [{ type: "text", text: "Invalid arguments for get_related_docs: path: Invalid input: expected string, received array" }],
      isError: true
    })
  })

  it("a device approval carried by the cookie from another site answers the documented 403 invalid_request", async () => {
    const session = await signUp(server.base, "cross-site@example.com")
    const code = await raw(server.base, "/api/v1/iam/oauth/device/code", { body: { client_id: "core-cli" } })
    for (const headers of [{ origin: "https://evil.example.com" }, { "sec-fetch-site": "cross-site" }] as Array<Record<string, string>>) {
      for (const path of ["/api/v1/iam/oauth/device/authorize", "/api/v1/iam/oauth/device/deny"]) {
        const answer = await raw(server.base, path, {
          headers: { cookie: `core.session_token=${session}`, ...headers },
          body: { user_code: code.body.user_code }
        })
        expect(answer.status, path).toBe(403)
        expect(answer.body, path).toEqual({
          error: "invalid_request",
          error_description: headers.origin === undefined ? "Cross-site request refused" : "Origin https://evil.example.com is not allowed"
        })
      }
    }
    // The same page's own approval still works.
    const same = await raw(server.base, "/api/v1/iam/oauth/device/authorize", {
      headers: { cookie: `core.session_token=${session}`, origin: server.base },
      body: { user_code: code.body.user_code }
    })
    expect(same).toMatchObject({ status: 200, body: { ok: true } })
  })
})

describe("with the development bypass (no CORE_STATIC_API_KEY)", () => {
  const server = useServer({ CORE_VAULT_DIR: VAULT }, SLOW)
  everyFourOhOne(server)

  it("serves both well-known documents at the root without credentials", async () => {
    const metadata = await raw(server.base, "/.well-known/oauth-authorization-server/api/v1/iam")
    expect(metadata).toMatchObject({ status: 200, body: { issuer: `${server.base}/api/v1/iam` } })
    const resource = await raw(server.base, "/.well-known/oauth-protected-resource/mcp")
    expect(resource).toMatchObject({ status: 200, body: { resource: `${server.base}/mcp` } })
  })
})
