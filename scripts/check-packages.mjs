#!/usr/bin/env node
// Lints packed tarballs the way a registry user receives them (decision 0531):
// - publint, every suggestion, warning and error counted (strict);
// - @arethetypeswrong/cli with the `esm-only` profile (the packages are ESM only, decision 0530;
//   Node ≥ 20.19 `require`s them as ESM), for every package that ships types.
//
//   node scripts/check-packages.mjs <tarball.tgz>...        (exit 1 when any package has a problem)
//
// The tarballs come from scripts/pack-packages.mjs (the same `npm pack` that `attw --pack` runs).
import { execFile } from "node:child_process"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { publint } from "publint"
import { formatMessage } from "publint/utils"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const attw = createRequire(join(root, "package.json")).resolve("@arethetypeswrong/cli/package.json").replace(/package\.json$/, "dist/index.js")

/** publint's messages and attw's verdict for one tarball: `problems` is empty when it passes. */
export const checkTarball = async (tarball) => {
  const problems = []
  const buffer = await readFile(tarball)
  const { messages, pkg } = await publint({ pack: { tarball: buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) }, level: "suggestion", strict: true })
  for (const message of messages) problems.push(`publint ${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`)
  const typed = pkg.types !== undefined || JSON.stringify(pkg.exports ?? {}).includes('"types"')
  if (typed) {
    const { stdout, code } = await promisify(execFile)(process.execPath, [attw, tarball, "--profile", "esm-only", "--format", "ascii", "--no-color", "--no-emoji"], { maxBuffer: 16 * 1024 * 1024 })
      .then(({ stdout }) => ({ stdout, code: 0 }), (error) => ({ stdout: `${error.stdout ?? ""}${error.stderr ?? ""}`, code: error.code ?? 1 }))
    if (code !== 0) problems.push(`attw (esm-only) failed:\n${stdout}`)
  }
  return { name: pkg.name, typed, problems }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Two at a time: attw spends its time in TypeScript, one core each.
  const tarballs = process.argv.slice(2)
  const results = new Array(tarballs.length)
  let next = 0
  const worker = async () => {
    for (let index = next++; index < tarballs.length; index = next++) results[index] = await checkTarball(tarballs[index])
  }
  await Promise.all([worker(), worker()])
  for (const { name, typed, problems } of results)
    process.stdout.write(`${problems.length === 0 ? "ok  " : "FAIL"} ${name}${typed ? "" : " (no types: publint only)"}\n${problems.map((line) => `  ${line}\n`).join("")}`)
  process.exit(results.some(({ problems }) => problems.length > 0) ? 1 : 0)
}
