import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { runsOncePerCi } from "./support/once.js"

/**
 * docs/getting-started.md as a newcomer follows it: every `sh` block, in order, in one bash, against
 * the all-in-one server started as `npm start` starts it, with the real `core` binary (the shared
 * build, decision 0266). The `console` blocks (`npm install`, `npm start`) are what this test does
 * itself. Once per CI run.
 */
const SLOW = 300_000
const GUIDE = fileURLToPath(new URL("../docs/getting-started.md", import.meta.url))

/** The `sh` blocks of a Markdown page, in order. */
export const shellBlocks = (markdown: string): Array<string> =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)

describe.runIf(runsOncePerCi)("docs/getting-started.md, run as written", () => {
  const server = useServer({}, SLOW)
  const work = mkdtempSync(join(tmpdir(), "getting-started-"))
  let bin = ""

  beforeAll(async () => {
    bin = (await builtCli()).bundle
  }, SLOW)
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it("goes from sign-up to a deployed site and its usage in billing", async () => {
    const blocks = shellBlocks(readFileSync(GUIDE, "utf8"))
    expect(blocks.length).toBeGreaterThanOrEqual(5)
    // `alias core="npx core"` does not expand in a script's bash; the function runs the built binary.
    const script = [`set -euo pipefail`, `core() { node ${JSON.stringify(bin)} "$@"; }`, ...blocks.map((block, index) => `echo "--- block ${index + 1}"\n${block}`)].join("\n")
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile("bash", ["-c", script], {
        cwd: work,
        timeout: 240_000,
        env: { PATH: process.env.PATH ?? "", HOME: work, NO_COLOR: "1", CI: "1", CORE_API_URL: server.base }
      }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })))
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    const out = run.stdout
    expect(out).toMatch(/--- block 1\nok\n/)
    expect(out).toContain("ada@example.com")
    expect(out).toMatch(/Live at http:\/\/acme\.localhost:\d+\//)
    expect(out).toContain("<h1>Hello from Core</h1>")
    expect(out).toMatch(/Builds +2 +100 /)
    expect(out).toMatch(/free +\$0\.00\/month/)
  }, SLOW)
})
