import { fileURLToPath } from "node:url"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import { createClient, VaultToolError } from "@core/sdk"
import { core, tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import { useServer } from "../packages/server/test/ServerProcess.js"

/**
 * The vault tool server at `/mcp` of the real all-in-one server (docs/vault-server.md), over the fixture vault:
 * the official MCP client (`@modelcontextprotocol/sdk`, Streamable HTTP) calling every tool and
 * reading a resource, then the transport's rules with raw requests.
 */
const SLOW = 180_000
const STATIC_KEY = "vault-static-key-0123456789abcdef"
const VAULT = fileURLToPath(new URL("../packages/vault/test/fixtures/vault", import.meta.url))
const CLIENT = fileURLToPath(new URL("../packages/vault/test/fixtures/mcp-client.mjs", import.meta.url))
const run = promisify(execFile)
const server = useServer({ CORE_STATIC_API_KEY: STATIC_KEY, CORE_VAULT_DIR: VAULT }, SLOW)

const auth = { authorization: `Bearer ${STATIC_KEY}` }
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
const rpc = (id: number, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

describe("the official MCP client", () => {
  // Run by plain Node: vitest would resolve the SDK's own dependencies to their TypeScript sources.
  let seen: any
  beforeAll(async () => {
    const { stdout } = await run(process.execPath, [CLIENT, server.base, STATIC_KEY], { cwd: fileURLToPath(new URL("..", import.meta.url)) })
    seen = JSON.parse(stdout)
  }, SLOW)

  const textOf = (name: string) => {
    const result = seen.calls[name]
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy()
    return result.content[0].text as string
  }

  it("negotiates the newest version, gets a session, and sees the tools and resources capabilities", () => {
    expect(seen.protocolVersion).toBe("2025-11-25")
    expect(seen.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(seen.server).toMatchObject({ name: "core-vault", version: expect.any(String) })
    expect(seen.capabilities).toMatchObject({ tools: {}, resources: {} })
  })

  it("lists the 11 tools with input schemas and pings", () => {
    expect(seen.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "search_docs", "read_doc", "read_section", "get_service_spec", "list_services", "get_adr",
      "list_adrs", "get_rules", "get_rules_by_tier", "get_cross_cutting", "get_related_docs"
    ])
    expect(seen.tools[0].inputSchema).toMatchObject({ type: "object", required: ["query"] })
    expect(seen.ping).toEqual({})
  })

  it("calls every tool", () => {
    const hits = JSON.parse(textOf("search_docs"))
    expect(hits[0]).toMatchObject({ path: "services/gateway", title: "Gateway", snippet: expect.stringContaining("**rate**"), score: expect.any(Number) })
    expect(textOf("read_doc")).toMatch(/^---\ntitle: Vault/)
    expect(textOf("read_section")).toMatch(/^## Routing/)
    expect(textOf("get_service_spec")).toMatch(/title: Gateway/)
    expect(JSON.parse(textOf("list_services")).map((s: { service: string }) => s.service)).toEqual(["command-line-backend", "gateway", "vault"])
    expect(JSON.parse(textOf("get_adr"))).toMatchObject({ number: 1, status: "accepted" })
    expect(JSON.parse(textOf("list_adrs")).map((a: { number: number }) => a.number)).toEqual([1])
    expect(JSON.parse(textOf("get_rules"))[0].path).toBe("rules/database-naming")
    expect(JSON.parse(textOf("get_rules_by_tier")).name).toBe("Foundation")
    expect(JSON.parse(textOf("get_cross_cutting")).length).toBe(2)
    expect(JSON.parse(textOf("get_related_docs")).outbound).toEqual([
      { path: "services/gateway", title: "Gateway", direction: "outbound", exists: true }
    ])
  })

  it("invalid arguments are a tool result with isError naming the argument; an unknown tool is -32602", () => {
    expect(seen.calls.search_docs_bad).toEqual({
      content: [{ type: "text", text: "Invalid arguments for search_docs: limit: Too big: expected number to be <=100" }],
      isError: true
    })
    expect(seen.unknownTool.error).toMatch(/-32602.*Unknown tool: no_such_tool/)
  })

  it("lists and reads the documents as vault:// resources", () => {
    expect(seen.resources).toHaveLength(12)
    expect(seen.resources.find((r: { name: string }) => r.name === "services/gateway")).toEqual({
      uri: "vault://services/gateway",
      name: "services/gateway",
      title: "Gateway",
      description: "The one public entrance; authenticates callers and routes to the services.",
      mimeType: "text/markdown"
    })
    expect(seen.read.contents).toEqual([{ uri: "vault://services/gateway", mimeType: "text/markdown", text: expect.stringMatching(/^---\ntitle: Gateway/) }])
    expect(seen.templates[0].uriTemplate).toBe("vault://{+path}")
    expect(seen.readMissing.error).toMatch(/-32002/)
  })
})

describe("the transport, raw", () => {
  it("initialize: 2025-03-26 when the request names none, the named version when served, else the newest; a session id", async () => {
    for (const [asked, answered] of [[undefined, "2025-03-26"], ["2025-06-18", "2025-06-18"], ["2025-11-25", "2025-11-25"], ["2024-01-01", "2025-11-25"]]) {
      const response = await post(rpc(1, "initialize", asked === undefined ? {} : { protocolVersion: asked, capabilities: {}, clientInfo: { name: "t", version: "1" } }))
      expect(response.status).toBe(200)
      expect(response.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/)
      expect((await response.json()).result.protocolVersion).toBe(answered)
    }
  })

  it("honours the session: unknown id 404; DELETE ends it (204), then 404; DELETE without one 400", async () => {
    const session = (await post(rpc(1, "initialize", {}))).headers.get("mcp-session-id")!
    expect((await post(rpc(2, "ping"), { "mcp-session-id": session })).status).toBe(200)
    const unknown = await post(rpc(3, "ping"), { "mcp-session-id": "00000000-0000-0000-0000-000000000000" })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error.code).toBe(-32001)
    const del = (headers: Record<string, string>) => fetch(`${server.base}/mcp`, { method: "DELETE", headers: { ...auth, ...headers } })
    expect((await del({ "mcp-session-id": session })).status).toBe(204)
    expect((await post(rpc(4, "ping"), { "mcp-session-id": session })).status).toBe(404)
    expect((await del({ "mcp-session-id": session })).status).toBe(404)
    expect((await del({})).status).toBe(400)
  })

  it("answers JSON, or Server-Sent Events when the client accepts only them; 406 for neither", async () => {
    const json = await post(rpc(1, "ping"), { accept: "application/json" })
    expect(json.headers.get("content-type")).toMatch(/^application\/json/)
    expect(await json.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} })
    const sse = await post(rpc(2, "ping"), { accept: "text/event-stream" })
    expect(sse.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(await sse.text()).toBe('event: message\ndata: {"jsonrpc":"2.0","id":2,"result":{}}\n\n')
    expect((await post(rpc(3, "ping"), { accept: "text/html" })).status).toBe(406)
  })

  it("notifications alone get 202; batches answer each request; errors -32601, -32602, -32600, -32700", async () => {
    const notified = await post({ jsonrpc: "2.0", method: "notifications/initialized" })
    expect(notified.status).toBe(202)
    expect(await notified.text()).toBe("")
    const batch = await post([rpc(1, "ping"), { jsonrpc: "2.0", method: "notifications/initialized" }, rpc(2, "nope/nope"), rpc(3, "tools/call", { name: "nope" }), { id: 4 }])
    expect(batch.status).toBe(200)
    expect(await batch.json()).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: nope/nope" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "Unknown tool: nope" } },
      { jsonrpc: "2.0", id: 4, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } }
    ])
    const missingName = await (await post(rpc(5, "tools/call", {}))).json()
    expect(missingName.error).toEqual({ code: -32602, message: "Invalid params: name must be a string" })
    const parse = await post("{not json")
    expect(parse.status).toBe(400)
    expect((await parse.json()).error.code).toBe(-32700)
    const invalid = await post({ jsonrpc: "1.0", id: 1, method: "ping" })
    expect(invalid.status).toBe(400)
    expect((await invalid.json()).error.code).toBe(-32600)
    expect((await post(rpc(6, "ping"), { "mcp-protocol-version": "1999-01-01" })).status).toBe(400)
    expect((await post(rpc(7, "ping"), { "mcp-protocol-version": "2025-06-18" })).status).toBe(200)
  })

  it("GET /mcp is 405 (no server-initiated stream); without credentials 401, a bad key 401", async () => {
    const get = await fetch(`${server.base}/mcp`, { headers: { ...auth, accept: "text/event-stream" } })
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST, DELETE")
    expect((await post(rpc(1, "ping"), { authorization: "" })).status).toBe(401)
    expect((await post(rpc(1, "ping"), { authorization: "Bearer wrong" })).status).toBe(401)
    expect((await post(rpc(1, "ping"), { authorization: "", "x-api-key": "core_nope" })).status).toBe(401)
  })
})

