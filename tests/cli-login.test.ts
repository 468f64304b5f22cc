import { spawnSync } from "node:child_process"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, core, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { launcher } from "../packages/cli/test/run-core.js"
import { closedAddress, SCRIPTED_USER_CODE, startScriptedIdentity, type ScriptedIdentity } from "../packages/cli/test/scripted-identity.js"

const fast = { CORE_LOGIN_POLL_UNIT_MS: "50" }
const closedPort = await closedAddress()
const homes: Array<TempHome> = []
const home = () => {
  const made = tempHome()
  homes.push(made)
  return made
}

afterAll(() => homes.forEach((made) => made.remove()))

const refusedCause = `  Likely cause: nothing listens at ${closedPort.replace("http://", "")} (connection refused): the server is not running (start it with: npx core-server start), or the port is wrong.\n`
const unreachableMessage =
  `core: Interactive login is unavailable and the identity service cannot be reached at ${closedPort}; use the token option: core login --token <token>\n` +
  `  Tried: POST ${closedPort}/oauth/device/code\n` +
  refusedCause

describe("core login against an unreachable identity service", () => {
  it("token mode stores the token for ci-user with a 30-day expiry and prints 'Authenticated via token'", async () => {
    const h = home()
    const before = Date.now()
    const run = await core(h, ["login", "--token", "tok-secret-1", "--iam-url", closedPort])
    expect(run.code).toBe(0)
    expect(run.stdout).toBe("Authenticated via token\n")
    expect(run.stderr).toBe(`Could not look up the token's identity at ${closedPort} (ECONNREFUSED); stored it for ci-user.\n${refusedCause}`)
    const record = h.read()!
    expect(record).toEqual({
      token: "tok-secret-1",
      refreshToken: null,
      email: "ci-user",
      platformId: null,
      role: "unknown",
      expiresAt: expect.any(String),
      iamUrl: closedPort,
      apiUrl: "http://localhost:8787",
      audience: "core-cli"
    })
    const expiresIn = Date.parse(record.expiresAt as string) - before
    expect(expiresIn).toBeGreaterThanOrEqual(30 * 86_400_000)
    expect(expiresIn).toBeLessThan(30 * 86_400_000 + 60_000)
    expect(h.modes()).toEqual({ file: 0o600, dir: 0o700 })
  })

  it("token mode reads the token from stdin with --token -, and refuses an empty one", () => {
    const h = home()
    const piped = (input: string) =>
      spawnSync(process.execPath, [launcher, "login", "--token", "-", "--iam-url", closedPort], {
        input,
        encoding: "utf8",
        env: { ...process.env, ...baseEnv(h) }
      })
    const stored = piped("tok-from-stdin\n")
    expect([stored.status, stored.stdout]).toEqual([0, "Authenticated via token\n"])
    expect(h.read()!.token).toBe("tok-from-stdin")
    const empty = piped("  \n")
    expect([empty.status, empty.stderr]).toEqual([1, "core: The token is empty. Usage: core login [--token <token>] [--iam-url <url>] [--no-browser]\n"])
  })

  it("interactive mode exits 1 with the seed's message and writes nothing", async () => {
    const h = home()
    const run = await core(h, ["login", "--iam-url", closedPort])
    expect(run).toEqual({ code: 1, stdout: "", stderr: unreachableMessage })
    expect(h.read()).toBeUndefined()
  })

  it("takes the address from CORE_IAM_URL when there is no flag, and the flag over the variable", async () => {
    const h = home()
    expect(await core(h, ["login"], { CORE_IAM_URL: closedPort })).toMatchObject({ code: 1, stderr: unreachableMessage })
    const flagged = await core(h, ["login", "--iam-url", closedPort], { CORE_IAM_URL: "http://127.0.0.1:2" })
    expect(flagged.stderr).toBe(unreachableMessage)
  })

  it("rejects an address that is not http(s) (exit 1) and unknown options (a usage error, exit 2)", async () => {
    const h = home()
    expect(await core(h, ["login", "--iam-url", "ftp://x"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "core: Invalid address 'ftp://x' (from --iam-url): expected an http(s) URL\n"
    })
    expect(await core(h, ["login", "--frob"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Unknown option '--frob'. Usage: core login [--token <token>] [--iam-url <url>] [--no-browser]\n"
    })
  })
})

describe("core login against a scripted identity service", () => {
  let server: ScriptedIdentity
  beforeAll(async () => {
    server = await startScriptedIdentity()
  })
  afterAll(() => server.close())
  afterEach(() => {
    server.received.length = 0
    Object.assign(server.script, { deviceCodeStatus: 200, expiresIn: 600, interval: 1, polls: ["approve"], accessTokenLifetime: 3600 })
  })

  it("token mode looks the identity up live (Bearer) and stores it", async () => {
    const h = home()
    server.accessTokens.add("session-token-xyz")
    const run = await core(h, ["login", "--token", "session-token-xyz"], { CORE_API_URL: server.url })
    expect(run).toEqual({ code: 0, stdout: "Authenticated via token\n", stderr: "" })
    const [whoami] = server.received
    expect([whoami.method, whoami.path, whoami.headers.authorization, whoami.headers["x-api-key"]]).toEqual([
      "POST",
      "/api/v1/iam/api/v1/cli/whoami",
      "Bearer session-token-xyz",
      undefined
    ])
    expect(h.read()).toMatchObject({
      token: "session-token-xyz",
      refreshToken: null,
      email: "ada@example.com",
      platformId: "plt_scripted",
      role: "owner",
      iamUrl: server.iamUrl,
      apiUrl: server.url,
      audience: "core-cli"
    })
  })

  it("token mode sends an API key (core_…) as x-api-key", async () => {
    const h = home()
    const key = "core_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    server.script.acceptedTokens.add(key)
    const run = await core(h, ["login", "--token", key, "--iam-url", server.iamUrl])
    expect(run.code).toBe(0)
    expect(server.received[0].headers["x-api-key"]).toBe(key)
    expect(server.received[0].headers.authorization).toBeUndefined()
    expect(`${run.stdout}${run.stderr}`).not.toContain(key)
  })

  it("token mode refuses a token the service rejects, exit 1, nothing written", async () => {
    const h = home()
    const run = await core(h, ["login", "--token", "not-a-valid-token", "--iam-url", server.iamUrl])
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr: `core: The identity service at ${server.iamUrl} rejected the token (401: Invalid or expired token, request id req-w)\n`
    })
    expect(h.read()).toBeUndefined()
  })

  it("interactive: prints the address and code, polls until approved, stores both tokens, prints the email", async () => {
    const h = home()
    server.script.polls = ["authorization_pending", "authorization_pending", "approve"]
    const run = await core(h, ["login", "--iam-url", server.iamUrl], fast)
    expect(run).toEqual({
      code: 0,
      stdout: [
        `To log in, open ${server.url}/device and enter the code ${SCRIPTED_USER_CODE}`,
        `  (or open ${server.url}/device?user_code=${SCRIPTED_USER_CODE})`,
        "Waiting for approval",
        "Approved.",
        "Logged in as ada@example.com",
        ""
      ].join("\n"),
      stderr: ""
    })
    expect(server.paths()).toEqual(["/oauth/device/code", "/oauth/device/token", "/oauth/device/token", "/oauth/device/token", "/api/v1/cli/whoami"])
    const [code, poll] = server.received
    expect(code.headers["content-type"]).toBe("application/x-www-form-urlencoded")
    expect(Object.fromEntries(new URLSearchParams(code.body))).toEqual({ client_id: "core-cli" })
    expect(Object.fromEntries(new URLSearchParams(poll.body))).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: "device-code-0123456789",
      client_id: "core-cli"
    })
    const record = h.read()!
    expect(record).toMatchObject({ token: "access-1", refreshToken: "refresh-1", email: "ada@example.com", platformId: "plt_scripted", role: "owner" })
    expect(Math.abs(Date.parse(record.expiresAt as string) - (Date.now() + 3_600_000))).toBeLessThan(60_000)
    expect(h.modes()).toEqual({ file: 0o600, dir: 0o700 })
    expect(run.stdout).not.toContain("access-1")
    expect(run.stdout).not.toContain("refresh-1")
  })

  it("polls at the interval and adds 5 to it after slow_down", async () => {
    const h = home()
    server.script.polls = ["authorization_pending", "slow_down", "approve"]
    const run = await core(h, ["login", "--iam-url", server.iamUrl], { CORE_LOGIN_POLL_UNIT_MS: "100" })
    expect(run.code).toBe(0)
    const polls = server.received.filter((entry) => entry.path.endsWith("/oauth/device/token")).map((entry) => entry.at)
    expect(polls).toHaveLength(3)
    expect(polls[1] - polls[0]).toBeGreaterThanOrEqual(90)
    expect(polls[1] - polls[0]).toBeLessThan(400)
    expect(polls[2] - polls[1]).toBeGreaterThanOrEqual(590)
    expect(run.stdout).toContain("Waiting for approval (polling every 6 s)")
  })

  it.each([
    ["access_denied", "core: Access denied.\n"],
    ["expired_token", "core: Code expired. Run: core login\n"]
  ] as const)("exits 1 when the poll answers %s", async (error, message) => {
    const h = home()
    server.script.polls = ["authorization_pending", error]
    const run = await core(h, ["login", "--iam-url", server.iamUrl], fast)
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: message })
    expect(run.stdout).not.toContain("Logged in")
    expect(h.read()).toBeUndefined()
  })

  it("gives up with the timeout message when nobody approves (timeout shortened)", async () => {
    const h = home()
    server.script.polls = ["authorization_pending"]
    const started = Date.now()
    const run = await core(h, ["login", "--iam-url", server.iamUrl], { ...fast, CORE_LOGIN_TIMEOUT_MS: "600" })
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: "core: Login timed out. Run: core login\n" })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(h.read()).toBeUndefined()
  })

  it("gives up when the code's expires_in passes first, with the expiry message", async () => {
    const h = home()
    server.script.polls = ["authorization_pending"]
    server.script.expiresIn = 1
    const run = await core(h, ["login", "--iam-url", server.iamUrl], fast)
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: "core: Code expired. Run: core login\n" })
  })

  it("reports a device endpoint that answers non-2xx with its status", async () => {
    const h = home()
    server.script.deviceCodeStatus = 404
    const run = await core(h, ["login", "--iam-url", server.iamUrl], fast)
    expect(run).toEqual({ code: 1, stdout: "", stderr: `core: Device login endpoint not available (404)\n  Tried: POST ${server.iamUrl}/oauth/device/code\n` })
  })

  it("prints JSON on stdout and the instructions on stderr under --json", async () => {
    const h = home()
    const run = await core(h, ["login", "--iam-url", server.iamUrl, "--json"], fast)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({
      authenticated: "device",
      email: "ada@example.com",
      platformId: "plt_scripted",
      role: "owner",
      expiresAt: expect.any(String),
      iamUrl: server.iamUrl,
      apiUrl: server.url
    })
    expect(run.stderr).toContain(`enter the code ${SCRIPTED_USER_CODE}`)
  })
})
