#!/usr/bin/env node
// The architecture rules of docs/architecture.md, checked on the sources (part of `npm test`):
//   sql-outside-repo        SQL (the `sql` template or its helpers) only in `*Repo.ts` of a domain package's src
//   error-outside-errors    a domain's errors (the kernel's tagged error classes) built only in its `*Errors.ts`
//   foreign-internals       no package imports another package's `src/` or `test/` (use its exports)
//   sleep-in-test           a test waits with the one polling helper (`eventually`, @core/kernel/testing/poll), never a bare
//                           `new Promise((resolve) => setTimeout(resolve, ms))`; time-based logic uses TestClock or an injected clock
// Each failure is printed as `file:line rule: what`; the exit status is 1 when any is found.
// scripts/lint-architecture.allowed.json lists the files that may break a rule, each with its reason; a listed file that no longer
// breaks its rule is a failure too, so the list only shrinks.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The packages that follow the domain template (docs/architecture.md). */
const DOMAINS = ["auth", "billing", "deploy", "provisioning", "registry", "stacks", "vault"]

/** The kernel's tagged error classes (packages/kernel/src/Errors.ts). */
const KERNEL_ERRORS = [
  "ValidationError", "InvalidJson", "Unauthorized", "PaymentFailed", "Forbidden", "InvalidRedirect",
  "NotFound", "Conflict", "InvalidState", "PreconditionFailed", "PayloadTooLarge", "UnsupportedMediaType",
  "RateLimited", "PlatformSuspended", "NotImplemented", "UpstreamUnavailable", "UpstreamTimeout", "Unavailable"
]

/** rule → file (from the repository root) → why it may break it (scripts/lint-architecture.allowed.json). */
const ALLOWED = JSON.parse(readFileSync(join(root, "scripts", "lint-architecture.allowed.json"), "utf8"))

const SQL = /\bsql(?:<[^`>]*>)?`|\bsql\.(?:unsafe|insert|update|updateValues|in|and|or|csv|join|literal)\(/
const ERROR = new RegExp(`\\bnew (${KERNEL_ERRORS.join("|")})\\(`)
const SLEEP = /new Promise(?:<[^>]*>)?\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*setTimeout\(\s*\1\s*,/
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g

const walk = (dir) => {
  let entries
  try {
    entries = readdirSync(dir)
  } catch {
    return []
  }
  return entries.flatMap((name) => {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return walk(path)
    return /\.(?:ts|tsx|mts|mjs|js)$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })
}

/** The file's lines with comments blanked, so that a rule never matches prose. */
const codeLines = (text) => {
  const out = []
  let inBlock = false
  for (const line of text.split("\n")) {
    let code = ""
    let i = 0
    while (i < line.length) {
      if (inBlock) {
        const end = line.indexOf("*/", i)
        if (end === -1) break
        inBlock = false
        i = end + 2
      } else if (line.startsWith("/*", i)) {
        inBlock = true
        i += 2
      } else if (line.startsWith("//", i) && !/["'`][^"'`]*$/.test(line.slice(0, i))) {
        break
      } else {
        code += line[i]
        i += 1
      }
    }
    out.push(code)
  }
  return out
}

const failures = []
const seen = { "sql-outside-repo": new Set(), "error-outside-errors": new Set(), "foreign-internals": new Set(), "sleep-in-test": new Set() }

const report = (rule, file, line, what) => {
  seen[rule].add(file)
  if (ALLOWED[rule]?.[file] === undefined) failures.push(`${file}:${line} ${rule}: ${what}`)
}

for (const domain of DOMAINS) {
  for (const path of walk(join(root, "packages", domain, "src"))) {
    const file = relative(root, path).split(sep).join("/")
    if (file.includes("/migrations/") || /\.test\.ts$/.test(file)) continue
    const lines = codeLines(readFileSync(path, "utf8"))
    lines.forEach((code, index) => {
      if (!/Repo\.ts$/.test(file) && SQL.test(code)) {
        report("sql-outside-repo", file, index + 1, "SQL belongs in a *Repo.ts file of its domain")
      }
      const error = ERROR.exec(code)
      if (error && !/Errors\.ts$/.test(file)) {
        report("error-outside-errors", file, index + 1, `new ${error[1]}(…) belongs in the domain's Errors.ts`)
      }
    })
  }
}

const packageDirs = ["packages", "examples"].flatMap((group) => {
  try {
    return readdirSync(join(root, group)).map((name) => join(root, group, name))
  } catch {
    return []
  }
})

for (const dir of packageDirs) {
  for (const path of walk(dir)) {
    const file = relative(root, path).split(sep).join("/")
    const lines = codeLines(readFileSync(path, "utf8"))
    lines.forEach((code, index) => {
      for (const match of code.matchAll(IMPORT)) {
        const specifier = match[1]
        const target = specifier.startsWith(".")
          ? relative(root, join(path, "..", specifier)).split(sep).join("/")
          : specifier.replace(/^@core\//, "packages/")
        const owner = /^((?:packages|examples)\/[^/]+)\/(src|test)\//.exec(target)
        if (!specifier.startsWith(".") && !specifier.startsWith("@core/")) continue
        if (owner === null || join(root, owner[1]) === dir) continue
        report("foreign-internals", file, index + 1, `imports ${specifier}: another package's ${owner[2]}/`)
      }
    })
  }
}

const testFiles = [...packageDirs.flatMap((dir) => walk(dir)), ...walk(join(root, "tests"))]
  .filter((path) => /\.test\.ts$/.test(path) || /[\\/](?:test|support)[\\/]/.test(relative(root, path)))
for (const path of testFiles) {
  const file = relative(root, path).split(sep).join("/")
  if (file === "packages/kernel/src/testing/Poll.ts") continue
  codeLines(readFileSync(path, "utf8")).forEach((code, index) => {
    if (SLEEP.test(code)) report("sleep-in-test", file, index + 1, "a bare sleep: wait with `eventually` (@core/kernel/testing/poll) for what the test needs, or use TestClock")
  })
}

for (const [rule, files] of Object.entries(ALLOWED)) {
  for (const file of Object.keys(files)) {
    if (!seen[rule].has(file)) failures.push(`${file}:1 ${rule}: allowed but no longer breaks the rule; remove it from scripts/lint-architecture.allowed.json`)
  }
}

if (failures.length > 0) {
  for (const failure of failures) console.error(failure)
  console.error(`lint-architecture: ${failures.length} problem(s) (rules: docs/architecture.md, "Rules the lint checks")`)
  process.exit(1)
}
console.log("lint-architecture: ok")