describe("client.vault and core vault", () => {
  it("client.vault: each method calls its tool; a tool's error throws VaultToolError with its text", async () => {
    const client = createClient({ baseUrl: server.base, token: STATIC_KEY })
    const hits = await client.vault.search("tenant", { category: "concepts", limit: 1 })
    expect(hits).toEqual([{ path: "concepts/tenants", title: "Tenants", snippet: expect.stringContaining("**tenant**"), score: expect.any(Number) }])
    expect(await client.vault.read("services/vault")).toMatch(/^---\ntitle: Vault/)
    expect(await client.vault.section("services/gateway", "rate")).toMatch(/^## Rate limiting/)
    expect(await client.vault.serviceSpec("vault")).toMatch(/title: Vault/)
    expect((await client.vault.services()).map((s) => s.service)).toEqual(["command-line-backend", "gateway", "vault"])
    expect(await client.vault.adr(2)).toMatchObject({ number: 2, status: "superseded" })
    expect((await client.vault.adrs({ status: "accepted" })).map((a) => a.number)).toEqual([1])
    expect((await client.vault.rules("backend")).map((r) => r.path)).toEqual(["rules/foundation-errors"])
    expect((await client.vault.rulesByTier(3)).rules.map((r) => r.path)).toEqual(["rules/database-naming"])
    expect(await client.vault.crossCutting("tenancy")).toMatch(/title: Tenancy/)
    expect(await client.vault.crossCutting()).toHaveLength(2)
    expect((await client.vault.related("concepts/tenants")).inbound.map((l) => l.path)).toEqual(["services/gateway"])
    const error = await client.vault.read("nope").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(VaultToolError)
    expect((error as VaultToolError).message).toMatch(/No document at path "nope"/)
    expect(await client.vault.callTool("get_adr", { number: 1 })).toMatchObject({ content: [{ type: "text" }] })
  })

  it("core vault search prints a ranked table or --json; core vault read prints the document; errors exit 1 or 2", async () => {
    const home = tempHome()
    try {
      writeLogin(home, server.base, STATIC_KEY, null, "operator")
      const env = { CORE_API_URL: server.base }
      const table = await core(home, ["vault", "search", "rate", "limited", "--limit", "2"], env)
      expect(table).toMatchObject({ code: 0, stderr: "" })
      expect(table.stdout).toMatch(/^SCORE\s+PATH\s+TITLE\s+SNIPPET\n\d+\.\d\d\s+decisions\/0002-redis\s+Redis for rate limits\s+.*\*\*rate\*\*.*\n\d+\.\d\d\s+services\/gateway\s+Gateway\s+/)
      const json = JSON.parse((await core(home, ["vault", "search", "tenant", "--category", "concepts", "--json"], env)).stdout)
      expect(json.map((hit: { path: string }) => hit.path)).toEqual(["concepts/tenants"])
      const read = await core(home, ["vault", "read", "services/vault"], env)
      expect(read).toMatchObject({ code: 0, stderr: "" })
      expect(read.stdout).toMatch(/^---\ntitle: Vault\n[\s\S]*## Search\n\nRanked full-text search with BM25 and snippets.\n$/)
      const missing = await core(home, ["vault", "read", "services/nope"], env)
      expect(missing.code).toBe(1)
      expect(missing.stderr).toMatch(/No document at path "services\/nope"/)
      expect((await core(home, ["vault", "search"], env)).code).toBe(2)
      expect((await core(home, ["vault", "search", "x", "--category", "recipes"], env)).code).toBe(2)
      expect((await core(home, ["vault", "search", "x", "--limit", "101"], env)).code).toBe(2)
    } finally {
      home.remove()
    }
  })
})
