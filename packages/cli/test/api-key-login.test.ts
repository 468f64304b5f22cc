import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startIdentityStack, type IdentityStack } from "./identity-stack.js"
import { core, tempHome, type TempHome } from "./login-support.js"

/**
 * The example, end to end: after `core login --token core_…` (an API key), the identity
 * commands answer with the key's organization instead of 401 (docs/decisions/0172).
 */
describe("the real core binary logged in with an API key", () => {
  let stack: IdentityStack
  let h: TempHome
  let orgId: string
  let slug: string
  let keyId: string

  const json = async (...args: Array<string>) => {
    const result = await core(h, [...args, "--json"])
    expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: "" })
    return JSON.parse(result.stdout)
  }

  beforeAll(async () => {
    stack = await startIdentityStack()
    h = tempHome()
    const owner = await stack.signUp("keyholder")
    slug = `keyed-${Date.now().toString(36)}`
    const created = await stack.call("POST", "/api/v1/iam/api/auth/organization/create", { token: owner.token, json: { name: "Keyed", slug } })
    expect(created.status).toBe(200)
    orgId = created.body.id
    const key = await stack.call("POST", "/api/v1/iam/api/core/apikeys", {
      token: owner.token,
      json: { name: "ci", organizationId: orgId, permissions: ["org:read", "members:read", "apikeys:read", "audit:read"] }
    })
    expect(key.status).toBe(201)
    keyId = key.body.id
    const login = await core(h, ["login", "--token", key.body.key, "--iam-url", stack.iamUrl])
    expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: "" })
  }, 90_000)
  afterAll(async () => {
    await stack?.close()
    h?.remove()
  })

  it("keys list, orgs list, members list and audit list answer for the key's organization", async () => {
    expect((await json("keys", "list", "--org", orgId)).map((k: { id: string }) => k.id)).toEqual([keyId])
    expect((await json("orgs", "list")).map((o: { id: string; slug: string }) => [o.id, o.slug])).toEqual([[orgId, slug]])
    const members = await json("members", "list", "--org", orgId)
    expect(members).toMatchObject({ total: 1, members: [{ organizationId: orgId, role: "owner" }] })
    expect((await json("members", "list", "--org", slug)).total).toBe(1)
    // Without --org, a key acts in its own organization, as a session does in its active one.
    expect((await json("keys", "list")).map((k: { id: string }) => k.id)).toEqual([keyId])
    expect((await json("members", "list")).total).toBe(1)
    const audit = await json("audit", "list")
    expect(audit.data.length).toBeGreaterThan(0)
    expect(audit.data.every((entry: { organizationId: string | null }) => entry.organizationId === orgId)).toBe(true)
  })
})
