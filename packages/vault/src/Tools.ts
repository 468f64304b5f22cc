import { Vault as Contracts } from "@core/contracts"
import type { Document } from "./Document.js"
import { RULE_TIERS } from "./Document.js"
import type { Snapshot } from "./Snapshot.js"

/** A tool's answer: text content, `isError` when the call failed (MCP `CallToolResult`). */
export type ToolResult = Contracts.ToolResult

/** One tool as `tools/list` describes it. */
export interface ToolDescription {
  readonly name: Contracts.ToolName
  readonly title: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
}

const text = (value: string): ToolResult => ({ content: [{ type: "text", text: value }] })
const json = (value: unknown): ToolResult => text(JSON.stringify(value, null, 2))
/** A failed call: the model reads the reason and may try again (MCP 2025-11-25, SEP-1303). */
export const toolError = (message: string): ToolResult => ({ content: [{ type: "text", text: message }], isError: true })

const summaryOf = (doc: Document) => ({ path: doc.path, title: doc.title, summary: doc.summary })
const adrOf = (doc: Document) => ({ number: doc.number, status: doc.status ?? null, ...summaryOf(doc) })
const ruleOf = (doc: Document) => ({ domain: doc.domain ?? null, tier: doc.tier ?? null, ...summaryOf(doc) })
const byNumber = (a: Document, b: Document) => (a.number ?? 0) - (b.number ?? 0)

/** `auth` → `auth`, `Command-line backend` → `command-line-backend`. */
const slug = (value: string) => value.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")
const baseName = (doc: Document) => doc.path.split("/").pop() ?? doc.path

/** The documents of a category matching a name: by file name, then by title, exact before partial. */
const matching = (docs: ReadonlyArray<Document>, name: string): Array<Document> => {
  const wanted = slug(name)
  if (wanted === "") return []
  const exact = docs.filter((doc) => baseName(doc) === wanted || slug(doc.title) === wanted)
  if (exact.length > 0) return exact
  return docs.filter((doc) => baseName(doc).includes(wanted) || slug(doc.title).includes(wanted))
}

const notFound = (what: string, known: ReadonlyArray<string>) =>
  toolError(`${what}${known.length === 0 ? "" : `; known: ${known.slice(0, 50).join(", ")}`}`)

const documentNotFound = (path: string) => toolError(`No document at path "${path}" (give the path without .md, e.g. services/gateway)`)

