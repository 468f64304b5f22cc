import { writeFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shortCodes, startIdentityStack, type IdentityStack } from "../packages/cli/test/identity-stack.js"
import { core, spawnCore, tempHome, type TempHome } from "../packages/cli/test/login-support.js"

const USER_CODE = /enter the code ([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})/
const homes: Array<TempHome> = []
const home = () => {
  const made = tempHome()
  homes.push(made)
  return made
}
afterAll(() => homes.forEach((made) => made.remove()))

/** Runs `core login` and lets `decide` act on the printed user code (approve, deny, or nothing). */
const loginWith = async (stack: IdentityStack, h: TempHome, decide: (userCode: string) => Promise<void>, env: Record<string, string> = {}) => {
  const live = spawnCore(h, ["login", "--iam-url", stack.iamUrl], env)
  const [, userCode] = await live.waitForLine(USER_CODE)
  await decide(userCode)
  return live.done
}

describe("core login against the real identity service behind the gateway", () => {
  let stack: IdentityStack
  beforeAll(async () => {
    stack = await startIdentityStack()
  }, 60_000)
  afterAll(() => stack.close())

  it("interactive approve: the activation page's call lets the polling login finish; whoami shows the live identity", async () => {
    const ada = await stack.signUp("ada")
    const h = home()
    const run = await loginWith(stack, h, async (user_code) => {
      expect(await stack.call("POST", "/api/v1/iam/oauth/device/authorize", { token: ada.token, json: { user_code } })).toEqual({
        status: 200,
        body: { ok: true }
      })
    })
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" })
    expect(run.stdout).toContain(`To log in, open ${stack.iamUrl}/device and enter the code `)
    expect(run.stdout.endsWith(`Approved.\nLogged in as ${ada.email}\n`)).toBe(true)
    const record = h.read()!
    expect(record).toMatchObject({ email: ada.email, iamUrl: stack.iamUrl, apiUrl: stack.url, audience: "core-cli", refreshToken: expect.any(String) })
    expect(Math.abs(Date.parse(record.expiresAt as string) - Date.now() - 3_600_000)).toBeLessThan(60_000)
    expect(h.modes()).toEqual({ file: 0o600, dir: 0o700 })
    const session = await stack.call("GET", "/api/v1/iam/api/auth/get-session", { token: record.token as string })
    expect(session.body.user.email).toBe(ada.email)
    const whoami = await core(h, ["whoami", "--json"])
    expect(JSON.parse(whoami.stdout)).toMatchObject({ email: ada.email, expired: false })
    expect(run.stdout + whoami.stdout).not.toContain(record.token as string)
  })

  it("deny: the poll answers access_denied and the login exits 1 with 'Access denied.'", async () => {
    const ada = await stack.signUp("ada")
    const h = home()
    const run = await loginWith(stack, h, async (user_code) => {
      expect((await stack.call("POST", "/api/v1/iam/oauth/device/deny", { token: ada.token, json: { user_code } })).status).toBe(200)
    })
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: "core: Access denied.\n" })
    expect(h.read()).toBeUndefined()
  })

  it("timeout: nobody approves and the shortened poll timeout ends the login", async () => {
    const h = home()
    const run = await loginWith(stack, h, async () => undefined, { CORE_LOGIN_TIMEOUT_MS: "1500" })
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: "core: Login timed out. Run: core login\n" })
  })

  it("token mode with a session token looks the identity up live", async () => {
    const ada = await stack.signUp("ada")
    const h = home()
    expect(await core(h, ["login", "--token", ada.token, "--iam-url", stack.iamUrl])).toEqual({ code: 0, stdout: "Authenticated via token\n", stderr: "" })
    expect(h.read()).toMatchObject({ token: ada.token, refreshToken: null, email: ada.email })
  })

  it("token mode refuses a token the service does not know", async () => {
    const h = home()
    const run = await core(h, ["login", "--token", "not-a-session", "--iam-url", stack.iamUrl])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^core: The identity service at .* rejected the token \(401: /)
    expect(h.read()).toBeUndefined()
  })

  it("logout ends the device session at the server and clears the file", async () => {
    const ada = await stack.signUp("ada")
    const h = home()
    await loginWith(stack, h, async (user_code) => {
      await stack.call("POST", "/api/v1/iam/oauth/device/authorize", { token: ada.token, json: { user_code } })
    })
    const token = h.read()!.token as string
    expect((await core(h, ["logout"])).code).toBe(0)
    expect(h.read()).toEqual({})
    expect((await stack.call("GET", "/api/v1/iam/api/auth/get-session", { token })).body).toBeNull()
  })

  it("refresh: an expired access token is renewed with the rotated pair, and the spent refresh token no longer works once that pair is spent", async () => {
    const ada = await stack.signUp("ada")
    const h = home()
    await loginWith(stack, h, async (user_code) => {
      await stack.call("POST", "/api/v1/iam/oauth/device/authorize", { token: ada.token, json: { user_code } })
    })
    const before = h.read()!
    writeFileSync(h.file, JSON.stringify({ ...before, expiresAt: new Date(Date.now() - 1000).toISOString() }))
    const run = await core(h, ["orgs", "list", "--json"])
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" })
    expect(JSON.parse(run.stdout)).toEqual([])
    const after = h.read()!
    expect([after.token === before.token, after.refreshToken === before.refreshToken]).toEqual([false, false])
    expect(Date.parse(after.expiresAt as string)).toBeGreaterThan(Date.now() + 3_000_000)
    const refresh = (refreshToken: string) =>
      fetch(`${stack.iamUrl}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: "core-cli" })
      })
    // Within the grace window a duplicate answers the pair the CLI holds (decision 0196) ...
    const duplicate = await refresh(before.refreshToken as string)
    expect([duplicate.status, (await duplicate.json()).refresh_token]).toEqual([200, after.refreshToken])
    // ... and once that pair is spent, the old token is reuse.
    expect((await refresh(after.refreshToken as string)).status).toBe(200)
    const reuse = await refresh(before.refreshToken as string)
    expect([reuse.status, (await reuse.json()).error]).toEqual([400, "invalid_grant"])
  })
})

describe("core login when the code expires before approval", () => {
  let stack: IdentityStack
  beforeAll(async () => {
    stack = await startIdentityStack({ device: shortCodes })
  }, 60_000)
  afterAll(() => stack.close())

  it("exits 1 with 'Code expired. Run: core login'", async () => {
    const h = home()
    const run = await loginWith(stack, h, async () => undefined)
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: "core: Code expired. Run: core login\n" })
    expect(h.read()).toBeUndefined()
  })
})
