import { fileURLToPath } from "node:url"
import { beforeAll, describe, expect, it } from "vitest"
import { Loader, type Snapshot, Tools } from "../src/index.js"

/** The 11 tools over the fixture vault (`test/fixtures/vault`), every argument rule and error. */
const FIXTURE = fileURLToPath(new URL("./fixtures/vault", import.meta.url))

let snapshot: Snapshot
beforeAll(async () => {
  snapshot = await new Loader(FIXTURE).load()
})

const call = (name: Tools.ToolDescription["name"], args?: unknown) => Tools.callTool(snapshot, name, args)
const textOf = (result: Tools.ToolResult) => result.content[0].text
const jsonOf = (result: Tools.ToolResult) => {
  expect(result.isError).toBeUndefined()
  return JSON.parse(textOf(result))
}
const failureOf = (result: Tools.ToolResult) => {
  expect(result.isError).toBe(true)
  return textOf(result)
}

describe("loading", () => {
  it("reads every Markdown file by its path without .md and skips the unparseable one with a warning naming it", () => {
    expect([...snapshot.documents.keys()]).toEqual([
      "concepts/tenants",
      "cross-cutting/errors",
      "cross-cutting/tenancy",
      "decisions/0001-effect",
      "decisions/0002-redis",
      "guides/getting-started",
      "implementation/kernel",
      "rules/database-naming",
      "rules/foundation-errors",
      "services/command-line-backend",
      "services/gateway",
      "services/vault"
    ])
    expect(snapshot.warnings).toHaveLength(1)
    expect(snapshot.warnings[0]).toMatch(/^skipped broken\.md: invalid front matter/)
  })

  it("a missing folder is an empty vault with a warning, not a failure", async () => {
    const empty = await new Loader(`${FIXTURE}-missing`).load()
    expect(empty.documents.size).toBe(0)
    expect(empty.warnings[0]).toMatch(/cannot be read: ENOENT/)
  })
})

describe("tools/list", () => {
  it("lists the 11 tools of the seed, in its order, each with an input schema", () => {
    expect(Tools.TOOLS.map((tool) => tool.name)).toEqual([
      "search_docs", "read_doc", "read_section", "get_service_spec", "list_services", "get_adr",
      "list_adrs", "get_rules", "get_rules_by_tier", "get_cross_cutting", "get_related_docs"
    ])
    const search = Tools.TOOLS[0].inputSchema as { type: string; required: Array<string>; properties: Record<string, any> }
    expect(search.type).toBe("object")
    expect(search.required).toEqual(["query"])
    expect(search.properties.limit.default).toBe(10)
    expect(search.properties.category.enum).toEqual(["services", "concepts", "cross-cutting", "guides", "rules", "decisions", "implementation"])
    expect(Tools.TOOLS[4].inputSchema).toMatchObject({ type: "object", properties: {} })
  })
})

