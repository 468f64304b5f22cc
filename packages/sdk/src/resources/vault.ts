import type { Vault } from "@core/contracts"
import { VaultRouteRefs } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
import { CoreError } from "../errors.js"
import type { Transport } from "../transport.js"

/** Per-call options of the vault's methods. */
export interface VaultCallOptions {
  readonly signal?: AbortSignal
}

/** A tool's result as the vault answers it (MCP `CallToolResult`). */
export type VaultToolResult = Vault.ToolResult

/**
 * A vault tool answered `isError: true` (invalid arguments, an unknown path, section or decision),
 * or the server answered a JSON-RPC error; `message` is the server's text, `code` the JSON-RPC code
 * (`undefined` for a tool's own error).
 */
export class VaultToolError extends CoreError {
  override readonly name: string = "VaultToolError"
  constructor(readonly tool: string, message: string, readonly code?: number) {
    super(message)
  }
}

interface Answer {
  readonly result?: VaultToolResult
  readonly error?: { readonly code: number; readonly message: string }
}

/** Each tool's arguments by its name (one object type, so the declarations can spell it out: decision 0635). */
type ToolArguments = { [N in Vault.ToolName]: Vault.ToolInput<N> }

/**
 * The vault tool server (`client.vault`, MCP at `/mcp`): one method per tool (docs/vault-server.md), each a
 * stateless `tools/call` (decision 0403), answering the tool's text parsed as JSON where it is JSON.
 * A tool error throws `VaultToolError`; an HTTP failure the usual `CoreApiError`.
 */
export interface VaultClient {
  /** `search_docs`: ranked results `{ path, title, snippet, score }`, best first. */
  readonly search: (query: string, options?: VaultCallOptions & { readonly category?: Vault.ToolInput<"search_docs">["category"]; readonly limit?: number }) => Promise<Array<Vault.SearchHit>>
  /** `read_doc`: a document's Markdown, by its path without extension. */
  readonly read: (path: string, options?: VaultCallOptions) => Promise<string>
  /** `read_section`: the section whose heading contains `heading`. */
  readonly section: (path: string, heading: string, options?: VaultCallOptions) => Promise<string>
  /** `get_service_spec`: a service's document. */
  readonly serviceSpec: (service: string, options?: VaultCallOptions) => Promise<string>
  /** `list_services`: `{ service, path, title, summary }` per service. */
  readonly services: (options?: VaultCallOptions) => Promise<Array<{ service: string; path: string; title: string; summary: string }>>
  /** `get_adr`: a decision record and its metadata. */
  readonly adr: (number: number, options?: VaultCallOptions) => Promise<Record<string, unknown>>
  /** `list_adrs`: the decision records, optionally of one status. */
  readonly adrs: (options?: VaultCallOptions & { readonly status?: Vault.ToolInput<"list_adrs">["status"] }) => Promise<Array<Record<string, unknown>>>
  /** `get_rules`: a domain's rule documents. */
  readonly rules: (domain: Vault.ToolInput<"get_rules">["domain"], options?: VaultCallOptions) => Promise<Array<Record<string, unknown>>>
  /** `get_rules_by_tier`: a tier's name and rule documents. */
  readonly rulesByTier: (tier: 1 | 2 | 3 | 4, options?: VaultCallOptions) => Promise<{ tier: number; name: string; rules: Array<Record<string, unknown>> }>
  /** `get_cross_cutting`: one concern's Markdown, or every cross-cutting document's summary when omitted. */
  readonly crossCutting: (concern?: string, options?: VaultCallOptions) => Promise<unknown>
  /** `get_related_docs`: a document's outbound and inbound links. */
  readonly related: (path: string, options?: VaultCallOptions) => Promise<{ path: string; title: string; outbound: Array<Record<string, unknown>>; inbound: Array<Record<string, unknown>> }>
  /** Any tool by name, its raw result (no throw on `isError`). */
  readonly callTool: <N extends Vault.ToolName>(name: N, args: ToolArguments[N], options?: VaultCallOptions) => Promise<VaultToolResult>
}

let nextId = 1

/** `client.vault` on `transport`. */
export const vault = (transport: Transport): VaultClient => {
  const { call } = routeCaller(transport)

  const callTool = async (name: string, args: Record<string, unknown>, options: VaultCallOptions = {}): Promise<VaultToolResult> => {
    const body = { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } }
    const answer = (await call(VaultRouteRefs.mcpPost, { body, headers: { accept: "application/json" } }, options)) as Answer
    if (answer.error !== undefined) throw new VaultToolError(name, answer.error.message, answer.error.code)
    return answer.result!
  }

  /** The tool's text, thrown as `VaultToolError` when it is an error. */
  const text = async (name: string, args: Record<string, unknown>, options?: VaultCallOptions): Promise<string> => {
    const result = await callTool(name, args, options)
    const content = result.content.map((part) => part.text).join("\n")
    if (result.isError === true) throw new VaultToolError(name, content)
    return content
  }
  const json = async <T>(name: string, args: Record<string, unknown>, options?: VaultCallOptions): Promise<T> =>
    JSON.parse(await text(name, args, options)) as T
  const signalOnly = (options?: VaultCallOptions): VaultCallOptions => (options?.signal === undefined ? {} : { signal: options.signal })
  const defined = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined))

  return {
    search: (query, options) => json("search_docs", defined({ query, category: options?.category, limit: options?.limit }), signalOnly(options)),
    read: (path, options) => text("read_doc", { path }, options),
    section: (path, heading, options) => text("read_section", { path, heading }, options),
    serviceSpec: (service, options) => text("get_service_spec", { service }, options),
    services: (options) => json("list_services", {}, options),
    adr: (number, options) => json("get_adr", { number }, options),
    adrs: (options) => json("list_adrs", defined({ status: options?.status }), signalOnly(options)),
    rules: (domain, options) => json("get_rules", { domain }, options),
    rulesByTier: (tier, options) => json("get_rules_by_tier", { tier }, options),
    crossCutting: async (concern, options) => {
      if (concern !== undefined) return text("get_cross_cutting", { concern }, options)
      return json("get_cross_cutting", {}, options)
    },
    related: (path, options) => json("get_related_docs", { path }, options),
    callTool: (name, args, options) => callTool(name, args as Record<string, unknown>, options)
  }
}
