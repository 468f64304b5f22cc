/**
 * The vault (`docs/vault/`) stays true: every relative link resolves (file and heading anchor),
 * every document's front matter is valid (the categories, ADR statuses, rule domains and tiers of
 * the vault's tools, docs/vault-server.md), every `METHOD /path` a services document names outside its "planned"
 * sections is a route of the `@core/contracts` catalogues, and the generated decision records match
 * `docs/decisions/` (decision 0421).
 */
import * as RouteTable from "@core/contracts/routes"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { ADR_STATUSES, renderAll, ROOT, VAULT_DECISIONS_DIR } from "../scripts/vault-decisions.js"

const VAULT = join(ROOT, "docs", "vault")
const CATEGORIES = ["services", "concepts", "cross-cutting", "guides", "rules", "decisions", "implementation"]
const RULE_DOMAINS = ["database", "authentication", "frontend", "backend", "security", "module", "package"]

const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    return statSync(full).isDirectory() ? walk(full) : [full]
  })

const files = walk(VAULT).sort()
const documents = files.filter((file) => file.endsWith(".md"))
const read = (file: string) => readFileSync(file, "utf8")
const rel = (file: string) => relative(VAULT, file)

interface Parsed {
  readonly meta: Record<string, unknown>
  readonly body: string
}

const parseDocument = (text: string): Parsed => {
  const match = text.match(/^---\n([\s\S]*?)\n---\n/)
  if (match === null) return { meta: {}, body: text }
  return { meta: (parse(match[1]!) ?? {}) as Record<string, unknown>, body: text.slice(match[0].length) }
}

/** The body without fenced code blocks (links and routes inside them are examples). */
const withoutCode = (body: string): string => body.replace(/^```[\s\S]*?^```/gm, "")

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const anchorsOf = (file: string): Set<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const [, heading] of withoutCode(read(file)).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!)
    const count = seen.get(base) ?? 0
    anchors.add(count === 0 ? base : `${base}-${count}`)
    seen.set(base, count + 1)
  }
  return anchors
}

