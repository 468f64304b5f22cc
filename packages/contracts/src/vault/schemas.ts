import { z } from "zod"

/**
 * The vault tool server's messages (docs/vault-server.md): the arguments of its
 * 11 tools, and the JSON-RPC envelope of `POST /mcp`. Every string is bounded.
 */

/** The longest query `search_docs` takes. */
export const QUERY_MAX_LENGTH = 500
/** The longest vault path or heading a tool takes. */
export const VAULT_PATH_MAX_LENGTH = 512
/** The most results `search_docs` returns. */
export const SEARCH_LIMIT_MAX = 100

export const VaultCategory = z.enum(["services", "concepts", "cross-cutting", "guides", "rules", "decisions", "implementation"])
export const AdrStatus = z.enum(["accepted", "proposed", "deprecated", "superseded"])
export const RuleDomain = z.enum(["database", "authentication", "frontend", "backend", "security", "module", "package"])

const VaultPath = z.string().min(1).max(VAULT_PATH_MAX_LENGTH).describe("Document path without extension, e.g. services/gateway")

/** `search_docs`: ranked full-text search. */
export const SearchDocsArguments = z.strictObject({
  query: z.string().min(1).max(QUERY_MAX_LENGTH).describe("Words to search for; the last word also matches as a prefix"),
  category: VaultCategory.optional().describe("Only documents of this category"),
  limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).default(10).describe("Most results, default 10")
})
/** `read_doc`: a whole document. */
export const ReadDocArguments = z.strictObject({ path: VaultPath })
/** `read_section`: the first section whose heading contains `heading` (case-insensitive). */
export const ReadSectionArguments = z.strictObject({
  path: VaultPath,
  heading: z.string().min(1).max(VAULT_PATH_MAX_LENGTH).describe("Part of the heading, case-insensitive")
})
/** `get_service_spec`: a service's document. */
export const GetServiceSpecArguments = z.strictObject({
  service: z.string().min(1).max(200).describe("Service name, e.g. gateway, identity, registry, vault")
})
/** `list_services`: no arguments. */
export const ListServicesArguments = z.strictObject({})
/** `get_adr`: a decision record by number. */
export const GetAdrArguments = z.strictObject({
  number: z.number().int().min(0).max(999_999).describe("Decision number, e.g. 1 for ADR-0001")
})
/** `list_adrs`: the decision records, optionally of one status. */
export const ListAdrsArguments = z.strictObject({ status: AdrStatus.optional() })
/** `get_rules`: the rule documents of a domain. */
export const GetRulesArguments = z.strictObject({ domain: RuleDomain })
/** `get_rules_by_tier`: the rule documents of a tier (1 Foundation, 2 Architecture, 3 Technology, 4 Project). */
export const GetRulesByTierArguments = z.strictObject({
  tier: z.number().int().min(1).max(4).describe("1 Foundation, 2 Architecture, 3 Technology, 4 Project")
})
/** `get_cross_cutting`: one concern's documents, or the list of all when omitted. */
export const GetCrossCuttingArguments = z.strictObject({
  concern: z.string().min(1).max(200).optional().describe("e.g. errors, tenancy, authentication; omit to list all")
})
/** `get_related_docs`: a document's inbound and outbound links. */
export const GetRelatedDocsArguments = z.strictObject({ path: VaultPath })

/** Every tool's arguments by name, in the seed's order. */
export const ToolArguments = {
  search_docs: SearchDocsArguments,
  read_doc: ReadDocArguments,
  read_section: ReadSectionArguments,
  get_service_spec: GetServiceSpecArguments,
  list_services: ListServicesArguments,
  get_adr: GetAdrArguments,
  list_adrs: ListAdrsArguments,
  get_rules: GetRulesArguments,
  get_rules_by_tier: GetRulesByTierArguments,
  get_cross_cutting: GetCrossCuttingArguments,
  get_related_docs: GetRelatedDocsArguments
} as const

/** A tool's name. */
export type ToolName = keyof typeof ToolArguments

/** What a caller passes to a tool. */
export type ToolInput<N extends ToolName> = z.input<(typeof ToolArguments)[N]>

/** One `search_docs` result. */
export const SearchHit = z.object({ path: z.string(), title: z.string(), snippet: z.string(), score: z.number() })
export type SearchHit = z.infer<typeof SearchHit>

/** A tool's result (MCP `CallToolResult`): text content, `isError` when the call failed. */
export const ToolResult = z.object({
  content: z.array(z.object({ type: z.literal("text"), text: z.string() })),
  isError: z.boolean().optional()
})
export type ToolResult = z.infer<typeof ToolResult>

/** A JSON-RPC 2.0 message, or a batch of them, as `POST /mcp` takes it (checked message by message). */
export const McpMessage = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()).max(100)])

/** A JSON-RPC 2.0 answer (a result or an error), as `POST /mcp` returns it in JSON. */
export const McpAnswer = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional()
})

/**
 * How `/mcp` answers an error, its refusals by the gateway included (decision 0605): a JSON-RPC
 * error without an id, `data` naming Core's error code and the request id.
 */
export const McpErrorAnswer = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number(), z.null()]),
  error: z.object({
    code: z.number(),
    message: z.string(),
    data: z.object({ code: z.string(), requestId: z.string() }).partial().optional()
  })
})

/** What a tool's handler receives: its arguments parsed, defaults applied. */
export type ToolArgs<N extends ToolName> = z.output<(typeof ToolArguments)[N]>

/** A tool's input schema as JSON Schema, for `tools/list` (`$schema` left out, as MCP clients expect). */
export const toolInputSchema = (name: ToolName): Record<string, unknown> => {
  const { $schema: _, ...schema } = z.toJSONSchema(ToolArguments[name], { io: "input" }) as Record<string, unknown>
  return schema
}

/**
 * Parse a tool's arguments. A failure says what is wrong with each argument by name
 * (`limit: Too big: expected number to be <=100`, `unknown argument colour`).
 */
export const parseToolArguments = <N extends ToolName>(
  name: N,
  args: unknown
): { readonly ok: true; readonly args: ToolArgs<N> } | { readonly ok: false; readonly message: string } => {
  const parsed = ToolArguments[name].safeParse(args ?? {})
  if (parsed.success) return { ok: true, args: parsed.data as ToolArgs<N> }
  // One issue per argument: zod also reports a wrong type's failed length check (`[]` for a path).
  const seen = new Set<string>()
  const message = parsed.error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") return [`unknown argument${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`]
    const path = issue.path.length === 0 ? "arguments" : issue.path.join(".")
    if (seen.has(path)) return []
    seen.add(path)
    return [`${path}: ${issue.message}`]
  }).join("; ")
  return { ok: false, message }
}

/** `GET /.well-known/oauth-protected-resource/mcp`: the protected resource metadata of `/mcp` (RFC 9728 §2). */
export const ProtectedResourceMetadata = z.object({
  resource: z.string().describe("The resource identifier: the absolute address of /mcp"),
  authorization_servers: z.array(z.string()).describe("Issuers whose access tokens /mcp accepts (RFC 8414 metadata at each)"),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string().optional()
})
export type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadata>
