import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"
import { describe, expect, it } from "vitest"

const sourceDir = join(import.meta.dirname, "..", "src")
const sourceFiles = readdirSync(sourceDir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
const importsOf = (file: string): Array<string> =>
  [...readFileSync(join(sourceDir, file), "utf8").matchAll(/^(?:import|export)\b[\s\w{},*$]*?from\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm)]
    .map((match) => match[1] ?? match[2])

/**
 * The most bytes the minified browser bundle may have besides the generated route table The table holds
 * every catalogued route's ref (the SDK maps a declaration to its gateway prefix with it) and grows
 * with the catalogues, so it is bounded per route instead. The budget, its measurements and their
 * history: decision 0334.
 */
const CODE_LIMIT = 44 * 1024 // 42 KB until the webhooks and events namespaces joined the client (43,141 bytes then)
const BYTES_PER_ROUTE = 140
/** The most bytes `verifyWebhook` alone may bundle to (Web Crypto only; measured 1,464). */
const WEBHOOK_LIMIT = 2 * 1024
const routeTable = join(import.meta.dirname, "..", "..", "contracts", "src", "generated", "routeTable.ts")

describe("portability", () => {
  it("imports only relative modules, ky and @core/contracts: nothing Node-only", () => {
    const foreign = sourceFiles.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => !specifier.startsWith(".") && !["ky", "@core/contracts", "@core/contracts/routes"].includes(specifier))
        .map((specifier) => `${file}: ${specifier}`)
    )
    expect(sourceFiles.length).toBeGreaterThan(5)
    expect(foreign).toEqual([])
  })

  it("uses @core/contracts for types only, and its zod-free @core/contracts/routes at run time", () => {
    const runtimeContracts = sourceFiles.filter((file) => /^import\s+(?!type\b)[^;]*"@core\/contracts"/m.test(readFileSync(join(sourceDir, file), "utf8")))
    expect(runtimeContracts).toEqual([])
  })

  it("writes no path in a service's resources: each method calls a route ref generated from the contracts' catalogue", () => {
    const resources = sourceFiles.filter((file) => /^resources[\\/]iam-/.test(file))
    const paths = resources.flatMap((file) =>
      [...readFileSync(join(sourceDir, file), "utf8").matchAll(/["'`]\/[^"'`]*["'`]|\/api\//g)].map((match) => `${file}: ${match[0]}`)
    )
    expect(resources.length).toBe(4)
    expect(paths).toEqual([])
  })

  it("bundles for the browser without zod: its own code under 44 KB minified, the route table about 100 bytes a route", async () => {
    // What an app that talks to Core imports: the client (webhook verification is bundled apart, below).
    const result = await build({
      stdin: { contents: `export { createClient } from "./index.ts"`, resolveDir: sourceDir, loader: "ts" },
      bundle: true,
      write: false,
      metafile: true,
      minify: true,
      format: "esm",
      platform: "browser",
      conditions: ["source"],
      logLevel: "silent"
    })
    const inputs = Object.keys(result.metafile.inputs)
    const bundle = result.outputFiles[0].contents
    expect(inputs.filter((input) => /[\\/]zod[\\/]/.test(input))).toEqual([])
    // Only the zod-free modules of the contracts: no schema, no catalogue.
    expect(inputs.filter((input) => input.includes("contracts/src/") && !/contracts\/src\/(RouteTable|RouteRefs|Routes|GatewayPrefixes|generated\/routeTable|iam\/device-constants)\.ts$/.test(input)))
      .toEqual([])
    const output = Object.values(result.metafile.outputs)[0]!
    const tableBytes = Object.entries(output.inputs).find(([input]) => input.endsWith("generated/routeTable.ts"))?.[1].bytesInOutput ?? 0
    const routes = readFileSync(routeTable, "utf8").match(/successStatus:/g)?.length ?? 0
    const sizes = `minified ${bundle.length} bytes (${tableBytes} of them the route table of ${routes} routes), ${gzipSync(bundle).length} gzipped`
    expect(bundle.length - tableBytes, sizes).toBeLessThan(CODE_LIMIT)
    expect(routes).toBeGreaterThan(50)
    expect(tableBytes, sizes).toBeLessThan(routes * BYTES_PER_ROUTE)
  })

  it("verifies webhooks without the client: verifyWebhook alone bundles under 2 KB, with nothing of ky or the route table", async () => {
    const result = await build({
      stdin: { contents: `export { verifyWebhook } from "./index.ts"`, resolveDir: sourceDir, loader: "ts" },
      bundle: true,
      write: false,
      metafile: true,
      minify: true,
      format: "esm",
      platform: "browser",
      conditions: ["source"],
      logLevel: "silent"
    })
    const output = Object.values(result.metafile.outputs)[0]!
    const contributing = Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([path]) => path)
    expect(contributing.filter((input) => /[\\/](ky|zod)[\\/]|routeTable/.test(input))).toEqual([])
    expect(result.outputFiles[0].contents.length).toBeLessThan(WEBHOOK_LIMIT)
  })
})
