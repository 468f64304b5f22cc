/**
 * Writes the vault's decision records (`docs/vault/decisions/*.md`) from the project's decision
 * log (`docs/decisions/*.md`): one document per decision, with the vault's front matter (title,
 * category `decisions`, summary, number, status) and the record's body, its relative links
 * rewritten so that they resolve from the vault (decision 0421). It also writes the log's index,
 * `docs/decisions/README.md`: every record with its title, status, area and what supersedes it
 * (decision 0665).
 *
 *   npm run generate:vault
 *   (node --import tsx scripts/vault-decisions.ts)
 *
 * `tests/vault-links.test.ts` renders the records again and fails when the committed files differ, and
 * `packages/vault/test/DecisionIndex.test.ts` does the same for the index, so the generated files are
 * never edited by hand (no marker in the records: it would show in search snippets).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, posix, relative, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** The repository's root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
/** Where the decision log lives. */
export const DECISIONS_DIR = join(ROOT, "docs", "decisions")
/** Where the generated records go. */
export const VAULT_DECISIONS_DIR = join(ROOT, "docs", "vault", "decisions")

/** Where the index of the log goes. */
export const INDEX_FILE = join(DECISIONS_DIR, "README.md")

/** The ADR statuses the vault's tools accept (`list_adrs`, docs/vault/services/vault.md). */
export const ADR_STATUSES = ["accepted", "proposed", "deprecated", "superseded"] as const

/**
 * The statuses a record of the log may have (decision 0665): a record `amended by` a later one
 * still stands, with the parts that record names changed; one `superseded by` a record or a living
 * document keeps only its number and a line pointing there.
 */
export const LOG_STATUSES = ["accepted", "amended by", "superseded by", "proposed", "deprecated"] as const

/** The areas of the log, each with the living document that says how things are in it. */
export const AREAS: Record<string, string> = {
  foundation: "docs/architecture.md",
  gateway: "docs/gateway.md",
  identity: "docs/identity/",
  registry: "docs/registry.md",
  stacks: "docs/stacks.md",
  provisioning: "docs/provisioning.md",
  billing: "docs/billing.md",
  deploy: "docs/deploy.md",
  vault: "docs/vault-server.md",
  sdk: "docs/vault/implementation/sdk.md",
  cli: "docs/vault/guides/cli.md",
  server: "docs/operations.md",
  examples: "docs/vault/guides/embedding.md",
  tests: "docs/testing.md",
  docs: "docs/vault/guides/writing-vault-documents.md"
}

/** A repository path (`docs/gateway.md`, `README.md#test-it`) as a link from the log's folder. */
const fromLog = (path: string): string => {
  const [file, anchor] = path.split("#", 2) as [string, string | undefined]
  const href = posix.relative("docs/decisions", file) + (file.endsWith("/") ? "/" : "")
  return `${href}${anchor === undefined ? "" : `#${anchor}`}`
}

const SUMMARY_MAX = 240

/** One parsed decision of the log. */
export interface Decision {
  readonly file: string
  readonly number: number
  readonly title: string
  /** The vault's status: `amended by` is `accepted`, `superseded by` is `superseded`. */
  readonly status: (typeof ADR_STATUSES)[number]
  /** The status as the log writes it. */
  readonly logStatus: (typeof LOG_STATUSES)[number]
  /** What follows the status line, when it says more than the status (`(amends 0102)`, `by 0488`). */
  readonly statusNote: string
  /** What amends or supersedes the record: decision numbers, or a living document's repository path. */
  readonly by: ReadonlyArray<string>
  /** The record's area (its `Area:` line), one of `AREAS`. */
  readonly area: string
  readonly body: string
}

/** The prose of a section: its lines until the next `## ` heading, code blocks left out. */
const sectionText = (text: string): string => {
  const lines: Array<string> = []
  let inCode = false
  for (const line of text.split("\n")) {
    const trimmed = line.trim()
    if (trimmed.startsWith("```")) {
      inCode = !inCode
      continue
    }
    if (inCode) continue
    if (trimmed.startsWith("## ") && lines.length > 0) break
    if (trimmed.startsWith("#") || trimmed.startsWith("|")) continue
    lines.push(trimmed.replace(/^(?:[-*]|\d+\.) /, ""))
  }
  return lines.join(" ")
}

