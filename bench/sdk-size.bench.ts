import { gzipSync } from "node:zlib"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import type { Figures } from "./Figures.js"

/** The target (decision 0511): the core client with one namespace, minified and gzipped. */
const TARGET_GZIP_BYTES = 15_000

const source = fileURLToPath(new URL("../packages/sdk/src/index.ts", import.meta.url))
const NAMESPACES = ["iam", "registry", "stacks", "provisioning", "billing", "deploy", "vault"] as const

interface Size {
  readonly name: string
  readonly minified: number
  readonly gzipped: number
  readonly table: number
}

/** esbuild, browser platform, ESM, minified and tree-shaken, as an app's bundler would; gzip level 9. */
const measure = async (name: string, code: string): Promise<Size> => {
  const result = await build({
    stdin: { contents: code, resolveDir: fileURLToPath(new URL(".", import.meta.url)), loader: "ts" },
    bundle: true,
    write: false,
    metafile: true,
    minify: true,
    treeShaking: true,
    format: "esm",
    platform: "browser",
    conditions: ["source"],
    logLevel: "silent"
  })
  const bytes = result.outputFiles[0]!.contents
  const output = Object.values(result.metafile.outputs)[0]!
  const table = Object.entries(output.inputs).find(([input]) => input.endsWith("generated/routeTable.ts"))?.[1].bytesInOutput ?? 0
  return { name, minified: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length, table }
}

const kb = (bytes: number) => (bytes / 1000).toFixed(1)

/**
 * Bundle size of `@core/sdk`: `createCoreClient` alone, with each namespace alone, and
 * `createClient` (every namespace), against the 15 kB gzipped target (decision 0511) for the core client
 * with one namespace; each ratio is to `createClient` measured in the same run. Sizes do not
 * depend on the machine's load (no A-B-B-A needed).
 */
export const run = async (): Promise<Figures> => {
  const sizes: Array<Size> = [await measure("createCoreClient (no namespace)", `import { createCoreClient } from ${JSON.stringify(source)}; export const c = createCoreClient({ baseUrl: "http://x" })`)]
  for (const namespace of NAMESPACES) {
    sizes.push(await measure(`createCoreClient + ${namespace}`, `import { createCoreClient, ${namespace} } from ${JSON.stringify(source)}; export const c = createCoreClient({ baseUrl: "http://x" }, { ${namespace} })`))
  }
  const all = await measure("createClient (all seven)", `import { createClient } from ${JSON.stringify(source)}; export const c = createClient({ baseUrl: "http://x" })`)
  sizes.push(all)
  const largestOne = Math.max(...sizes.slice(1, -1).map((size) => size.gzipped))
  return {
    title: "@core/sdk browser bundle (esbuild, minified, tree-shaken; gzip -9), in kB (1000 bytes)",
    columns: ["client", "minified kB", "gzipped kB", "route table kB (min)", "× createClient (gz)", "of 15 kB target"],
    rows: sizes.map((size) => [
      size.name,
      kb(size.minified),
      kb(size.gzipped),
      kb(size.table),
      (size.gzipped / all.gzipped).toFixed(2),
      `${Math.round((size.gzipped / TARGET_GZIP_BYTES) * 100)} %`
    ]),
    checks: [
      `core client with one namespace: at most ${kb(largestOne)} kB gzipped (target ≤ 15 kB): ${largestOne <= TARGET_GZIP_BYTES ? "met" : "NOT met"}`,
      `createClient with every namespace: ${kb(all.gzipped)} kB gzipped (no target; printed for comparison)`
    ]
  }
}
