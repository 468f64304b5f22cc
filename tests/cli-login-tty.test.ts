import { execFile } from "node:child_process"
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { launcher } from "../packages/cli/test/run-core.js"
import { SCRIPTED_USER_CODE, startScriptedIdentity, type ScriptedIdentity } from "../packages/cli/test/scripted-identity.js"

const hasScript = existsSync("/usr/bin/script") && process.platform === "linux"
const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`

/** Runs the real binary under a pseudo-terminal (util-linux `script`), so stdout is a TTY. */
const onTerminal = (home: TempHome, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number; output: string }>((resolve, reject) => {
    const command = `stty cols 120 rows 40; exec ${[process.execPath, launcher, ...args].map(quote).join(" ")}`
    const { CI: _ci, ...inherited } = process.env
    execFile(
      "script",
      ["-qefc", command, "/dev/null"],
      { env: { ...inherited, TERM: "xterm-256color", ...baseEnv(home, env) }, timeout: 30_000 },
      (error, stdout) => {
        if (error !== null && typeof error.code !== "number") return reject(error)
        resolve({ code: error === null ? 0 : (error.code as number), output: stdout })
      }
    )
  })

describe.skipIf(!hasScript)("core login on a terminal", () => {
  let server: ScriptedIdentity
  let home: TempHome
  let browser: string
  let opened: string

  beforeAll(async () => {
    server = await startScriptedIdentity({ polls: ["authorization_pending", "approve"] })
    home = tempHome()
    browser = join(home.home, "fake-browser")
    opened = join(home.home, "opened.txt")
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > ${quote(opened)}\n`)
    chmodSync(browser, 0o755)
  })
  afterAll(async () => {
    await server.close()
    home.remove()
  })

  it("opens the browser at verification_uri_complete and shows a spinner while polling", async () => {
    const run = await onTerminal(home, ["login", "--iam-url", server.iamUrl], { BROWSER: browser, DISPLAY: ":0", CORE_LOGIN_POLL_UNIT_MS: "300" })
    expect(run.code).toBe(0)
    expect(run.output).toContain(`enter the code ${SCRIPTED_USER_CODE}`)
    expect(run.output).toContain("Opened your browser.")
    expect(run.output).toContain("Waiting for approval")
    expect(run.output).toMatch(/\u001b\[/)
    expect(run.output).toContain("Logged in as ada@example.com")
    expect(readFileSync(opened, "utf8")).toBe(`${server.url}/device?user_code=${SCRIPTED_USER_CODE}`)
  })

  it("does not open a browser with --no-browser, without a display, or in CI", async () => {
    for (const [args, env] of [
      [["--no-browser"], { DISPLAY: ":0" }],
      [[], { DISPLAY: "", WAYLAND_DISPLAY: "" }],
      [[], { DISPLAY: ":0", CI: "true" }]
    ] as const) {
      writeFileSync(opened, "")
      const run = await onTerminal(home, ["login", "--iam-url", server.iamUrl, ...args], { BROWSER: browser, CORE_LOGIN_POLL_UNIT_MS: "50", ...env })
      expect(run.code).toBe(0)
      expect(run.output).not.toContain("Opened your browser.")
      expect(readFileSync(opened, "utf8")).toBe("")
    }
  })

  it("still logs in when the browser command does not exist", async () => {
    const run = await onTerminal(home, ["login", "--iam-url", server.iamUrl], {
      BROWSER: join(home.home, "no-such-browser"),
      DISPLAY: ":0",
      CORE_LOGIN_POLL_UNIT_MS: "50"
    })
    expect(run.code).toBe(0)
    expect(run.output).toContain("Logged in as ada@example.com")
  })
})
