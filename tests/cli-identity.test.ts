import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startIdentityStack, type IdentityStack } from "../packages/cli/test/identity-stack.js"
import { core, spawnCore, tempHome, type TempHome } from "../packages/cli/test/login-support.js"

const USER_CODE = /enter the code ([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})/

describe("identity commands of the real core binary against the real identity service", () => {
  let stack: IdentityStack
  let h: TempHome
  let ada: Awaited<ReturnType<IdentityStack["signUp"]>>
  let bob: Awaited<ReturnType<IdentityStack["signUp"]>>
  let orgId: string
  const run = (...args: Array<string>) => core(h, args)
  const json = async (...args: Array<string>) => {
    const result = await core(h, [...args, "--json"])
    expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: result.stderr.includes("Copy the key") ? result.stderr : "" })
    return JSON.parse(result.stdout)
  }

  beforeAll(async () => {
    stack = await startIdentityStack()
    h = tempHome()
    ada = await stack.signUp("ada")
    bob = await stack.signUp("bob")
    const live = spawnCore(h, ["login", "--iam-url", stack.iamUrl])
    const [, user_code] = await live.waitForLine(USER_CODE)
    await stack.call("POST", "/api/v1/iam/oauth/device/authorize", { token: ada.token, json: { user_code } })
    expect((await live.done).code).toBe(0)
  }, 90_000)
  afterAll(async () => {
    await stack.close()
    h.remove()
  })

  it("orgs: create (slug from the name), list, get", async () => {
    const created = await run("orgs", "create", "Acme Tools")
    expect(created.code).toBe(0)
    const [, id] = /^Created organization acme-tools \((org_\w+)\); you are its owner\.\n$/.exec(created.stdout)!
    orgId = id
    expect((await json("orgs", "list")).map((org: { slug: string }) => org.slug)).toEqual(["acme-tools"])
    const detail = await run("orgs", "get", "acme-tools")
    expect(detail.code).toBe(0)
    expect(detail.stdout).toContain(`Acme Tools (acme-tools)\n  ID:        ${orgId}\n  Type:      tenant\n`)
    expect(detail.stdout).toMatch(new RegExp(`MEMBER\\s+EMAIL\\s+NAME\\s+ROLE\\nmem_\\w+\\s+${ada.email.replace(/[.]/g, "\\.")}\\s+ada\\s+owner\\n$`))
  })

  it("invitations: create, list, revoke; bob accepts a second one and becomes a member", async () => {
    const invited = await json("invitations", "create", bob.email, "--role", "admin", "--org", "acme-tools")
    expect(invited).toMatchObject({ email: bob.email, role: "admin", status: "pending", organizationId: orgId })
    const listed = await run("invitations", "list", "--org", orgId)
    expect(listed.stdout).toMatch(new RegExp(`^ID\\s+EMAIL\\s+ROLE\\s+STATUS\\s+EXPIRES\\n${invited.id}\\s+${bob.email.replace(/[.]/g, "\\.")}\\s+admin\\s+pending\\s+\\d{4}-`))
    expect(await run("invitations", "revoke", invited.id, "--org", orgId, "--yes")).toEqual({ code: 0, stdout: `Revoked invitation ${invited.id}.\n`, stderr: "" })
    const second = await json("invitations", "create", bob.email, "--org", orgId)
    const accepted = await stack.call("POST", "/api/v1/iam/api/auth/organization/accept-invitation", { token: bob.token, json: { invitationId: second.id } })
    expect(accepted.status).toBe(200)
  })

  it("members: list, change a role, remove", async () => {
    const { members, total } = await json("members", "list", "--org", "acme-tools")
    expect(total).toBe(2)
    const bobMember = members.find((member: { userId: string }) => member.userId === bob.id)
    expect(bobMember.role).toBe("member")
    expect(await run("members", "role", bobMember.id, "admin", "--org", orgId)).toEqual({ code: 0, stdout: `${bob.email} is now admin.\n`, stderr: "" })
    expect(await run("members", "remove", bob.email, "--org", orgId, "--yes")).toEqual({ code: 0, stdout: `Removed ${bob.email} from the organization.\n`, stderr: "" })
    expect((await json("members", "list", "--org", orgId)).total).toBe(1)
    expect((await json("members", "list")).members.map((member: { organizationId: string }) => member.organizationId)).toEqual([orgId])
  })

  it("roles: set, list, delete", async () => {
    expect(await run("roles", "set", "auditor", "audit:read", "members:read", "--org", orgId)).toEqual({
      code: 0,
      stdout: "Role auditor: audit:read, members:read.\n",
      stderr: ""
    })
    const roles = await json("roles", "list", "--org", orgId)
    expect(roles.map((mapping: { role: string }) => mapping.role)).toEqual(["admin", "auditor", "member", "owner"])
    expect((await run("roles", "delete", "auditor", "--org", orgId, "--yes")).stdout).toBe("Deleted role mapping auditor.\n")
    expect((await json("roles", "list", "--org", orgId)).map((mapping: { role: string }) => mapping.role)).not.toContain("auditor")
  })

  it("grants: create (granted by the logged-in user), list, delete", async () => {
    const grant = await json("grants", "create", "--user", ada.id, "--permission", "billing:manage", "--expires", "2099-01-01T00:00:00Z", "--org", orgId)
    expect(grant).toMatchObject({ userId: ada.id, grantedBy: ada.id, permission: "billing:manage", granted: true, expiresAt: 4070908800, active: true })
    const listed = await run("grants", "list", "--org", orgId, "--user", ada.id)
    expect(listed.stdout).toMatch(new RegExp(`^ID\\s+USER\\s+PERMISSION\\s+EFFECT\\s+EXPIRES\\s+ACTIVE\\n${grant.id}\\s+${ada.id}\\s+billing:manage\\s+grant\\s+2099-01-01T00:00:00.000Z\\s+yes\\n$`))
    expect((await run("grants", "delete", grant.id, "--yes")).stdout).toBe(`Deleted grant ${grant.id}.\n`)
    expect(await json("grants", "list", "--org", orgId)).toEqual([])
  })

  it("keys: create prints the key once with a warning; list never shows it; revoke", async () => {
    const created = await run("keys", "create", "--name", "ci", "--org", orgId)
    expect(created.code).toBe(0)
    expect(created.stderr).toBe("Copy the key now: it is shown this once and cannot be retrieved again.\n")
    const [, keyId, key] = /^Created API key (key_\w+) \(ci\) for platform plt_\w+:\n\n {2}(core_[\w-]{43})\n\n/.exec(created.stdout)!
    // Without --permission the key reads what its creator reads (decision 0595), and says so.
    expect(created.stdout.split("\n\n")[2]).toBe(
      "Permissions (the default: every read permission you hold; pass --permission to choose): apikeys:read, audit:read, billing:read, " +
        "deploy:read, entities:read, events:read, features:read, members:read, org:read, platforms:read, provisioning:read, resources:read, secrets:read, " +
        "stacks:read, vault:read\n"
    )
    const listed = await run("keys", "list", "--org", orgId)
    expect(listed.stdout).toContain(keyId)
    expect(listed.stdout).not.toContain(key)
    expect(await run("keys", "revoke", keyId, "--yes")).toEqual({ code: 0, stdout: `Revoked API key ${keyId}.\n`, stderr: "" })
    expect((await json("keys", "list", "--org", orgId))[0].revokedAt).toEqual(expect.any(String))
  })

  it("an API key stored with login --token is looked up as x-api-key and names its creator", async () => {
    const created = await json("keys", "create", "--name", "automation", "--org", orgId)
    const keyHome = tempHome()
    try {
      expect(await core(keyHome, ["login", "--token", created.key, "--iam-url", stack.iamUrl])).toEqual({ code: 0, stdout: "Authenticated via token\n", stderr: "" })
      const whoami = JSON.parse((await core(keyHome, ["whoami", "--json"])).stdout)
      expect(whoami).toMatchObject({ email: ada.email, role: "apikey", platformId: created.platformId })
      expect(JSON.stringify(whoami)).not.toContain(created.key)
    } finally {
      keyHome.remove()
      await run("keys", "revoke", created.id, "--yes")
    }
  })

  it("audit: lists the organization's entries with filters, and pages", async () => {
    const page = await json("audit", "list", "--org", orgId, "--action", "apikey.*")
    expect(page.data.map((entry: { action: string }) => entry.action)).toEqual(["apikey.revoke", "apikey.create", "apikey.revoke", "apikey.create"])
    const text = await run("audit", "list", "--org", orgId, "--limit", "1")
    expect(text.stdout).toMatch(/^TIME\s+ACTION\s+OUTCOME\s+ACTOR\s+TARGET\s+REQUEST ID\n\S+\s+apikey\.revoke\s+success\s+usr_\w+\s+\S+\s+\S+\nMore entries: run again with --cursor \S+\n$/)
    const all = await json("audit", "list", "--org", orgId, "--all", "--limit", "2")
    expect(all.data.length).toBeGreaterThan(5)
    expect(all.nextCursor).toBeNull()
  })

  it("failures exit 1 with the API's message, status, code and request id; usage errors exit 2", async () => {
    const missing = await run("orgs", "get", "no-such-org")
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^core: .+ \(404 NOT_FOUND, request id [0-9a-f-]{36}\)\n$/)
    const invalid = await run("roles", "set", "x", "no:such-permission", "--org", orgId)
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/^core: .+ \(400 VALIDATION_ERROR, request id [0-9a-f-]{36}\)\n {2}permissions\.0: .+\n$/)
    expect(await run("keys")).toMatchObject({ code: 2, stderr: "core: Missing subcommand (list, create, revoke). Usage: core keys <list|create|revoke> [options]\n" })
    expect(await run("grants", "create", "--org", orgId)).toMatchObject({ code: 2, stderr: expect.stringContaining("--user and --permission are required") })
  })
})
