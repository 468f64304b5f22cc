#!/usr/bin/env node
// The test files whose outcome can depend on the database or Redis: CI's second pass runs these
// alone on PostgreSQL and Redis (decisions 0023, 0024). A file counts when it, or a test-support module it
// imports by a relative path (followed transitively, outside src/), names the test database, the
// HTTP harness (which migrates one), a driver, CORE_TEST_DATABASE_URL or Redis. The other files
// — contracts, the SDK against an injected fetch, argument parsing, servers on PGlite only —
// behave the same on both passes, and the first pass already ran them.
//
// Of the end-to-end files (tests/, examples/), only those whose subject differs on PostgreSQL run
// again (decision 0620): the ones with PostgreSQL-only code (`POSTGRES_ONLY`) and those named in
// `DIFFERS`; the others replay, through a server, the SQL the packages' files already run there.
//
//   node scripts/ci-database-suites.mjs            one path a line
//   node scripts/ci-database-suites.mjs --others   the files it leaves out, one a line
//   node scripts/ci-database-suites.mjs --replays  the end-to-end files it leaves out as replays
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/**
 * What marks a module as reaching the database or Redis the environment names: the test database
 * (whose drivers follow `CORE_TEST_DATABASE_URL` and `CORE_TEST_DRIVERS`), the HTTP harness (which
 * migrates one), or `REDIS_URL` read from the environment. A Redis address written in a test, or a
 * `driver` field asserted, does not vary between the passes.
 */
export const TOUCHES = /TestDatabase|makeHttpHarness|CORE_TEST_DATABASE_URL|CORE_TEST_DRIVERS|process\.env\.REDIS_URL|\bdrivers\b/

/**
 * Support modules that only offer a driver to their callers: `useServer` runs its server on PGlite
 * in a clean environment unless the caller passes `{ driver }`, and a caller that does names
 * `TestDatabase` itself. Importing one does not make a file vary; nor does `runsOncePerCi`, which
 * only skips a heavy suite on the second pass (such a file is left out of it altogether).
 */
const OFFERS = new Set(["packages/server/test/ServerProcess.ts", "tests/support/once.ts"])

const walk = (dir, found = []) => {
  if (!existsSync(dir)) return found
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, found)
    else if (name.endsWith(".test.ts")) found.push(path)
  }
  return found
}

/** Every test file vitest's projects include (vitest.config.ts). */
export const testFiles = () => [
  ...readdirSync(join(root, "packages")).flatMap((pkg) => [...walk(join(root, "packages", pkg, "test")), ...walk(join(root, "packages", pkg, "src"))]),
  ...walk(join(root, "tests")),
  ...readdirSync(join(root, "examples")).flatMap((example) => walk(join(root, "examples", example, "test")))
].sort()

const IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g

/** The file a relative specifier names (`./x.js` is `./x.ts` in these sources). */
const resolveImport = (from, specifier) => {
  const base = resolve(dirname(from), specifier)
  for (const candidate of [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return undefined
}

/**
 * Whether `file`, or a test-support module it imports by a relative path (followed transitively,
 * never into a package's src/ nor into the modules `skip` names), matches `pattern`.
 */
export const reaches = (file, pattern, skip = new Set(), seen = new Set()) => {
  if (seen.has(file)) return false
  seen.add(file)
  const text = readFileSync(file, "utf8")
  if (pattern.test(text)) return true
  for (const [, specifier] of text.matchAll(IMPORT)) {
    const target = resolveImport(file, specifier)
    if (target === undefined || /\/src\//.test(relative(root, target)) || skip.has(relative(root, target))) continue
    if (reaches(target, pattern, skip, seen)) return true
  }
  return false
}

/** Whether `file` or a test-support module it reaches (never a package's src/) touches a store. */
export const touchesStore = (file) => reaches(file, TOUCHES, OFFERS)

/**
 * What marks an end-to-end file as having code for PostgreSQL alone: a scratch database of its own,
 * the server's URL, a branch on the driver, Redis from the environment. Such a file asserts
 * something only the second pass runs.
 */
export const POSTGRES_ONLY = /scratchDatabase|TestDatabase\.url|driver === "pg"|driver !== "pglite"|process\.env\.REDIS_URL|process\.env\.CORE_TEST_DATABASE_URL/

/**
 * The end-to-end files whose outcome can differ on PostgreSQL without PostgreSQL-only code, and
 * why (decision 0620): bad bytes and crafted values reaching SQL through every route (the driver
 * and the server's own encoding answer them), and writes racing on a pool of connections (PGlite
 * has one connection, so nothing races there).
 */
export const DIFFERS = new Map([
  ["tests/billing-fuzz.test.ts", "bad input through every billing route reaches SQL"],
  ["tests/deploy-fuzz.test.ts", "bad input through every command-line backend route reaches SQL"],
  ["tests/identity-fuzz.test.ts", "bad input through every identity route reaches SQL and better-auth's adapter"],
  ["tests/provisioning-fuzz.test.ts", "bad input through every provisioning route reaches SQL"],
  ["tests/registry-fuzz.test.ts", "bad input through every registry route reaches SQL"],
  ["tests/paged-cursors.test.ts", "crafted cursors (sort keys, huge values) reach SQL comparisons"],
  ["tests/path-ids.test.ts", "ids of any shape (a NUL, a space) reach SQL parameters"],
  ["tests/deploy-concurrent.test.ts", "first deploys racing for one repository on a pool of connections"],
  ["tests/billing-usage.test.ts", "concurrent ingestion batches losing no count on a pool of connections"]
])

const endToEnd = (path) => /^(tests|examples)\//.test(path)

/** Whether the second pass runs `file` (absolute): it touches a store and, if end to end, differs there. */
export const differsOnPostgres = (file) => {
  if (!touchesStore(file)) return false
  const path = relative(root, file)
  return !endToEnd(path) || DIFFERS.has(path) || POSTGRES_ONLY.test(readFileSync(file, "utf8"))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const others = process.argv.includes("--others")
  const replays = process.argv.includes("--replays")
  const chosen = testFiles().filter((file) =>
    replays ? touchesStore(file) && !differsOnPostgres(file) : differsOnPostgres(file) !== others)
  process.stdout.write(chosen.map((file) => relative(root, file)).join("\n") + "\n")
}
