import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliRoot, launcher, runCore } from "../packages/cli/test/run-core.js"

const staging = mkdtempSync(join(tmpdir(), "core-cli-build-"))
const bundle = join(staging, "dist", "core.js")
const builtLauncher = join(staging, "bin", "core.mjs")

beforeAll(async () => {
  const tsup = join(cliRoot, "..", "..", "node_modules", ".bin", "tsup")
  await promisify(execFile)(tsup, ["--out-dir", join(staging, "dist")], { cwd: cliRoot, timeout: 120_000 })
  mkdirSync(join(staging, "bin"))
  copyFileSync(launcher, builtLauncher)
}, 180_000)

afterAll(() => rmSync(staging, { recursive: true, force: true }))

describe("core (bundled by tsup into dist/core.js)", () => {
  it("is one executable ESM file with a shebang that imports only Node built-ins", () => {
    const code = readFileSync(bundle, "utf8")
    expect(code.startsWith("#!/usr/bin/env node\n")).toBe(true)
    expect(statSync(bundle).mode & 0o111).not.toBe(0)
    const imported = [...code.matchAll(/^import\b[\s\w{},*$]*?from\s+"([^"]+)"/gm)].map((match) => match[1])
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)])
    expect(imported.filter((specifier) => !builtins.has(specifier))).toEqual([])
    // The catalogue's zod schemas never ship with the CLI; its route table (about 9 KB) does. Issue 12 adds
    // `core stacks` (about 8 KB) and the registry's commands: the budget is 290 KB (decision 0224).
    expect(code).not.toContain("safeParse")
    expect(statSync(bundle).size).toBeLessThan(290_000)
  })

  it("answers exactly as the source does", async () => {
    const cases = [["--help"], ["--version"], ["--version", "--json"], ["--help", "--json"], ["help", "help"], ["hepl"], ["--frob"], ["nope", "--json"],
      ["help", "keys", "create"], ["keys", "--help"], ["whoami", "--jsn"], ["keys", "revoke", "key_1"], ["keys", "list", "--limit", "0", "--json"],
      ["help", "stacks", "publish"], ["stacks", "deprecate", "web-app", "1.0.0"], ["stacks", "publish", "web-app", "1.0.0"],
      ["help", "platforms", "list"], ["platforms", "cancel", "plt_1"], ["platforms", "list", "--tier", "gold", "--json"]]
    for (const args of cases) {
      const [built, source] = await Promise.all([runCore(args, { bin: builtLauncher }), runCore(args, { env: { CORE_CLI_SOURCE: "1" } })])
      expect({ args, ...built }).toEqual({ args, ...source })
    }
  })

  it("--version equals the package version and unknown commands exit 2", async () => {
    const { version } = JSON.parse(readFileSync(join(cliRoot, "package.json"), "utf8")) as { version: string }
    expect(await runCore(["--version"], { bin: builtLauncher })).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" })
    expect(await runCore(["nope"], { bin: builtLauncher })).toMatchObject({ code: 2, stdout: "", stderr: expect.stringContaining("Unknown command 'nope'") })
  })
})
