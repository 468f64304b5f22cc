#!/usr/bin/env node
// How long each test file took, so that the next slow file is seen the day it lands.
//
// As a vitest reporter (vitest.config.ts adds it when CORE_TEST_TIMES names a file): appends one
// JSON line per test file to that file — { pass, file, project, state, ms, collectMs, runMs } where
// `ms` is the file's own time in its worker (environment, setup files, import and collect, then its
// tests and hooks), `cpuMs` and `childCpuMs` the CPU it used in its worker and in the processes it
// started (tests/support/fileCpu.ts: unlike `ms`, a busy machine does not inflate them), and `pass`
// is CORE_TEST_PASS (CI's "pglite" or "postgres").
//
// As a script: prints the slowest files of one or more such files, slowest first.
//
//   node scripts/file-times.mjs [--top 15] <times.jsonl>...
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

const root = fileURLToPath(new URL("..", import.meta.url))

/** A vitest reporter writing one line per finished file to `CORE_TEST_TIMES`. */
export default class FileTimes {
  /** @param {{ out?: string }} [options] the JSON-lines file (default `CORE_TEST_TIMES`) */
  constructor(options = {}) {
    this.out = options.out ?? process.env.CORE_TEST_TIMES
  }

  /** @param {ReadonlyArray<any>} files vitest's finished file tasks */
  onFinished(files = []) {
    if (this.out === undefined || this.out === "") return
    const pass = process.env.CORE_TEST_PASS ?? ""
    const lines = files.map((file) => {
      const collectMs = Math.round(file.collectDuration ?? 0)
      const runMs = Math.round(file.result?.duration ?? 0)
      const ms = Math.round((file.environmentLoad ?? 0) + (file.prepareDuration ?? 0) + (file.setupDuration ?? 0)) + collectMs + runMs
      const cpu = { cpuMs: file.meta?.cpuMs, childCpuMs: file.meta?.childCpuMs }
      return JSON.stringify({ pass, file: relative(root, file.filepath), project: file.projectName ?? "", state: file.result?.state ?? "skip", ms, collectMs, runMs, ...cpu })
    })
    if (lines.length > 0) appendFileSync(this.out, `${lines.join("\n")}\n`)
  }
}

/** The `top` slowest lines of the given JSON-lines files, slowest first. */
export const slowest = (paths, top = 15) =>
  paths
    .filter((path) => existsSync(path))
    .flatMap((path) => readFileSync(path, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line)))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top)

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`.padStart(9)

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "15" } } })
  const rows = slowest(positionals, Number(values.top))
  process.stdout.write(`The ${rows.length} slowest test files (time in their worker; of it, import and collect; CPU in the worker and in the processes it started):\n`)
  const cpu = (ms) => (ms === undefined ? "        -" : seconds(ms))
  for (const row of rows) process.stdout.write(`${seconds(row.ms)} ${seconds(row.collectMs)} ${cpu(row.cpuMs)} ${cpu(row.childCpuMs)}  ${row.pass.padEnd(8)} ${row.file}${row.state === "fail" ? " (failed)" : ""}\n`)
}