/** The first sentence of the decision (of the body when it has no `## Decision`), plain, bounded. */
export const summaryOf = (body: string): string => {
  const decisionAt = body.search(/^## Decision\s*$/m)
  const from = decisionAt >= 0 ? body.slice(body.indexOf("\n", decisionAt) + 1) : body
  const plain = (sectionText(from) || sectionText(body))
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*\*/g, "")
    .replace(/\s+/g, " ")
    .trim()
  const sentence = plain.match(/^.+?\.(?=\s|$)/)?.[0] ?? plain
  return sentence.length <= SUMMARY_MAX ? sentence : `${sentence.slice(0, SUMMARY_MAX - 1).trimEnd()}…`
}

/** Parses one decision file; fails naming the file when its title or status line is missing. */
export const parseDecision = (file: string, text: string): Decision => {
  const normalized = text.replace(/\r\n/g, "\n")
  const heading = normalized.match(/^# (\d{4}) — (.+)$/m)
  const statusLine = normalized.match(/^Status: ([a-z]+(?: by)?)(.*)$/m)
  if (heading === null || statusLine === null) {
    throw new Error(`${file}: expected a '# NNNN — Title' heading and a 'Status: …' line`)
  }
  const logStatus = statusLine[1] as Decision["logStatus"]
  if (!LOG_STATUSES.includes(logStatus)) {
    throw new Error(`${file}: status '${logStatus}' is not one of ${LOG_STATUSES.join(", ")}`)
  }
  const area = normalized.match(/^Area: ([a-z]+)$/m)?.[1]
  if (area === undefined || !(area in AREAS)) {
    throw new Error(`${file}: expected an 'Area: …' line naming one of ${Object.keys(AREAS).join(", ")}`)
  }
  const statusNote = statusLine[2]!.trim()
  // What amends or supersedes it: the numbers and links before any parenthesis or sentence.
  const targets = logStatus.endsWith(" by") ? statusNote.split(/\s\(|[.;]\s/)[0]! : ""
  const by = [...targets.matchAll(/\[[^\]]*\]\(([^)\s]+)\)|\b(\d{4})\b/g)].map((m) =>
    m[2] ?? (/^\d{4}-/.test(m[1]!) ? m[1]!.slice(0, 4) : posix.join("docs/decisions", m[1]!))
  )
  if (logStatus.endsWith(" by") && by.length === 0) throw new Error(`${file}: '${logStatus}' names no record or document`)
  const body = normalized
    .slice(normalized.indexOf("\n", statusLine.index!) + 1)
    .replace(/^Area: [a-z]+\n/m, "")
    .trim()
  return {
    file,
    number: Number(heading[1]),
    title: heading[2]!.trim(),
    status: logStatus === "amended by" ? "accepted" : logStatus === "superseded by" ? "superseded" : logStatus,
    logStatus,
    statusNote,
    by: [...new Set(by)],
    area,
    body
  }
}

/** A relative link of the log, rewritten to resolve from the vault's decisions folder. */
const rewriteLinks = (body: string): string =>
  body.replace(/\]\(([^)\s]+)\)/g, (whole, target: string) => {
    if (/^[a-z]+:/i.test(target) || target.startsWith("#") || target.startsWith("/")) return whole
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined]
    const absolute = resolve(DECISIONS_DIR, pathPart)
    // A decision links to another decision: the vault holds it under the same name.
    const inLog = dirname(absolute) === DECISIONS_DIR && /^\d{4}-.+\.md$/.test(posix.basename(pathPart))
    const rewritten = inLog ? posix.basename(pathPart) : relative(VAULT_DECISIONS_DIR, absolute).split("\\").join("/")
    return `](${rewritten}${anchor === undefined ? "" : `#${anchor}`})`
  })

const quote = (value: string): string => JSON.stringify(value)

/** The vault document of one decision. */
export const renderDecision = (decision: Decision): string => {
  const number = String(decision.number).padStart(4, "0")
  const note = decision.statusNote === "" ? "" : ` ${rewriteLinks(decision.statusNote)}`
  return [
    "---",
    `title: ${quote(`ADR-${number}: ${decision.title}`)}`,
    "category: decisions",
    `summary: ${quote(summaryOf(decision.body))}`,
    `number: ${decision.number}`,
    `status: ${decision.status}`,
    "---",
    "",
    `# ADR-${number}: ${decision.title}`,
    "",
    `Status: ${decision.logStatus}${note}. Source: [docs/decisions/${decision.file}](../../decisions/${decision.file}).`,
    "",
    rewriteLinks(decision.body),
    ""
  ].join("\n")
}

