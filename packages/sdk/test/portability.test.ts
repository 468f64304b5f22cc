import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const sourceDir = join(import.meta.dirname, "..", "src")
const sourceFiles = readdirSync(sourceDir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
const importsOf = (file: string): Array<string> =>
  [...readFileSync(join(sourceDir, file), "utf8").matchAll(/^(?:import|export)\b[\s\w{},*$]*?from\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm)]
    .map((match) => match[1] ?? match[2])

describe("portability", () => {
  it("imports only relative modules, ky and @core/contracts: nothing Node-only", () => {
    const foreign = sourceFiles.flatMap((file) =>
      importsOf(file).filter((specifier) => !specifier.startsWith(".") && specifier !== "ky" && specifier !== "@core/contracts").map((specifier) => `${file}: ${specifier}`)
    )
    expect(sourceFiles.length).toBeGreaterThan(5)
    expect(foreign).toEqual([])
  })

  it("writes no path in a service's resources: each method calls a route of the contracts' catalogue", () => {
    const resources = sourceFiles.filter((file) => /^resources[\\/]iam-/.test(file))
    const paths = resources.flatMap((file) =>
      [...readFileSync(join(sourceDir, file), "utf8").matchAll(/["'`]\/[^"'`]*["'`]|\/api\//g)].map((match) => `${file}: ${match[0]}`)
    )
    expect(resources.length).toBe(4)
    expect(paths).toEqual([])
  })
})
