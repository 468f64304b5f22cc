/**
 * The decision log's index (`docs/decisions/README.md`) is generated and up to date, and every
 * status points somewhere real: a record amended or superseded names records that exist (and a
 * superseded one names the record that survives, not another superseded one) or a living document
 * of the repository (decision 0665).
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { INDEX_FILE, parseDecision, readAll, renderIndex, ROOT } from "../../../scripts/vault-decisions.js"

const decisions = readAll()
const byNumber = new Map(decisions.map((d) => [String(d.number).padStart(4, "0"), d]))

const record = (status: string) => `# 0900 — A choice\n\nStatus: ${status}\nArea: docs\n\n## Decision\nIt.\n`

describe("a record's status", () => {
  it("names what amends it, not what it amends itself", () => {
    const d = parseDecision("0900-a-choice.md", record("amended by [0590](0590-x.md), 0620 (amends 0023)"))
    expect([d.logStatus, d.status, d.by, d.area, d.body]).toEqual(["amended by", "accepted", ["0590", "0620"], "docs", "## Decision\nIt."])
  })

  it("is superseded by a record or by a living document, as a repository path", () => {
    expect(parseDecision("0900-a-choice.md", record("superseded by [0488](0488-x.md)")).by).toEqual(["0488"])
    const d = parseDecision("0900-a-choice.md", record("superseded by [docs/billing.md](../billing.md)"))
    expect([d.status, d.by]).toEqual(["superseded", ["docs/billing.md"]])
  })

  it("refuses an unknown status, a missing area, and a `by` that names nothing", () => {
    expect(() => parseDecision("0900-a-choice.md", record("decided"))).toThrow(/status 'decided'/)
    expect(() => parseDecision("0900-a-choice.md", "# 0900 — A choice\n\nStatus: accepted\n")).toThrow(/Area/)
    expect(() => parseDecision("0900-a-choice.md", record("superseded by later"))).toThrow(/names no record/)
  })
})

describe("the decision log's index", () => {
  it("is the one npm run generate:vault writes", () => {
    expect(readFileSync(INDEX_FILE, "utf8")).toBe(renderIndex(decisions))
  })

  it("lists every record once, numbers unique", () => {
    expect(new Set(decisions.map((d) => d.number)).size).toBe(decisions.length)
  })

  it("points every amended or superseded record at a record that stands, or a living document", () => {
    const problems: Array<string> = []
    for (const d of decisions) {
      for (const target of d.by) {
        const record = byNumber.get(target)
        if (/^\d{4}$/.test(target)) {
          if (record === undefined) problems.push(`${d.file}: ${target} is not a record`)
          else if (record.logStatus === "superseded by") problems.push(`${d.file}: ${target} is itself superseded`)
          else if (record === d) problems.push(`${d.file}: points at itself`)
        } else if (!existsSync(join(ROOT, target.split("#")[0]!))) {
          problems.push(`${d.file}: ${target} does not exist`)
        }
      }
    }
    expect(problems).toEqual([])
  })
})
