import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { core, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { startScriptedIdentity, type ScriptedIdentity } from "../packages/cli/test/scripted-identity.js"

const fast = { CORE_LOGIN_POLL_UNIT_MS: "50" }
const homes: Array<TempHome> = []
const home = () => {
  const made = tempHome()
  homes.push(made)
  return made
}
afterAll(() => homes.forEach((made) => made.remove()))

describe("commands refresh an expired access token with the refresh token", () => {
  let server: ScriptedIdentity
  beforeAll(async () => {
    server = await startScriptedIdentity()
  })
  afterAll(() => server.close())
  afterEach(() => {
    server.script.accessTokenLifetime = 3600
  })

  const loggedIn = async (lifetime = 3600) => {
    server.script.accessTokenLifetime = lifetime
    const h = home()
    expect((await core(h, ["login", "--iam-url", server.iamUrl], fast)).code).toBe(0)
    server.received.length = 0
    return h
  }
  const rolesTable = "ROLE   PERMISSIONS  UPDATED\nowner  *            2025-01-01T00:00:00.000Z\n"

  it("refreshes before the first request when the access token has expired, rewriting the file atomically", async () => {
    const h = await loggedIn(5)
    const before = h.read()!
    const run = await core(h, ["roles", "list", "--org", "org_1"])
    expect(run).toEqual({ code: 0, stdout: rolesTable, stderr: "" })
    expect(server.paths()).toEqual(["/oauth/token", "/api/core/roles"])
    expect(Object.fromEntries(new URLSearchParams(server.received[0].body))).toEqual({
      grant_type: "refresh_token",
      refresh_token: before.refreshToken,
      client_id: "core-cli"
    })
    const after = h.read()!
    expect(after).toEqual({ ...before, token: expect.any(String), refreshToken: expect.any(String), expiresAt: expect.any(String) })
    expect([after.token === before.token, after.refreshToken === before.refreshToken]).toEqual([false, false])
    expect(server.received[1].headers.authorization).toBe(`Bearer ${after.token}`)
    expect(h.modes()).toEqual({ file: 0o600, dir: 0o700 })
    expect(run.stdout + run.stderr).not.toMatch(/access-|refresh-/)
  })

  it("refreshes once on a 401 and replays the request with the new token", async () => {
    const h = await loggedIn()
    const first = h.read()!.token
    server.expireAccessTokens()
    const run = await core(h, ["roles", "list", "--org", "org_1", "--json"])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual([{ orgId: "org_1", role: "owner", permissions: ["*"], updatedAt: "2025-01-01T00:00:00.000Z" }])
    const second = h.read()!.token
    expect(second).not.toBe(first)
    expect(server.received.map((entry) => [entry.path.replace("/api/v1/iam", ""), entry.headers.authorization ?? null])).toEqual([
      ["/api/core/roles", `Bearer ${first}`],
      ["/oauth/token", null],
      ["/api/core/roles", `Bearer ${second}`]
    ])
  })

  it("two commands at once spend the refresh token only once", async () => {
    const h = await loggedIn(5)
    server.script.accessTokenLifetime = 3600
    const runs = await Promise.all([core(h, ["roles", "list", "--org", "org_1"]), core(h, ["roles", "list", "--org", "org_1"])])
    expect(runs.map((run) => run.code)).toEqual([0, 0])
    expect(server.paths().filter((path) => path === "/oauth/token")).toHaveLength(1)
  })

  it("a refused refresh token ends the session with a clear message, exit 1", async () => {
    const h = await loggedIn(5)
    server.refreshTokens.clear()
    expect(await core(h, ["roles", "list", "--org", "org_1"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "core: Your session has ended (invalid_grant). Run: core login\n"
    })
  })

  it("an expired token-mode login (no refresh token) asks for a new login", async () => {
    const h = home()
    server.script.acceptedTokens.add("short-lived")
    server.script.identity.expiresAt = "2020-01-01T00:00:00.000Z"
    try {
      expect((await core(h, ["login", "--token", "short-lived", "--iam-url", server.iamUrl])).code).toBe(0)
    } finally {
      delete server.script.identity.expiresAt
    }
    expect(await core(h, ["roles", "list", "--org", "org_1"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "core: Your login expired at 2020-01-01T00:00:00.000Z. Run: core login\n"
    })
  })

  it("reports an API error with its message, status, code and request id", async () => {
    const h = await loggedIn()
    expect(await core(h, ["keys", "list", "--org", "org_1"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "core: No route for /api/v1/iam/api/core/apikeys (404 NOT_FOUND, request id req-404)\n"
    })
  })

  it("says 'Not logged in' for a command that needs credentials", async () => {
    expect(await core(home(), ["roles", "list", "--org", "org_1"])).toEqual({ code: 1, stdout: "", stderr: "core: Not logged in. Run: core login\n" })
  })
})
