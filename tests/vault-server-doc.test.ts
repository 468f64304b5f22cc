import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { tenantOf } from "./support/tenants.js"

/**
 * docs/vault-server.md's client configurations as a user copies them: every `json` block
 * parses, is an `mcpServers` entry of a type some client takes (`url`, the specification's form;
 * `http`, the inspector's and most clients'), and connects — its address moved to the test's
 * server, its `core_…` replaced by a real API key — with the official TypeScript client, which lists
 * the 11 tools and calls one. The inspector commands were checked by hand (2.12.0 on Node 22 from
 * the registry, as the page says); running them here would download it on every run.
 */
const PAGE = fileURLToPath(new URL("../docs/vault-server.md", import.meta.url))
const CLIENT = fileURLToPath(new URL("./fixtures/mcp-entry-client.mjs", import.meta.url))

interface Entry { readonly type: string; readonly url: string; readonly headers: Readonly<Record<string, string>> }

/** The `json` blocks of the page, parsed (a block that does not parse fails here). */
const jsonBlocks = (): Array<unknown> =>
  [...readFileSync(PAGE, "utf8").matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match) => JSON.parse(match[1]!) as unknown)

describe("docs/vault-server.md's client configurations, as written", () => {
  const server = useServer({}, 120_000)
  let key = ""

  beforeAll(async () => {
    const ada = await tenantOf(server.base, "Vault Doc", "vault-doc")
    key = (await ada.client.iam.apiKeys.create({ organizationId: ada.orgId, name: "assistant" })).key
  }, 120_000)

  it("documents both forms, type 'url' and type 'http', of the same entry", () => {
    const blocks = jsonBlocks()
    expect(blocks.length).toBe(2)
    const entries = blocks.map((block) => Object.entries((block as { mcpServers: Record<string, Entry> }).mcpServers))
    expect(entries.map((pairs) => pairs.map(([name, entry]) => [name, entry.type]))).toEqual([[["core-vault", "url"]], [["core-vault", "http"]]])
    for (const [[, entry]] of entries as Array<Array<[string, Entry]>>) {
      expect(entry).toEqual({ type: entry.type, url: "http://localhost:8787/mcp", headers: { "x-api-key": "core_…" } })
    }
  })

  it("each entry connects with the official client: 11 tools, and search_docs answers", async () => {
    for (const block of jsonBlocks()) {
      const entry = (block as { mcpServers: Record<string, Entry> }).mcpServers["core-vault"]!
      const url = new URL(new URL(entry.url).pathname, server.base)
      const headers = Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, value.replace("core_…", key)]))
      const { stdout } = await promisify(execFile)(process.execPath, [CLIENT, url.href, JSON.stringify(headers)], { timeout: 60_000 })
      expect({ type: entry.type, ...JSON.parse(stdout) }).toEqual({ type: entry.type, tools: 11, hits: 1 })
    }
  })

  it("the key is what lets the entry in: without it /mcp answers 401", async () => {
    const answer = await fetch(new URL("/mcp", server.base), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(answer.status).toBe(401)
  })
})