const linksOf = (body: string): Array<string> =>
  [...withoutCode(body).replace(/`[^`\n]*`/g, "").matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!)

/** Every catalogued route, as `METHOD path` both as the service serves it and through the gateway. */
const catalogued = (() => {
  const routes = new Set<string>()
  for (const value of Object.values(RouteTable)) {
    if (typeof value !== "object" || value === null) continue
    for (const ref of Object.values(value as Record<string, unknown>)) {
      if (typeof ref !== "object" || ref === null || !("method" in ref) || !("path" in ref)) continue
      const { method, path, prefix } = ref as { method: string; path: string; prefix?: string }
      const normalized = path.replace(/:([A-Za-z]+)/g, "{$1}")
      routes.add(`${method} ${normalized}`)
      if (prefix) routes.add(`${method} ${prefix}${normalized === "/" ? "" : normalized}`)
    }
  }
  return routes
})()

/** The `METHOD /path` code spans of a services document, outside headings that say "planned". */
const namedRoutes = (body: string): { checked: Array<string>; planned: Array<string> } => {
  const checked: Array<string> = []
  const planned: Array<string> = []
  let inPlanned = false
  for (const line of withoutCode(body).split("\n")) {
    const heading = line.match(/^(#{1,6}) (.+)$/)
    if (heading) {
      if (heading[1]!.length <= 2 || /planned/i.test(heading[2]!)) inPlanned = /planned/i.test(heading[2]!)
      continue
    }
    for (const [, method, path] of line.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s?]*)(?:\?[^`]*)?`/g)) {
      const route = `${method} ${path!.replace(/:([A-Za-z]+)/g, "{$1}")}`
      ;(inPlanned ? planned : checked).push(route)
    }
  }
  return { checked, planned }
}

describe("the vault", () => {
  it("holds only Markdown documents, in the seven category folders", () => {
    expect(files.filter((file) => !file.endsWith(".md")).map(rel)).toEqual([])
    expect(documents.length).toBeGreaterThan(0)
    for (const file of documents) {
      expect(CATEGORIES, rel(file)).toContain(rel(file).split("/")[0])
    }
  })

  it("every document's front matter is valid for its category", () => {
    const problems: Array<string> = []
    for (const file of documents) {
      const { meta } = parseDocument(read(file))
      const name = rel(file)
      const folder = name.split("/")[0]
      const text = (key: string, max: number) => {
        const value = meta[key]
        if (typeof value !== "string" || value.trim() === "" || value.length > max) {
          problems.push(`${name}: ${key} must be a non-empty string of at most ${max} characters`)
        }
      }
      text("title", 200)
      text("summary", 400)
      if (meta.category !== folder) problems.push(`${name}: category '${meta.category}' is not its folder '${folder}'`)
      if (folder === "decisions") {
        if (!Number.isInteger(meta.number) || (meta.number as number) < 1) problems.push(`${name}: number`)
        if (!(ADR_STATUSES as ReadonlyArray<unknown>).includes(meta.status)) problems.push(`${name}: status`)
      }
      if (folder === "rules") {
        if (!RULE_DOMAINS.includes(meta.domain as string)) problems.push(`${name}: domain '${meta.domain}'`)
        if (![1, 2, 3, 4].includes(meta.tier as number)) problems.push(`${name}: tier '${meta.tier}'`)
      }
    }
    expect(problems).toEqual([])
  })

  it("decision numbers are unique", () => {
    const numbers = documents
      .filter((file) => rel(file).startsWith("decisions/"))
      .map((file) => parseDocument(read(file)).meta.number)
    expect(new Set(numbers).size).toBe(numbers.length)
  })

  it("every relative link resolves to a file, and every anchor to one of its headings", () => {
    const broken: Array<string> = []
    for (const file of documents) {
      for (const target of linksOf(parseDocument(read(file)).body)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
        const [path, anchor] = target.split("#", 2) as [string, string | undefined]
        const resolved = path === "" ? file : resolve(dirname(file), decodeURI(path))
        if (!existsSync(resolved)) {
          broken.push(`${rel(file)} → ${target}`)
          continue
        }
        if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) {
          broken.push(`${rel(file)} → ${target} (no such heading)`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it("the rules cover every domain and every tier", () => {
    const rules = documents.filter((file) => rel(file).startsWith("rules/")).map((file) => parseDocument(read(file)).meta)
    expect(new Set(rules.map((meta) => meta.domain))).toEqual(new Set(RULE_DOMAINS))
    expect(new Set(rules.map((meta) => meta.tier))).toEqual(new Set([1, 2, 3, 4]))
  })

  it("has documents in every category, and every services document says its status", () => {
    for (const category of CATEGORIES) {
      expect(documents.some((file) => rel(file).startsWith(`${category}/`)), category).toBe(true)
    }
    for (const file of documents.filter((file) => rel(file).startsWith("services/"))) {
      expect(read(file), rel(file)).toMatch(/^\*\*Status:\*\* \S/m)
    }
  })

  it("has one services document per service", () => {
    const services = documents.filter((file) => rel(file).startsWith("services/")).map((file) => rel(file))
    expect(services.sort()).toEqual(
      ["billing", "deploy", "events", "gateway", "identity", "provisioning", "registry", "stacks", "vault"].map((name) => `services/${name}.md`)
    )
  })

  it("each services document names routes, and those not marked planned exist in the contracts", () => {
    expect(catalogued.size).toBeGreaterThan(100)
    const missing: Array<string> = []
    for (const file of documents.filter((file) => rel(file).startsWith("services/"))) {
      const { checked, planned } = namedRoutes(parseDocument(read(file)).body)
      if (checked.length + planned.length === 0) missing.push(`${rel(file)}: names no route`)
      for (const route of checked) if (!catalogued.has(route)) missing.push(`${rel(file)}: ${route}`)
    }
    expect(missing).toEqual([])
  })

  it("the decision records are generated from docs/decisions and up to date (npm run generate:vault)", () => {
    const rendered = renderAll()
    const onDisk = readdirSync(VAULT_DECISIONS_DIR).filter((file) => file.endsWith(".md")).sort()
    expect(onDisk).toEqual([...rendered.keys()].sort())
    for (const [file, text] of rendered) {
      expect(read(join(VAULT_DECISIONS_DIR, file)), `docs/vault/decisions/${file} is stale`).toBe(text)
    }
  })
})
