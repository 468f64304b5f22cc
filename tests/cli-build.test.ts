import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { cliRoot, runCore } from "../packages/cli/test/run-core.js"

// The one build every test of the real binary shares (packages/cli/test/built-cli.ts, decision 0266).
let bundle = ""
let builtLauncher = ""

beforeAll(async () => {
  ;({ bundle, launcher: builtLauncher } = await builtCli())
}, 180_000)

describe("core (bundled by tsup into dist/core.js)", () => {
  it("is one executable ESM file with a shebang that imports only Node built-ins", () => {
    const code = readFileSync(bundle, "utf8")
    expect(code.startsWith("#!/usr/bin/env node\n")).toBe(true)
    expect(statSync(bundle).mode & 0o111).not.toBe(0)
    const imported = [...code.matchAll(/^import\b[\s\w{},*$]*?from\s+"([^"]+)"/gm)].map((match) => match[1])
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)])
    expect(imported.filter((specifier) => !builtins.has(specifier))).toEqual([])
    // The catalogue's zod schemas never ship with the CLI; its route table (about 15 KB) does. A command
    // group costs about 11-18 KB; the budget, its measurements and their history: decision 0488.
    expect(code).not.toContain("safeParse")
    // 450 KB since core webhooks, core events and core listen (441,683 bytes then; 425 KB before).
    expect(statSync(bundle).size).toBeLessThan(450_000)
  })

  it("answers exactly as the source does", async () => {
    const cases = [["--help"], ["--version"], ["--version", "--json"], ["--help", "--json"], ["help", "help"], ["hepl"], ["--frob"], ["nope", "--json"],
      ["help", "keys", "create"], ["keys", "--help"], ["whoami", "--jsn"], ["keys", "revoke", "key_1"], ["keys", "list", "--limit", "0", "--json"],
      ["help", "stacks", "publish"], ["stacks", "deprecate", "web-app", "1.0.0"], ["stacks", "publish", "web-app", "1.0.0"],
      ["help", "platforms", "list"], ["platforms", "cancel", "plt_1"], ["platforms", "list", "--tier", "gold", "--json"],
      ["help", "tenants", "delete"], ["tenants", "delete", "ent_1", "--cascade"], ["tenants", "list", "--type", "org", "--json"],
      ["help", "resources", "secrets"], ["resources", "delete", "res_1"], ["features", "activate", "billing", "--json"],
      ["help", "jobs", "watch"], ["jobs", "list", "--status", "DONE"], ["dlq", "replay", "--json"]]
    // Three cases at a time (six processes): the source's runs through tsx dominate the test's time.
    const pending = [...cases]
    const worker = async () => {
      for (let args = pending.shift(); args !== undefined; args = pending.shift()) {
        const [built, source] = await Promise.all([runCore(args, { bin: builtLauncher }), runCore(args, { env: { CORE_CLI_SOURCE: "1" } })])
        expect({ args, ...built }).toEqual({ args, ...source })
      }
    }
    await Promise.all([worker(), worker(), worker()])
  }, 240_000) // 56 processes, half of them through tsx: minutes on a loaded 2-core machine

  it("--version equals the package version and unknown commands exit 2", async () => {
    const { version } = JSON.parse(readFileSync(join(cliRoot, "package.json"), "utf8")) as { version: string }
    expect(await runCore(["--version"], { bin: builtLauncher })).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" })
    expect(await runCore(["nope"], { bin: builtLauncher })).toMatchObject({ code: 2, stdout: "", stderr: expect.stringContaining("Unknown command 'nope'") })
  })
})

describe("the shared build (packages/cli/test/built-cli.ts)", () => {
  it("is built once when two processes want it at the same time, and reused after", async () => {
    const cache = mkdtempSync(join(tmpdir(), "core-cli-cache-"))
    try {
      const script = `import { builtCli } from ${JSON.stringify(join(cliRoot, "test", "built-cli.ts"))}; const b = await builtCli(); console.log(JSON.stringify(b))`
      const want = async () => {
        const { stdout } = await promisify(execFile)(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script], {
          env: { ...process.env, CORE_CLI_BUILD_CACHE: cache }, timeout: 150_000
        })
        return JSON.parse(stdout) as { dir: string; built: boolean }
      }
      const [first, second] = await Promise.all([want(), want()])
      expect(first.dir).toBe(second.dir)
      expect([first.built, second.built].filter(Boolean)).toHaveLength(1)
      expect(readdirSync(cache)).toEqual([first.dir.split("/").pop()]) // no lock or staging folder left
      expect(await want()).toEqual({ ...first, built: false })
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  }, 180_000)
})
