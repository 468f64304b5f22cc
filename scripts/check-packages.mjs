#!/usr/bin/env node
// Lints packed tarballs the way a registry user receives them (decision 0531):
// - publint, every suggestion, warning and error counted (strict);
// - @arethetypeswrong/cli with the `esm-only` profile (the packages are ESM only, decision 0530;
//   Node ≥ 20.19 `require`s them as ESM), for every package that ships types.
//
//   node scripts/check-packages.mjs <tarball.tgz>...        (exit 1 when any package has a problem)
//
// The tarballs come from scripts/pack-packages.mjs (the same `npm pack` that `attw --pack` runs).
// attw runs in this process, through the library its command line is made of
// (@arethetypeswrong/core, with the command's own exit rule and report): one TypeScript loaded for
// every tarball instead of one `attw` process per package, most of whose CPU was its start-up.
import { readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core"
import { getExitCode } from "@arethetypeswrong/cli/internal/getExitCode"
import { publint } from "publint"
import { formatMessage } from "publint/utils"

/** `attw --profile esm-only`: the resolutions that profile ignores (profiles.js of @arethetypeswrong/cli). */
const ESM_ONLY = { ignoreRules: [], ignoreResolutions: ["node10", "node16-cjs"] }

/** attw's table for a failed package, as `attw --format ascii --no-color --no-emoji` prints it. */
const attwReport = async (analysis) => {
  process.env.FORCE_COLOR = "0"
  const { typed } = await import("@arethetypeswrong/cli/internal/render")
  return typed(analysis, { ...ESM_ONLY, emoji: false, summary: true, format: "ascii" })
}

/** publint's messages and attw's verdict for one tarball: `problems` is empty when it passes. */
export const checkTarball = async (tarball) => {
  const problems = []
  const buffer = await readFile(tarball)
  const { messages, pkg } = await publint({ pack: { tarball: buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) }, level: "suggestion", strict: true })
  for (const message of messages) problems.push(`publint ${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`)
  const typed = pkg.types !== undefined || JSON.stringify(pkg.exports ?? {}).includes('"types"')
  if (typed) {
    const analysis = await checkPackage(createPackageFromTarballData(new Uint8Array(buffer)))
    if (getExitCode(analysis, ESM_ONLY) !== 0) problems.push(`attw (esm-only) failed:\n${await attwReport(analysis)}`)
  }
  return { name: pkg.name, typed, problems }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = []
  for (const tarball of process.argv.slice(2)) results.push(await checkTarball(tarball))
  for (const { name, typed, problems } of results)
    process.stdout.write(`${problems.length === 0 ? "ok  " : "FAIL"} ${name}${typed ? "" : " (no types: publint only)"}\n${problems.map((line) => `  ${line}\n`).join("")}`)
  process.exit(results.some(({ problems }) => problems.length > 0) ? 1 : 0)
}
