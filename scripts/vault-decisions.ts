/**
 * Writes the vault's decision records (`docs/vault/decisions/*.md`) from the project's decision
 * log (`docs/decisions/*.md`): one document per decision, with the vault's front matter (title,
 * category `decisions`, summary, number, status) and the record's body, its relative links
 * rewritten so that they resolve from the vault (decision 0421).
 *
 *   npm run generate:vault
 *   (node --import tsx scripts/vault-decisions.ts)
 *
 * `tests/vault-links.test.ts` renders the records again and fails when the committed files differ, so
 * the generated files are never edited by hand (no marker in them: it would show in search snippets).
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

/** The ADR statuses the vault's tools accept (seed 002, `list_adrs`). */
export const ADR_STATUSES = ["accepted", "proposed", "deprecated", "superseded"] as const

const SUMMARY_MAX = 240

/** One parsed decision of the log. */
export interface Decision {
  readonly file: string
  readonly number: number
  readonly title: string
  readonly status: (typeof ADR_STATUSES)[number]
  /** What follows the status line, when it says more than the status (`(amends 0102)`). */
  readonly statusNote: string
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
  const statusLine = normalized.match(/^Status: ([a-z]+)(.*)$/m)
  if (heading === null || statusLine === null) {
    throw new Error(`${file}: expected a '# NNNN — Title' heading and a 'Status: …' line`)
  }
  const status = statusLine[1] as Decision["status"]
  if (!ADR_STATUSES.includes(status)) {
    throw new Error(`${file}: status '${status}' is not one of ${ADR_STATUSES.join(", ")}`)
  }
  const body = normalized.slice(normalized.indexOf("\n", statusLine.index!) + 1).trim()
  return {
    file,
    number: Number(heading[1]),
    title: heading[2]!.trim(),
    status,
    statusNote: statusLine[2]!.trim(),
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
  const note = decision.statusNote === "" ? "" : ` ${decision.statusNote}`
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
    `Status: ${decision.status}${note}. Source: [docs/decisions/${decision.file}](../../decisions/${decision.file}).`,
    "",
    rewriteLinks(decision.body),
    ""
  ].join("\n")
}

/** Every generated document, by file name, in number order. */
export const renderAll = (): Map<string, string> => {
  const files = readdirSync(DECISIONS_DIR).filter((file) => /^\d{4}-.+\.md$/.test(file)).sort()
  const out = new Map<string, string>()
  for (const file of files) {
    out.set(file, renderDecision(parseDecision(file, readFileSync(join(DECISIONS_DIR, file), "utf8"))))
  }
  return out
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
  return rendered.size
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = writeAll()
  process.stdout.write(`wrote ${count} decision records to ${relative(ROOT, VAULT_DECISIONS_DIR)}\n`)
}
