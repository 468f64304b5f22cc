import { parse as parseYaml } from "yaml"

/** The categories of a vault document (docs/vault-server.md, `search_docs`). */
export const CATEGORIES = ["services", "concepts", "cross-cutting", "guides", "rules", "decisions", "implementation"] as const
export type Category = (typeof CATEGORIES)[number]

/** The statuses of a decision record (docs/vault-server.md, `list_adrs`). */
export const ADR_STATUSES = ["accepted", "proposed", "deprecated", "superseded"] as const
export type AdrStatus = (typeof ADR_STATUSES)[number]

/** The domains of a rule document (docs/vault-server.md, `get_rules`). */
export const RULE_DOMAINS = ["database", "authentication", "frontend", "backend", "security", "module", "package"] as const
export type RuleDomain = (typeof RULE_DOMAINS)[number]

/** The tiers of a rule document (docs/vault-server.md, `get_rules_by_tier`). */
export const RULE_TIERS = { 1: "Foundation", 2: "Architecture", 3: "Technology", 4: "Project" } as const

/** One heading of a document and the lines it spans (up to the next heading of its level or above). */
export interface Section {
  readonly heading: string
  readonly level: number
  /** The section's Markdown, its heading line included. */
  readonly text: string
}

/** A vault document: a Markdown file with front matter, addressed by its path without `.md`. */
export interface Document {
  /** The file's path under the vault, `/`-separated, without `.md` (`services/gateway`). */
  readonly path: string
  readonly title: string
  readonly category: string | undefined
  readonly summary: string
  /** The whole file as written, front matter included. */
  readonly source: string
  /** The Markdown after the front matter. */
  readonly body: string
  readonly sections: ReadonlyArray<Section>
  /** Decision records: their number and status. */
  readonly number: number | undefined
  readonly status: string | undefined
  /** Rule documents: their domain and tier. */
  readonly domain: string | undefined
  readonly tier: number | undefined
  /** The vault paths this document links to (resolved, without `.md` or anchors), each once. */
  readonly links: ReadonlyArray<string>
  /** Every front-matter field, as parsed. */
  readonly frontMatter: Readonly<Record<string, unknown>>
}

/** Why a file was skipped. */
export class ParseFailure extends Error {}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/
const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/
const FENCE = /^[ \t]*(```|~~~)/
const MARKDOWN_LINK = /\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g
const WIKI_LINK = /\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

const integer = (value: unknown): number | undefined => {
  const n = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value
  return typeof n === "number" && Number.isInteger(n) ? n : undefined
}

/** Split a body into its sections, headings inside code fences ignored. */
export const sectionsOf = (body: string): Array<Section> => {
  const lines = body.split(/\r?\n/)
  const heads: Array<{ line: number; level: number; heading: string }> = []
  let fenced = false
  lines.forEach((line, index) => {
    if (FENCE.test(line)) fenced = !fenced
    if (fenced) return
    const match = HEADING.exec(line)
    if (match !== null) heads.push({ line: index, level: match[1].length, heading: match[2].trim() })
  })
  return heads.map((head, i) => {
    let end = lines.length
    for (let j = i + 1; j < heads.length; j++) {
      if (heads[j].level <= head.level) {
        end = heads[j].line
        break
      }
    }
    return { heading: head.heading, level: head.level, text: lines.slice(head.line, end).join("\n").trimEnd() }
  })
}

const dirname = (path: string): string => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "")

/** Resolve a link target written in `from` to a vault path, or `undefined` for an outside link. */
export const resolveLink = (from: string, target: string): string | undefined => {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return undefined
  let raw = target.split("#")[0].split("?")[0]
  try {
    raw = decodeURIComponent(raw)
  } catch {
    // kept as written
  }
  if (raw === "") return undefined
  const parts = raw.startsWith("/") ? [] : dirname(from).split("/").filter((part) => part !== "")
  for (const part of raw.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      if (parts.length === 0) return undefined
      parts.pop()
    } else parts.push(part)
  }
  const joined = parts.join("/").replace(/\.md$/i, "")
  return joined === "" ? undefined : joined
}

const linksOf = (path: string, body: string): Array<string> => {
  const found = new Set<string>()
  for (const match of body.matchAll(MARKDOWN_LINK)) {
    const target = match[1].replace(/^<|>$/g, "")
    // Only links to Markdown files (or extension-less vault paths) are vault links.
    const file = target.split("#")[0]
    if (file !== "" && !/\.md$/i.test(file) && /\.[a-z0-9]+$/i.test(file)) continue
    const resolved = resolveLink(path, target)
    if (resolved !== undefined && resolved !== path) found.add(resolved)
  }
  for (const match of body.matchAll(WIKI_LINK)) {
    const resolved = resolveLink("", match[1].trim())
    if (resolved !== undefined && resolved !== path) found.add(resolved)
  }
  return [...found]
}

/**
 * Parse one vault file. Front matter is optional; when present it must be a YAML mapping.
 * The title falls back to the first heading, then to the file name.
 *
 * @throws ParseFailure when the front matter is not valid YAML or not a mapping.
 */
export const parseDocument = (path: string, source: string): Document => {
  let frontMatter: Record<string, unknown> = {}
  let body = source
  const match = FRONT_MATTER.exec(source)
  if (match !== null) {
    let parsed: unknown
    try {
      parsed = parseYaml(match[1])
    } catch (error) {
      throw new ParseFailure(`invalid front matter: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed)) throw new ParseFailure("front matter is not a mapping")
      frontMatter = parsed as Record<string, unknown>
    }
    body = source.slice(match[0].length)
  } else if (source.startsWith("---\n") || source.startsWith("---\r\n")) {
    throw new ParseFailure("front matter is not closed by ---")
  }
  const sections = sectionsOf(body)
  const title = text(frontMatter.title) ?? sections[0]?.heading ?? path.split("/").pop() ?? path
  return {
    path,
    title,
    category: text(frontMatter.category)?.toLowerCase(),
    summary: text(frontMatter.summary) ?? text(frontMatter.description) ?? "",
    source,
    body,
    sections,
    number: integer(frontMatter.number),
    status: text(frontMatter.status)?.toLowerCase(),
    domain: text(frontMatter.domain)?.toLowerCase(),
    tier: integer(frontMatter.tier),
    links: linksOf(path, body),
    frontMatter
  }
}
