#!/usr/bin/env node
// The SDK's declarations, one .d.ts per module (decision 0600), with the contracts' inside
// the package (decision 0601):
//   1. tsc writes @core/contracts' declarations into dist/contracts/ (its tsconfig.build.json);
//   2. tsc writes the SDK's own into dist/ against them (tsconfig.types.json maps the specifiers);
//   3. the SDK's `@core/contracts` and `@core/contracts/routes` specifiers become relative paths
//      into dist/contracts/, so the published types need no @core/contracts package;
//   4. the main entry's declarations name the contracts' types written out (dist/types.d.ts,
//      scripts/flatten-types.mjs, decision 0635), so they load neither zod nor the contracts.
// Runs after tsup (which empties dist/ and writes the JavaScript): `npm run build`.
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { flattenTypes } from "./flatten-types.mjs"

const sdk = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(sdk, "dist")
const tsc = createRequire(join(sdk, "package.json")).resolve("typescript/bin/tsc")

const compile = (args) => execFileSync(process.execPath, [tsc, ...args], { cwd: sdk, stdio: "inherit" })
// CORE_SDK_CONTRACTS_DECLARATIONS=<dir>: the contracts' declarations as tsc already wrote them from
// packages/contracts/src with the same settings (scripts/pack-packages.mjs's one program for every
// package, decision 0636), copied instead of compiled a second time: the same files, without their maps.
const contractsFrom = process.env.CORE_SDK_CONTRACTS_DECLARATIONS
if (contractsFrom !== undefined && contractsFrom !== "") {
  for (const file of readdirSync(contractsFrom, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".d.ts"))) {
    mkdirSync(dirname(join(dist, "contracts", file)), { recursive: true })
    writeFileSync(join(dist, "contracts", file), readFileSync(join(contractsFrom, file), "utf8").replace(/\n?\/\/# sourceMappingURL=[^\n]*\n?$/, "\n").replace(/\n\n$/, "\n"))
  }
} else {
  compile(["-p", join(sdk, "..", "contracts", "tsconfig.build.json"), "--outDir", join(dist, "contracts"), "--declarationMap", "false"])
}
// CORE_SDK_TYPES_NO_CHECK=1: emit the SDK's declarations without type-checking its sources again
// (tsc's noCheck: the same output), for a caller that type-checks them anyway (the test suite).
compile(["-p", join(sdk, "tsconfig.types.json"), ...(process.env.CORE_SDK_TYPES_NO_CHECK === "1" ? ["--noCheck"] : [])])

const TARGETS = { "@core/contracts": "contracts/index.js", "@core/contracts/routes": "contracts/RouteTable.js" }
const own = readdirSync(dist, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".d.ts") && !file.startsWith(`contracts${sep}`))
for (const file of own) {
  const path = join(dist, file)
  const text = readFileSync(path, "utf8")
  // Module specifiers only (`from "…"`, `import("…")`), not the doc comments' examples.
  const rewritten = text.replace(/(\bfrom\s+|\bimport\(\s*)(["'])(@core\/contracts(?:\/routes)?)\2/g, (_, before, quote, specifier) => {
    const target = relative(dirname(path), join(dist, TARGETS[specifier])).split(sep).join("/")
    return `${before}${quote}${target.startsWith(".") ? target : `./${target}`}${quote}`
  })
  if (/(\bfrom\s+|\bimport\(\s*)["']@core\/(?!sdk\b)/.test(rewritten)) throw new Error(`dist/${file} still imports another @core package`)
  if (rewritten !== text) writeFileSync(path, rewritten)
}
flattenTypes({ sdk, dist })