describe("search_docs", () => {
  it("answers a JSON array of { path, title, snippet, score }, best first, words highlighted", () => {
    const hits = jsonOf(call("search_docs", { query: "rate limited per address" }))
    expect(hits.map((hit: any) => hit.path)).toEqual(["services/gateway", "decisions/0002-redis"])
    expect(hits[1].snippet).toBe("ADR-0002: Redis for **rate** **limits** Superseded by an in-process store.")
    expect(hits[0]).toEqual({
      path: "services/gateway",
      title: "Gateway",
      snippet: expect.stringContaining("Requests are **rate** **limited** **per** **address**"),
      score: expect.any(Number)
    })
    expect(Object.keys(hits[0])).toEqual(["path", "title", "snippet", "score"])
    for (let i = 1; i < hits.length; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score)
  })

  it("stems (tenant finds Tenants), boosts titles and completes the last word as a prefix", () => {
    expect(jsonOf(call("search_docs", { query: "tenant" }))[0].path).toBe("concepts/tenants")
    expect(jsonOf(call("search_docs", { query: "authenticat" })).map((hit: any) => hit.path)).toContain("guides/getting-started")
    expect(jsonOf(call("search_docs", { query: "gatew" }))[0].path).toBe("services/gateway")
  })

  it("filters by category and honours limit (default 10)", () => {
    const hits = jsonOf(call("search_docs", { query: "gateway", category: "concepts" }))
    expect(hits.map((hit: any) => hit.path)).toEqual(["concepts/tenants"])
    expect(jsonOf(call("search_docs", { query: "the gateway tenant errors vault", limit: 2 }))).toHaveLength(2)
    expect(jsonOf(call("search_docs", { query: "nothingmatchesthis" }))).toEqual([])
  })

  it("refuses bad arguments with isError naming the argument", () => {
    expect(failureOf(call("search_docs", {}))).toBe("Invalid arguments for search_docs: query: Invalid input: expected string, received undefined")
    expect(failureOf(call("search_docs", { query: "" }))).toMatch(/^Invalid arguments for search_docs: query: /)
    expect(failureOf(call("search_docs", { query: "x".repeat(501) }))).toMatch(/query: Too big/)
    expect(failureOf(call("search_docs", { query: "a", limit: 0 }))).toMatch(/limit: Too small/)
    expect(failureOf(call("search_docs", { query: "a", limit: 101 }))).toMatch(/limit: Too big/)
    expect(failureOf(call("search_docs", { query: "a", limit: 1.5 }))).toMatch(/limit: /)
    expect(failureOf(call("search_docs", { query: "a", limit: "5" }))).toMatch(/limit: Invalid input: expected number/)
    expect(failureOf(call("search_docs", { query: "a", category: "recipes" }))).toMatch(/category: Invalid option/)
    expect(failureOf(call("search_docs", { query: "a", colour: 1 }))).toMatch(/unknown argument colour/)
    expect(failureOf(call("search_docs", [1]))).toMatch(/arguments: /)
  })
})

