import { join } from "node:path"
import { build } from "esbuild"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import * as Sdk from "../src/index.js"

const entry = join(import.meta.dirname, "..", "src", "index.ts")
const isEffect = (file: string): boolean => /[\\/]node_modules[\\/](effect|@effect)[\\/]/.test(file)

/**
 * No Effect in the SDK's public API or its bundle. The declarations every export's type
 * is made of come from the program rooted at `src/index.ts`; the bundle from esbuild.
 */
describe("@core/sdk has no Effect", () => {
  it("in its types: the program of src/index.ts (its types, the contracts' and ky's) reads no file of effect or @effect", () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(import.meta.dirname, "..", "tsconfig.json"), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
      }
    })!
    // Resolving and parsing only (the type check is tsc's): every file a type of the API can come from.
    const program = ts.createProgram([entry], { ...config.options, noEmit: true })
    const files = program.getSourceFiles().map((file) => file.fileName)
    expect(files.some((file) => file.includes("packages/contracts/src/"))).toBe(true)
    expect(files.filter(isEffect)).toEqual([])
  }, 60_000)

  it("in its bundle, for the browser and for Node", async () => {
    for (const platform of ["browser", "node"] as const) {
      const result = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, format: "esm", platform, conditions: ["source"], logLevel: "silent" })
      const inputs = Object.keys(result.metafile.inputs)
      expect(inputs.length).toBeGreaterThan(10)
      expect(inputs.filter(isEffect), platform).toEqual([])
    }
  })

  it("in its exports: classes and functions only, none of them an Effect value", () => {
    for (const [name, value] of Object.entries(Sdk)) {
      expect(typeof value, name).toBe("function")
      expect(Object.getOwnPropertySymbols(value).map(String).filter((symbol) => /effect/i.test(symbol)), name).toEqual([])
    }
  })
})
