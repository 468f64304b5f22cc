import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startIdentityStack, type IdentityStack } from "../packages/cli/test/identity-stack.js"
import { baseEnv, core, spawnCore, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { launcher } from "../packages/cli/test/run-core.js"

/**
 * The CLI on a terminal: destructive commands ask first, and wide tables fit the terminal's
 * width. The real binary runs under a pseudo-terminal (util-linux `script`) against the real
 * identity service; answers are typed on the terminal.
 */
const hasScript = existsSync("/usr/bin/script") && process.platform === "linux"
const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`
const USER_CODE = /enter the code ([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})/
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "")

/** Runs `core …args` on a terminal `columns` wide; types `answer` once `prompt` appears. */
const onTerminal = (home: TempHome, args: ReadonlyArray<string>, options: { columns: number; prompt?: RegExp; answer?: string }) =>
  new Promise<{ code: number; output: string }>((resolve, reject) => {
    const command = `stty cols ${options.columns} rows 40; exec ${[process.execPath, launcher, ...args].map(quote).join(" ")}`
    const { CI: _ci, ...inherited } = process.env
    const child = spawn("script", ["-qefc", command, "/dev/null"], {
      env: { ...inherited, TERM: "xterm-256color", ...baseEnv(home) },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let output = ""
    let answered = false
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`No end on the terminal: ${plain(output)}`))
    }, 30_000)
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (!answered && options.prompt !== undefined && options.prompt.test(plain(output))) {
        answered = true
        child.stdin.write(options.answer ?? "")
      }
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      child.stdin.destroy()
      resolve({ code: code ?? -1, output: plain(output) })
    })
  })

describe.skipIf(!hasScript)("core on a terminal, against the real identity service", () => {
  let stack: IdentityStack
  let h: TempHome
  let orgId: string
  const json = async (...args: Array<string>) => {
    const result = await core(h, [...args, "--json"])
    expect({ args, code: result.code }).toEqual({ args, code: 0 })
    return JSON.parse(result.stdout)
  }

  beforeAll(async () => {
    stack = await startIdentityStack()
    h = tempHome()
    const ada = await stack.signUp("ada")
    const live = spawnCore(h, ["login", "--iam-url", stack.iamUrl])
    const [, user_code] = await live.waitForLine(USER_CODE)
    await stack.call("POST", "/api/v1/iam/oauth/device/authorize", { token: ada.token, json: { user_code } })
    expect((await live.done).code).toBe(0)
    orgId = (await json("orgs", "create", "Terminal Works")).id
  }, 90_000)
  afterAll(async () => {
    await stack?.close()
    h?.remove()
  })

  it("keys revoke asks first: no keeps the key (exit 1), yes revokes it", async () => {
    const created = await json("keys", "create", "--name", "asked", "--org", orgId)
    const declined = await onTerminal(h, ["keys", "revoke", created.id], { columns: 120, prompt: /Revoke API key key_\w+\?/, answer: "n" })
    expect(declined.code).toBe(1)
    expect(declined.output).toContain(`core: Cancelled: did not revoke API key ${created.id}.`)
    expect((await json("keys", "list", "--org", orgId))[0].revokedAt).toBeNull()

    const accepted = await onTerminal(h, ["keys", "revoke", created.id], { columns: 120, prompt: /Revoke API key key_\w+\?/, answer: "y" })
    expect(accepted.code).toBe(0)
    expect(accepted.output).toContain(`Revoked API key ${created.id}.`)
    expect((await json("keys", "list", "--org", orgId))[0].revokedAt).toEqual(expect.any(String))
  })

  it("a wide table fits the terminal, cells cut with an ellipsis; piped output is never cut", async () => {
    const name = `a-very-long-key-name-${"x".repeat(60)}`
    await json("keys", "create", "--name", name, "--permission", "members:read", "--permission", "audit:read", "--org", orgId)
    const narrow = await onTerminal(h, ["keys", "list", "--org", orgId], { columns: 80 })
    expect(narrow.code).toBe(0)
    const lines = narrow.output.split("\n").filter((line) => line !== "")
    expect(lines[0]).toMatch(/^ID\s+NAME\s+START\s+PERMISSIONS\s+EXPIRES\s+LAST USED\s+REVOKED$/)
    for (const line of lines) expect({ line, fits: line.length <= 80 }).toEqual({ line, fits: true })
    expect(narrow.output).toContain("…")
    expect(narrow.output).not.toContain(name)

    const piped = await core(h, ["keys", "list", "--org", orgId])
    expect(piped.stdout).toContain(name)
    expect(piped.stdout).toMatch(/audit:read,members:read|members:read,audit:read/)
  })
})