/** Strip a trailing `.md` and leading `/` or `vault://`, which callers add out of habit. */
const normalizePath = (path: string) => path.trim().replace(/^vault:\/\//, "").replace(/^\/+/, "").replace(/\.md$/i, "")

type Handlers = { readonly [N in Contracts.ToolName]: (snapshot: Snapshot, args: Contracts.ToolArgs<N>) => ToolResult }

const handlers: Handlers = {
  search_docs: (snapshot, { query, category, limit }) => json(snapshot.index.search(query, { category, limit })),
  read_doc: (snapshot, { path }) => {
    const doc = snapshot.documents.get(normalizePath(path))
    return doc === undefined ? documentNotFound(path) : text(doc.source)
  },
  read_section: (snapshot, { path, heading }) => {
    const doc = snapshot.documents.get(normalizePath(path))
    if (doc === undefined) return documentNotFound(path)
    const wanted = heading.trim().toLowerCase().replace(/^#+\s*/, "")
    const section = doc.sections.find((s) => s.heading.toLowerCase() === wanted) ??
      doc.sections.find((s) => s.heading.toLowerCase().includes(wanted))
    return section === undefined
      ? notFound(`No section of ${doc.path} has a heading containing "${heading}"`, doc.sections.map((s) => s.heading))
      : text(section.text)
  },
  get_service_spec: (snapshot, { service }) => {
    const services = snapshot.ofCategory("services")
    const found = matching(services, service)
    return found.length === 0
      ? notFound(`No service document for "${service}"`, services.map(baseName))
      : text(found[0].source)
  },
  list_services: (snapshot) => json(snapshot.ofCategory("services").map((doc) => ({ service: baseName(doc), ...summaryOf(doc) }))),
  get_adr: (snapshot, { number }) => {
    const adr = snapshot.ofCategory("decisions").find((doc) => doc.number === number)
    if (adr === undefined) return toolError(`No decision record number ${number}`)
    return json({ ...adrOf(adr), frontMatter: adr.frontMatter, content: adr.body.trim() })
  },
  list_adrs: (snapshot, { status }) =>
    json(
      snapshot.ofCategory("decisions").filter((doc) => doc.number !== undefined && (status === undefined || doc.status === status))
        .sort(byNumber).map(adrOf)
    ),
  get_rules: (snapshot, { domain }) =>
    json(snapshot.ofCategory("rules").filter((doc) => doc.domain === domain).map((doc) => ({ ...ruleOf(doc), content: doc.body.trim() }))),
  get_rules_by_tier: (snapshot, { tier }) =>
    json({
      tier,
      name: RULE_TIERS[tier as keyof typeof RULE_TIERS],
      rules: snapshot.ofCategory("rules").filter((doc) => doc.tier === tier).map((doc) => ({ ...ruleOf(doc), content: doc.body.trim() }))
    }),
  get_cross_cutting: (snapshot, { concern }) => {
    const docs = snapshot.ofCategory("cross-cutting")
    if (concern === undefined) return json(docs.map(summaryOf))
    const found = matching(docs, concern)
    return found.length === 0
      ? notFound(`No cross-cutting document for "${concern}"`, docs.map(baseName))
      : text(found.map((doc) => doc.source).join("\n\n---\n\n"))
  },
  get_related_docs: (snapshot, { path }) => {
    const doc = snapshot.documents.get(normalizePath(path))
    if (doc === undefined) return documentNotFound(path)
    const links = snapshot.related(doc.path)
    return json({
      path: doc.path,
      title: doc.title,
      outbound: links.filter((link) => link.direction === "outbound"),
      inbound: links.filter((link) => link.direction === "inbound")
    })
  }
}

const DESCRIPTIONS: { readonly [N in Contracts.ToolName]: readonly [title: string, description: string] } = {
  search_docs: ["Search the docs", "Ranked full-text search over the architecture vault. Returns a JSON array of { path, title, snippet, score }."],
  read_doc: ["Read a document", "The full Markdown of one document, by its path without extension (services/gateway)."],
  read_section: ["Read a section", "The section of a document whose heading contains the given text (case-insensitive)."],
  get_service_spec: ["Service specification", "The specification document of one service (gateway, identity, registry, stacks, provisioning, billing, cli, vault)."],
  list_services: ["List services", "Every service document with its title and summary."],
  get_adr: ["Decision record", "One architecture decision record by number, with its metadata (status, title, path)."],
  list_adrs: ["List decision records", "The decision records, optionally only those with a status (accepted, proposed, deprecated, superseded)."],
  get_rules: ["Rules of a domain", "The rule documents of a domain (database, authentication, frontend, backend, security, module, package)."],
  get_rules_by_tier: ["Rules of a tier", "The rule documents of a tier: 1 Foundation, 2 Architecture, 3 Technology, 4 Project."],
  get_cross_cutting: ["Cross-cutting concerns", "The document of one cross-cutting concern (errors, tenancy, authentication, observability, configuration); omit concern to list all."],
  get_related_docs: ["Related documents", "A document's outbound and inbound links, each with the other document's title and the direction."]
}

/** Every tool as `tools/list` answers it, input schemas derived from the contracts. */
export const TOOLS: ReadonlyArray<ToolDescription> = (Object.keys(Contracts.ToolArguments) as Array<Contracts.ToolName>).map((name) => ({
  name,
  title: DESCRIPTIONS[name][0],
  description: DESCRIPTIONS[name][1],
  inputSchema: Contracts.toolInputSchema(name)
}))

/** Whether a name is one of the 11 tools. */
export const isTool = (name: string): name is Contracts.ToolName => Object.hasOwn(Contracts.ToolArguments, name)

/**
 * Call a tool on a snapshot. Invalid arguments answer a result with `isError: true` whose text names
 * each bad argument (MCP 2025-11-25, SEP-1303), never a protocol error.
 */
export const callTool = (snapshot: Snapshot, name: Contracts.ToolName, args: unknown): ToolResult => {
  const parsed = Contracts.parseToolArguments(name, args)
  if (!parsed.ok) return toolError(`Invalid arguments for ${name}: ${parsed.message}`)
  return (handlers[name] as (snapshot: Snapshot, args: unknown) => ToolResult)(snapshot, parsed.args)
}
