import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { core, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { closedAddress, startScriptedIdentity, type ScriptedIdentity } from "../packages/cli/test/scripted-identity.js"

const closedPort = await closedAddress()
const fast = { CORE_LOGIN_POLL_UNIT_MS: "50" }
const homes: Array<TempHome> = []
const home = () => {
  const made = tempHome()
  homes.push(made)
  return made
}
afterAll(() => homes.forEach((made) => made.remove()))

describe("core whoami and core logout", () => {
  let server: ScriptedIdentity
  beforeAll(async () => {
    server = await startScriptedIdentity()
  })
  afterAll(() => server.close())

  const loggedIn = async () => {
    const h = home()
    expect((await core(h, ["login", "--iam-url", server.iamUrl], fast)).code).toBe(0)
    return h
  }

  it("whoami prints the identity as text and as JSON without the tokens", async () => {
    const h = await loggedIn()
    const text = await core(h, ["whoami"])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(
      new RegExp(
        [
          "^Logged in as ada@example\\.com",
          "  Platform:  plt_scripted",
          "  Role:      owner",
          "  Expires:   \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(in (59|60) minutes\\)",
          `  Identity:  ${server.iamUrl.replace(/[.]/g, "\\.")}`,
          `  API:       ${server.url.replace(/[.]/g, "\\.")}\\n$`
        ].join("\\n")
      )
    )
    const json = await core(h, ["whoami", "--json"])
    expect(json.code).toBe(0)
    const record = JSON.parse(json.stdout)
    expect(record).toEqual({
      email: "ada@example.com",
      platformId: "plt_scripted",
      role: "owner",
      expiresAt: h.read()!.expiresAt,
      iamUrl: server.iamUrl,
      apiUrl: server.url,
      audience: "core-cli",
      expired: false,
      refreshable: true
    })
    expect(json.stdout).not.toMatch(/access-|refresh-|"token"/)
  })

  it("whoami says when the access token has expired and whether the next command renews it", async () => {
    const h = await loggedIn()
    writeFileSync(h.file, JSON.stringify({ ...h.read(), expiresAt: new Date(Date.now() - 3 * 3_600_000).toISOString() }))
    expect((await core(h, ["whoami"])).stdout).toMatch(/\n {2}Expires: {3}\S+ \(expired 3 hours ago; renewed on the next command\)\n/)
    writeFileSync(h.file, JSON.stringify({ ...h.read(), refreshToken: null }))
    expect(JSON.parse((await core(h, ["whoami", "--json"])).stdout)).toMatchObject({ expired: true, refreshable: false })
    expect((await core(h, ["whoami"])).stdout).toMatch(/\(expired 3 hours ago; run: core login\)\n/)
  })

  it("logout ends the session, clears the file in place (holding {}, mode kept), and whoami then exits 1", async () => {
    const h = await loggedIn()
    const token = h.read()!.token as string
    chmodSync(h.file, 0o400)
    server.received.length = 0
    const run = await core(h, ["logout"])
    expect(run).toEqual({ code: 0, stdout: `Logged out ada@example.com. Credentials cleared in ${h.file}\n`, stderr: "" })
    expect(server.received.map((entry) => [entry.path, entry.headers.authorization])).toEqual([
      ["/api/v1/iam/api/auth/sign-out", `Bearer ${token}`]
    ])
    expect(server.accessTokens.has(token)).toBe(false)
    expect(h.read()).toEqual({})
    expect(h.modes()).toEqual({ file: 0o400, dir: 0o700 })
    expect(await core(h, ["whoami"])).toEqual({ code: 1, stdout: "", stderr: "core: Not logged in. Run: core login\n" })
    expect(await core(h, ["logout"])).toEqual({ code: 0, stdout: `Logged out. Credentials cleared in ${h.file}\n`, stderr: "" })
  })

  it("logout without a credential file says so and exits 0", async () => {
    expect(await core(home(), ["logout"])).toEqual({ code: 0, stdout: "Not logged in.\n", stderr: "" })
  })
})

describe("a credential file that cannot be trusted", () => {
  const withFile = (content: string, mode = 0o600) => {
    const h = home()
    mkdirSync(h.dir, { mode: 0o700 })
    writeFileSync(h.file, content, { mode })
    chmodSync(h.file, mode)
    return h
  }
  const valid = JSON.stringify({
    token: "t-secret",
    refreshToken: null,
    email: "ada@example.com",
    platformId: null,
    role: "owner",
    expiresAt: "2099-01-01T00:00:00.000Z",
    iamUrl: `${closedPort}/api/v1/iam`,
    apiUrl: closedPort,
    audience: "core-cli"
  })

  it("a corrupt file gives a clear message and exit 1, never a stack trace", async () => {
    const h = withFile("{ not json")
    expect(await core(h, ["whoami"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `core: The credential file ${h.file} is corrupt (not valid JSON). Run: core login\n`
    })
    const incomplete = withFile(JSON.stringify({ token: "t" }))
    expect((await core(incomplete, ["whoami", "--json"])).stderr).toBe(
      `${JSON.stringify({ error: { code: "CREDENTIALS_CORRUPT", message: `The credential file ${incomplete.file} is corrupt (field 'email' is missing or not a string). Run: core login` } })}\n`
    )
  })

  it("a corrupt file is replaced by the next login, and cleared by logout", async () => {
    const h = withFile("garbage")
    expect((await core(h, ["login", "--token", "t2", "--iam-url", closedPort])).code).toBe(0)
    expect(h.read()).toMatchObject({ token: "t2" })
    writeFileSync(h.file, "garbage")
    expect((await core(h, ["logout"])).code).toBe(0)
    expect(h.read()).toEqual({})
  })

  it("a file readable by others is refused with the fix", async () => {
    const h = withFile(valid, 0o644)
    expect(await core(h, ["whoami"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `core: The credential file ${h.file} is accessible to other users (mode 0644). Run: chmod 600 ${h.file}\n`
    })
  })

  it.skipIf(process.getuid?.() !== 0)("a file owned by another user is refused (and left alone by logout)", async () => {
    const h = withFile(valid)
    chownSync(h.file, 4242, 4242)
    const message = `core: The credential file ${h.file} belongs to another user (uid 4242); refusing to use it. Remove it, then run: core login\n`
    expect(await core(h, ["whoami"])).toEqual({ code: 1, stdout: "", stderr: message })
    expect(await core(h, ["logout"])).toEqual({ code: 1, stdout: "", stderr: message })
    expect(h.read()).toMatchObject({ token: "t-secret" })
  })
})