/** Every decision of the log, in number order. */
export const readAll = (): Array<Decision> =>
  readdirSync(DECISIONS_DIR)
    .filter((file) => /^\d{4}-.+\.md$/.test(file))
    .sort()
    .map((file) => parseDecision(file, readFileSync(join(DECISIONS_DIR, file), "utf8")))

/** Every generated document, by file name, in number order. */
export const renderAll = (): Map<string, string> => new Map(readAll().map((d) => [d.file, renderDecision(d)]))

/** A markdown table cell: no pipe breaks the row. */
const cell = (text: string): string => text.replace(/\|/g, "\\|")

/** The index of the log (`docs/decisions/README.md`): the living documents, the counts, every record. */
export const renderIndex = (decisions: ReadonlyArray<Decision> = readAll()): string => {
  const fileOf = new Map(decisions.map((d) => [String(d.number).padStart(4, "0"), d.file]))
  const link = (target: string): string => {
    const file = fileOf.get(target)
    return file === undefined ? `[${target}](${fromLog(target)})` : `[${target}](${file})`
  }
  const count = (status: Decision["logStatus"]) => decisions.filter((d) => d.logStatus === status).length
  const lines = [
    "# Decision records",
    "",
    "The choices the specification and the design left open, one record each. How things are today is",
    "written in the living document of each area (below); a record keeps the choice and why. A record",
    "`amended by` a later one still stands except where that one says otherwise; a record `superseded by`",
    "a record or a living document keeps its number (links stay valid) and a line pointing there.",
    "",
    "This index is generated by `npm run generate:vault` (`scripts/vault-decisions.ts`) from each record's",
    "`# NNNN — Title`, `Status:` and `Area:` lines, and `packages/vault/test/DecisionIndex.test.ts` fails",
    "when it is out of date (decision 0665). A new record takes the next free number, `Status: accepted`",
    "and an `Area:`; a record that changes an earlier one's rule updates that one's status in the same commit.",
    "",
    `${decisions.length} records: ${count("accepted")} accepted, ${count("amended by")} amended, ${count("superseded by")} superseded.`,
    "",
    "| Area | Living document | Records |",
    "|---|---|---|",
    ...Object.entries(AREAS).map(([area, doc]) => {
      const n = decisions.filter((d) => d.area === area).length
      return `| ${area} | [${doc}](${fromLog(doc)}) | ${n} |`
    }),
    "",
    "| Record | Title | Status | Area | Superseded by |",
    "|---|---|---|---|---|",
    ...decisions.map((d) => {
      const number = String(d.number).padStart(4, "0")
      const status =
        d.logStatus === "amended by" ? `amended by ${d.by.map(link).join(", ")}` : d.logStatus === "superseded by" ? "superseded" : d.logStatus
      const superseded = d.logStatus === "superseded by" ? d.by.map(link).join(", ") : ""
      return `| [${number}](${d.file}) | ${cell(d.title)} | ${status} | ${d.area} | ${superseded} |`
    }),
    ""
  ]
  return lines.join("\n")
}

/** Writes the records and removes those whose decision is gone. */
export const writeAll = (): number => {
  const rendered = renderAll()
  mkdirSync(VAULT_DECISIONS_DIR, { recursive: true })
  for (const file of readdirSync(VAULT_DECISIONS_DIR)) {
    if (file.endsWith(".md") && !rendered.has(file)) rmSync(join(VAULT_DECISIONS_DIR, file))
  }
  for (const [file, text] of rendered) {
    const target = join(VAULT_DECISIONS_DIR, file)
    if (!existsSync(target) || readFileSync(target, "utf8") !== text) writeFileSync(target, text)
  }
  const index = renderIndex()
  if (!existsSync(INDEX_FILE) || readFileSync(INDEX_FILE, "utf8") !== index) writeFileSync(INDEX_FILE, index)
  return rendered.size
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = writeAll()
  process.stdout.write(`wrote ${count} decision records to ${relative(ROOT, VAULT_DECISIONS_DIR)} and their index to ${relative(ROOT, INDEX_FILE)}\n`)
}
