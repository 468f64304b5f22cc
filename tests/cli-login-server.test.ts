import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { core, spawnCore, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { launch, migratedDataDir, ready, type Running } from "../packages/server/test/ServerProcess.js"

/**
 * `core login` as a person meets it: the all-in-one server (`core-server start`, its own process,
 * default device-code lifetimes), the `core` binary finding it through `CORE_API_URL` alone.
 */
const SLOW = 180_000
const work = mkdtempSync(join(tmpdir(), "core-cli-server-"))

describe("core login against core-server start", () => {
  let server: Running
  let base: string
  let h: TempHome

  beforeAll(async () => {
    server = launch(["start"], { PORT: "0", CORE_DATA_DIR: await migratedDataDir(join(work, "data")) })
    base = await ready(server)
    h = tempHome()
  }, SLOW)

  afterAll(() => {
    server?.child.kill("SIGKILL")
    h?.remove()
    rmSync(work, { recursive: true, force: true })
  })

  it("logs in through the device flow approved by a signed-in user, then runs commands as that user", async () => {
    const email = `ada-${Date.now().toString(36)}@example.com`
    const signUp = await fetch(`${base}/api/v1/iam/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada", email, password: "correct horse battery staple" })
    })
    expect(signUp.status).toBe(200)
    const { token } = (await signUp.json()) as { token: string }

    const live = spawnCore(h, ["login"], { CORE_API_URL: base })
    const [, userCode] = await live.waitForLine(/enter the code ([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})/)
    const approve = await fetch(`${base}/api/v1/iam/oauth/device/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Bearer ${token}` },
      body: new URLSearchParams({ user_code: userCode })
    })
    expect([approve.status, await approve.json()]).toEqual([200, { ok: true }])
    const login = await live.done
    expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: "" })
    expect(login.stdout).toContain(`To log in, open ${base}/api/v1/iam/device and enter the code ${userCode}`)
    expect(login.stdout.endsWith(`Logged in as ${email}\n`)).toBe(true)
    expect(h.read()).toMatchObject({ email, iamUrl: `${base}/api/v1/iam`, apiUrl: base, audience: "core-cli" })
    expect(h.modes()).toEqual({ file: 0o600, dir: 0o700 })

    const created = await core(h, ["orgs", "create", "Acme Robotics"])
    expect(created).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Created organization acme-robotics \(org_\w+\); you are its owner\.\n$/) })
    const members = await core(h, ["members", "list", "--json"])
    expect(JSON.parse(members.stdout)).toMatchObject({ total: 1, members: [{ role: "owner", user: { email } }] })

    expect((await core(h, ["whoami"])).stdout).toContain(`Logged in as ${email}\n`)
    expect((await core(h, ["logout"])).code).toBe(0)
    expect(await core(h, ["orgs", "list"])).toEqual({ code: 1, stdout: "", stderr: "core: Not logged in. Run: core login\n" })
  }, 60_000)
})
