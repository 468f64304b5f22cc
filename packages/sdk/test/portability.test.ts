import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const sourceDir = join(import.meta.dirname, "..", "src")
const sourceFiles = readdirSync(sourceDir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
const importsOf = (file: string): Array<string> =>
  [...readFileSync(join(sourceDir, file), "utf8").matchAll(/^(?:import|export)\b[\s\w{},*$]*?from\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm)]
    .map((match) => match[1] ?? match[2])

describe("portability", () => {
  it("imports only relative modules, ky and the contracts' types: nothing Node-only", () => {
    const foreign = sourceFiles.flatMap((file) =>
      importsOf(file).filter((specifier) => !specifier.startsWith(".") && specifier !== "ky" && specifier !== "@core/contracts").map((specifier) => `${file}: ${specifier}`)
    )
    expect(sourceFiles.length).toBeGreaterThan(5)
    expect(foreign).toEqual([])
  })

  it("uses @core/contracts for types only, so zod stays out of the bundle", () => {
    const runtimeContracts = sourceFiles.filter((file) => /^import\s+(?!type\b)[^;]*"@core\/contracts"/m.test(readFileSync(join(sourceDir, file), "utf8")))
    expect(runtimeContracts).toEqual([])
  })
})
