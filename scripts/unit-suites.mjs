#!/usr/bin/env node
// The unit test files: those of packages/*, tests/ and examples/ that reach no database or Redis
// (the second pass's pattern, scripts/ci-database-suites.mjs) and start no process, thread,
// server, browser or embedded database — directly or through a test-support module they import.
// vitest.config.ts runs them as the `unit` project (threads, one module graph per worker: they
// share no state but their sources), first, and leaves them out of `packages` and `e2e` (an
// end-to-end folder's file that starts nothing is a unit file too, decision 0627); `npm run
// test:quick` runs that project alone (decision 0590).
//
//   node scripts/unit-suites.mjs            one path a line
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { reaches, testFiles, touchesStore } from "./ci-database-suites.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))

/**
 * What a unit test never does: start a server, a process, a thread, a browser or an embedded
 * database (PGlite), or listen on a port.
 */
export const STARTS = /ServerProcess|Database\.layer|CORE_DATA_DIR|dataDir|useServer|child_process|worker_threads|new Worker|\.listen\(|createServer|\bserve\(|playwright|SMTPServer|PGlite|Pglite|pglite|node:net|node:http\b/

/** The unit test files, relative to the repository, sorted. */
export const unitFiles = () =>
  testFiles()
    .filter((file) => !touchesStore(file) && !reaches(file, STARTS))
    .map((file) => relative(root, file))

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${unitFiles().join("\n")}\n`)
