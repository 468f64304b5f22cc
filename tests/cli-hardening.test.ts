import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startIdentityStack, type IdentityStack } from "../packages/cli/test/identity-stack.js"
import { core, spawnCore, tempHome, type TempHome } from "../packages/cli/test/login-support.js"

/**
 * The CLI in a new user's first hour, against the real identity service behind the real
 * gateway: validation details, `--limit`, empty lists, `audit list --org <slug>`, the causes of
 * login failures and unknown API keys.
 */
const USER_CODE = /enter the code ([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})/
const REQUEST_ID = "[0-9a-f-]{36}"

describe("the core binary against the real identity service", () => {
  let stack: IdentityStack
  let h: TempHome
  let ada: Awaited<ReturnType<IdentityStack["signUp"]>>
  let orgId: string
  const run = (...args: Array<string>) => core(h, args)
  const json = async (...args: Array<string>) => {
    const result = await core(h, [...args, "--json"])
    expect({ args, code: result.code }).toEqual({ args, code: 0 })
    return JSON.parse(result.stdout)
  }

  beforeAll(async () => {
    stack = await startIdentityStack()
    h = tempHome()
    ada = await stack.signUp("ada")
    const live = spawnCore(h, ["login", "--iam-url", stack.iamUrl])
    const [, user_code] = await live.waitForLine(USER_CODE)
    await stack.call("POST", "/api/v1/iam/oauth/device/authorize", { token: ada.token, json: { user_code } })
    expect((await live.done).code).toBe(0)
    orgId = (await json("orgs", "create", "Hardening Labs")).id
  }, 90_000)
  afterAll(async () => {
    await stack?.close()
    h?.remove()
  })

  it("a validation failure prints each issue with its field (text and --json)", async () => {
    const text = await run("keys", "create", "--permission", "nope:nope", "--permission", "members:read", "--org", orgId)
    expect(text.code).toBe(1)
    expect(text.stdout).toBe("")
    expect(text.stderr).toMatch(
      new RegExp(`^core: Invalid request body \\(400 VALIDATION_ERROR, request id ${REQUEST_ID}\\)\\n  permissions\\.0: Unknown permission \\(see the permission catalogue\\)\\n$`)
    )
    const structured = await run("keys", "create", "--permission", "nope:nope", "--org", orgId, "--json")
    expect(structured.code).toBe(1)
    expect(JSON.parse(structured.stderr)).toEqual({
      error: {
        code: "VALIDATION_ERROR",
        message: expect.stringMatching(/^Invalid request body \(400 VALIDATION_ERROR/),
        details: { issues: [{ path: "permissions.0", message: "Unknown permission (see the permission catalogue)" }] }
      }
    })
    expect(await json("keys", "list", "--org", orgId)).toEqual([])
  })

  it("an empty list says so; --json still prints []", async () => {
    expect(await run("keys", "list", "--org", orgId)).toEqual({ code: 0, stdout: "No API keys in this organization.\n", stderr: "" })
    expect(await run("grants", "list", "--org", orgId)).toEqual({ code: 0, stdout: "No grants in this organization.\n", stderr: "" })
    expect(await run("invitations", "list", "--org", orgId)).toEqual({ code: 0, stdout: "No invitations in this organization.\n", stderr: "" })
    expect(await json("invitations", "list", "--org", orgId)).toEqual([])
    expect(await run("audit", "list", "--org", orgId, "--action", "nothing.*")).toEqual({ code: 0, stdout: "No audit entries.\n", stderr: "" })
  })

  it("--limit caps every list, and the text says how many were left out", async () => {
    for (const name of ["one", "two", "three"]) await json("keys", "create", "--name", name, "--org", orgId)
    const keys = await json("keys", "list", "--org", orgId, "--limit", "2")
    expect(keys).toHaveLength(2)
    const text = await run("keys", "list", "--org", orgId, "--limit", "2")
    expect(text.stdout.split("\n").filter((line) => line.startsWith("key_"))).toHaveLength(2)
    expect(text.stdout.endsWith("Showing 2 of 3 API keys; raise --limit to see more.\n")).toBe(true)
    expect(await json("roles", "list", "--org", orgId, "--limit", "1")).toHaveLength(1)
    expect(await json("orgs", "list", "--limit", "1")).toHaveLength(1)
    expect((await json("members", "list", "--org", orgId, "--limit", "1")).members).toHaveLength(1)
    for (const email of ["x1@example.com", "x2@example.com"]) await json("invitations", "create", email, "--org", orgId)
    expect(await json("invitations", "list", "--org", orgId, "--limit", "1")).toHaveLength(1)
    await json("grants", "create", "--user", ada.id, "--permission", "billing:read", "--org", orgId)
    await json("grants", "create", "--user", ada.id, "--permission", "billing:manage", "--org", orgId)
    expect(await json("grants", "list", "--org", orgId, "--limit", "1")).toHaveLength(1)
  })

  it("audit list takes the organization's slug like every other command", async () => {
    const bySlug = await json("audit", "list", "--org", "hardening-labs", "--action", "apikey.*")
    const byId = await json("audit", "list", "--org", orgId, "--action", "apikey.*")
    expect(bySlug.data.length).toBeGreaterThan(0)
    expect(bySlug).toEqual(byId)
  })

  it("destructive commands run with --yes", async () => {
    const [key] = await json("keys", "list", "--org", orgId, "--limit", "1")
    expect(await run("keys", "revoke", key.id, "--yes")).toEqual({ code: 0, stdout: `Revoked API key ${key.id}.\n`, stderr: "" })
  })

  it("a login at the gateway's root (without /api/v1/iam) names the missing base path", async () => {
    const answer = await core(tempHome(), ["login", "--iam-url", stack.url])
    expect(answer).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "core: Device login endpoint not available (404)\n" +
        `  Tried: POST ${stack.url}/oauth/device/code\n` +
        `  Likely cause: the address lacks the identity service's base path /api/v1/iam. Try: core login --iam-url ${stack.url}/api/v1/iam\n`
    })
  })

  it("a well-formed API key the server does not know is called unknown, and nothing is stored", async () => {
    const keyHome = tempHome()
    try {
      const answer = await core(keyHome, ["login", "--token", `core_${"A".repeat(43)}`, "--iam-url", stack.iamUrl])
      expect(answer).toEqual({
        code: 1,
        stdout: "",
        stderr: `core: This API key is unknown to the identity service at ${stack.iamUrl}: it was never issued there, or it was revoked or has expired. Nothing was stored.\n`
      })
      expect(keyHome.read()).toBeUndefined()
    } finally {
      keyHome.remove()
    }
  })
})