describe("read_doc and read_section", () => {
  it("read_doc answers the whole file; .md, a leading slash and vault:// are forgiven", () => {
    const text = textOf(call("read_doc", { path: "services/vault" }))
    expect(text).toMatch(/^---\ntitle: Vault\n/)
    expect(textOf(call("read_doc", { path: "/services/vault.md" }))).toBe(text)
    expect(textOf(call("read_doc", { path: "vault://services/vault" }))).toBe(text)
  })

  it("read_doc: unknown path and bad arguments", () => {
    expect(failureOf(call("read_doc", { path: "services/nope" }))).toMatch(/No document at path "services\/nope"/)
    expect(failureOf(call("read_doc", {}))).toMatch(/path: /)
    expect(failureOf(call("read_doc", { path: "x".repeat(513) }))).toMatch(/path: Too big/)
  })

  it("read_section matches a heading partially, case-insensitive, up to the next heading of its level", () => {
    expect(textOf(call("read_section", { path: "services/gateway", heading: "rate" }))).toBe(
      "## Rate limiting\n\nRequests are rate limited per address: 600 a minute by default."
    )
    expect(textOf(call("read_section", { path: "services/gateway", heading: "ROUTING" }))).toMatch(/^## Routing\n/)
    expect(failureOf(call("read_section", { path: "services/gateway", heading: "billing" }))).toMatch(
      /No section of services\/gateway has a heading containing "billing"; known: Gateway, Rate limiting, Routing/
    )
    expect(failureOf(call("read_section", { path: "services/gateway" }))).toMatch(/heading: /)
    expect(failureOf(call("read_section", { path: "nope", heading: "x" }))).toMatch(/No document at path/)
  })
})

describe("services", () => {
  it("list_services lists each service document with title and summary", () => {
    expect(jsonOf(call("list_services"))).toEqual([
      { service: "command-line-backend", path: "services/command-line-backend", title: "Command-line backend", summary: "Deployments and repositories for the command line." },
      { service: "gateway", path: "services/gateway", title: "Gateway", summary: "The one public entrance; authenticates callers and routes to the services." },
      { service: "vault", path: "services/vault", title: "Vault", summary: "The MCP tool server over the architecture docs." }
    ])
    expect(failureOf(call("list_services", { extra: true }))).toMatch(/unknown argument extra/)
  })

  it("get_service_spec finds a service by file name or title, exact before partial", () => {
    expect(textOf(call("get_service_spec", { service: "gateway" }))).toMatch(/title: Gateway/)
    expect(textOf(call("get_service_spec", { service: "Command-line backend" }))).toMatch(/title: Command-line backend/)
    expect(textOf(call("get_service_spec", { service: "command-line" }))).toMatch(/title: Command-line backend/)
    expect(failureOf(call("get_service_spec", { service: "billing" }))).toBe(
      'No service document for "billing"; known: command-line-backend, gateway, vault'
    )
    expect(failureOf(call("get_service_spec", {}))).toMatch(/service: /)
  })
})

describe("decisions", () => {
  it("get_adr answers a record and its metadata", () => {
    expect(jsonOf(call("get_adr", { number: 1 }))).toMatchObject({
      number: 1,
      status: "accepted",
      path: "decisions/0001-effect",
      title: "Use Effect for services",
      content: expect.stringMatching(/^# ADR-0001/)
    })
    expect(failureOf(call("get_adr", { number: 99 }))).toBe("No decision record number 99")
    expect(failureOf(call("get_adr", { number: "1" }))).toMatch(/number: Invalid input: expected number/)
    expect(failureOf(call("get_adr", {}))).toMatch(/number: /)
  })

  it("list_adrs lists by number, filtered by status", () => {
    expect(jsonOf(call("list_adrs")).map((adr: any) => [adr.number, adr.status])).toEqual([[1, "accepted"], [2, "superseded"]])
    expect(jsonOf(call("list_adrs", { status: "superseded" })).map((adr: any) => adr.number)).toEqual([2])
    expect(jsonOf(call("list_adrs", { status: "proposed" }))).toEqual([])
    expect(failureOf(call("list_adrs", { status: "rejected" }))).toMatch(/status: Invalid option/)
  })
})

describe("rules", () => {
  it("get_rules answers a domain's rules", () => {
    const rules = jsonOf(call("get_rules", { domain: "database" }))
    expect(rules).toEqual([{ domain: "database", tier: 3, path: "rules/database-naming", title: "Database naming", summary: "Tables are snake_case plurals.", content: expect.stringMatching(/^# Database naming/) }])
    expect(jsonOf(call("get_rules", { domain: "frontend" }))).toEqual([])
    expect(failureOf(call("get_rules", { domain: "cooking" }))).toMatch(/domain: Invalid option/)
    expect(failureOf(call("get_rules", {}))).toMatch(/domain: /)
  })

  it("get_rules_by_tier answers a tier's name and rules", () => {
    const tier = jsonOf(call("get_rules_by_tier", { tier: 1 }))
    expect(tier).toMatchObject({ tier: 1, name: "Foundation" })
    expect(tier.rules.map((rule: any) => rule.path)).toEqual(["rules/foundation-errors"])
    expect(jsonOf(call("get_rules_by_tier", { tier: 4 }))).toEqual({ tier: 4, name: "Project", rules: [] })
    expect(failureOf(call("get_rules_by_tier", { tier: 5 }))).toMatch(/tier: Too big/)
    expect(failureOf(call("get_rules_by_tier", { tier: 0 }))).toMatch(/tier: Too small/)
  })
})

describe("cross-cutting and links", () => {
  it("get_cross_cutting lists all without a concern, answers one with it", () => {
    expect(jsonOf(call("get_cross_cutting")).map((doc: any) => doc.path)).toEqual(["cross-cutting/errors", "cross-cutting/tenancy"])
    expect(textOf(call("get_cross_cutting", { concern: "errors" }))).toMatch(/title: Errors/)
    expect(failureOf(call("get_cross_cutting", { concern: "billing" }))).toBe('No cross-cutting document for "billing"; known: errors, tenancy')
    expect(failureOf(call("get_cross_cutting", { concern: "" }))).toMatch(/concern: Too small/)
  })

  it("get_related_docs answers outbound and inbound links with titles and direction", () => {
    expect(jsonOf(call("get_related_docs", { path: "services/gateway" }))).toEqual({
      path: "services/gateway",
      title: "Gateway",
      outbound: [
        { path: "concepts/tenants", title: "Tenants", direction: "outbound", exists: true },
        { path: "cross-cutting/errors", title: "Errors", direction: "outbound", exists: true }
      ],
      inbound: [
        { path: "concepts/tenants", title: "Tenants", direction: "inbound", exists: true },
        { path: "services/vault", title: "Vault", direction: "inbound", exists: true }
      ]
    })
    expect(failureOf(call("get_related_docs", { path: "nope" }))).toMatch(/No document at path "nope"/)
    expect(failureOf(call("get_related_docs", {}))).toMatch(/path: /)
  })
})
