import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { environment, root } from "../packages/server/test/ServerProcess.js"
import { runsOncePerCi } from "./support/once.js"

/**
 * The READMEs of examples/hono-host and examples/express-host as a newcomer follows them:
 * each example started as `npm start` starts it (its `src/main.ts`, in its own process, on PGlite),
 * then the README's `sh` block in bash with `BASE` set to it — sign-up, organization setup, the
 * active organization, `/me` — ending with the user's platform and subscription, not
 * `"platform": null`. Everything the example logs is in the server's format: one JSON object a line
 * with `timestamp`, `level` and `message` (no Effect logfmt). Once per CI run.
 */
const SLOW = 180_000

/** The `sh` blocks of a Markdown page, in order. */
const shellBlocks = (markdown: string): Array<string> => [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)

const EXAMPLES = [
  { name: "hono-host", banner: /Hono host on (http:\/\/localhost:\d+)/ },
  { name: "express-host", banner: /Express host on (http:\/\/127\.0\.0\.1:\d+)/ }
] as const

for (const example of EXAMPLES) {
  describe.runIf(runsOncePerCi)(`examples/${example.name}/README.md, run as written`, () => {
    const work = mkdtempSync(join(tmpdir(), `${example.name}-readme-`))
    let child: ChildProcess
    let base = ""
    let stdout = ""
    let stderr = ""

    beforeAll(async () => {
      child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", `examples/${example.name}/src/main.ts`], {
        cwd: root,
        env: environment({ PORT: "0", CORE_DATA_DIR: join(work, "data"), CORE_SECRET: `${example.name}-readme-0123456789abcdef` }),
        stdio: ["ignore", "pipe", "pipe"]
      })
      base = await new Promise<string>((resolve, reject) => {
        const look = () => {
          const found = example.banner.exec(stdout + stderr)
          if (found !== null) resolve(found[1]!)
        }
        child.stdout!.setEncoding("utf8").on("data", (chunk: string) => ((stdout += chunk), look()))
        child.stderr!.setEncoding("utf8").on("data", (chunk: string) => ((stderr += chunk), look()))
        child.once("exit", () => reject(new Error(`${example.name} exited:\n${stdout}\n${stderr}`)))
      })
    }, SLOW)

    afterAll(async () => {
      if (child !== undefined && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        child.kill("SIGTERM")
        await exited
      }
      rmSync(work, { recursive: true, force: true })
    }, SLOW)

    it("sign-up, organization setup and the active organization end with /me showing the platform", async () => {
      const blocks = shellBlocks(readFileSync(join(root, "examples", example.name, "README.md"), "utf8"))
      expect(blocks).toHaveLength(1)
      const run = await new Promise<{ code: number; out: string; err: string }>((resolve) =>
        execFile("bash", ["-c", `set -euo pipefail\n${blocks[0]}`], {
          cwd: work,
          timeout: 120_000,
          env: { PATH: process.env.PATH ?? "", HOME: work, BASE: base }
        }, (error, out, err) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, out, err })))
      expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: "" })
      expect(JSON.parse(run.out)).toEqual({
        email: "ada@example.com",
        platform: { slug: "acme", status: "active" },
        subscription: { tier: "free", status: "active" }
      })
    }, SLOW)

    it("logs as core-server does: JSON lines with timestamp, level and message, no logfmt", () => {
      const lines = `${stdout}\n${stderr}`.split("\n").filter((line) => line.trim() !== "" && !example.banner.test(line))
      expect(lines.length).toBeGreaterThan(10)
      const notJson = lines.filter((line) => {
        try {
          const entry = JSON.parse(line) as Record<string, unknown>
          return !(typeof entry.timestamp === "string" && typeof entry.level === "string" && typeof entry.message === "string")
        } catch {
          return true
        }
      })
      expect(notJson).toEqual([])
      expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toContain("migration applied")
    })
  })
}
