import { createClient } from "@core/sdk"
import { beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { core, tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * `core tenants` with the real built binary against the real all-in-one server: the platform from
 * --platform or from the login, --json and tables, --limit/--cursor/--all over the registry's
 * cursor, the tree, rename, delete (asks first; refused over live children unless --cascade),
 * another platform's tenants (404, exit 1), and usage errors (exit 2, before any request).
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY
let bin = ""

beforeAll(async () => {
  bin = (await builtCli()).bundle
}, SLOW)

const idOf = (stdout: string): string => /\((ent_\w+)\)/.exec(stdout)![1]!

describe("core tenants (built binary) through the gateway", () => {
  const server = useSharedServer(SLOW)

  it("lists, creates, shows, draws the tree, renames and deletes a platform's tenants; another platform's are 404", async () => {
    const operator = tempHome()
    const scoped = tempHome()
    const ada = tempHome()
    try {
      const env = { CORE_API_URL: server.base }
      writeLogin(operator, server.base, STATIC_KEY, null, "operator")
      const op = (args: ReadonlyArray<string>) => core(operator, args, env, bin)
      const created = await op(["platforms", "create", "cli-tenants", "--name", "Tenants", "--json"])
      expect(created).toMatchObject({ code: 0, stderr: "" })
      const platformId = (JSON.parse(created.stdout) as { id: string }).id

      // Without --platform, a login that has no platform is a usage error.
      const none = await op(["tenants", "list"])
      expect([none.code, none.stdout, none.stderr.includes("No platform: pass --platform")]).toEqual([2, "", true])

      // A login to the platform: its platform is the default.
      writeLogin(scoped, server.base, STATIC_KEY, platformId, "operator")
      const run = (args: ReadonlyArray<string>) => core(scoped, args, env, bin)
      const initial = JSON.parse((await run(["tenants", "list", "--json"])).stdout) as { data: Array<{ slug: string; type: string; parentId: null }>; nextCursor: null }
      expect(initial.data.map((entity) => [entity.slug, entity.type, entity.parentId])).toEqual([["default", "tenant", null]])
      expect(initial.nextCursor).toBeNull()
      expect(JSON.parse((await op(["tenants", "list", "--platform", platformId, "--json"])).stdout)).toEqual(initial)

      const acme = await run(["tenants", "create", "acme", "--name", "Acme"])
      expect(acme).toMatchObject({ code: 0, stderr: "" })
      expect(acme.stdout).toMatch(/^Created tenant acme \(ent_\w+\)\.\n$/)
      const acmeId = idOf(acme.stdout)
      const eu = await run(["tenants", "create", "acme-eu", "--name", "Acme EU", "--parent", acmeId])
      expect(eu.stdout).toMatch(/^Created subtenant acme-eu \(ent_\w+\)\.\n$/)
      const euId = idOf(eu.stdout)
      const paris = JSON.parse((await run(["tenants", "create", "paris", "--name", "Paris", "--parent", euId, "--json"])).stdout) as { id: string; type: string; parentId: string }
      expect(paris).toMatchObject({ type: "subtenant", parentId: euId, platformId })
      const betaId = idOf((await run(["tenants", "create", "beta", "--name", "Beta"])).stdout)

      // The service's refusals exit 1 with its code: a duplicate slug among siblings.
      const duplicate = await run(["tenants", "create", "acme", "--name", "Again"])
      expect([duplicate.code, duplicate.stderr.includes("409")]).toEqual([1, true])

      const table = await run(["tenants", "list"])
      expect(table.code).toBe(0)
      expect(table.stdout).toMatch(/^ID\s+SLUG\s+NAME\s+TYPE\s+STATUS\s+PARENT\n/)
      expect(table.stdout).toContain(`${euId}  acme-eu`)
      expect(table.stdout).toMatch(new RegExp(`\\n${paris.id}\\s+paris\\s+Paris\\s+subtenant\\s+active\\s+${euId}\\n`))

      const page = JSON.parse((await run(["tenants", "list", "--limit", "2", "--json"])).stdout) as { data: Array<{ slug: string }>; nextCursor: string }
      expect(page.data).toHaveLength(2)
      expect(typeof page.nextCursor).toBe("string")
      const next = JSON.parse((await run(["tenants", "list", "--limit", "2", "--cursor", page.nextCursor, "--json"])).stdout) as { data: Array<{ slug: string }> }
      expect(next.data).toHaveLength(2)
      expect(next.data.map((e) => e.slug)).not.toContain(page.data[0]!.slug)
      const all = JSON.parse((await run(["tenants", "list", "--limit", "1", "--all", "--json"])).stdout) as { data: Array<{ slug: string }>; nextCursor: null }
      expect(all.data.map((e) => e.slug).sort()).toEqual(["acme", "acme-eu", "beta", "default", "paris"])
      expect(all.nextCursor).toBeNull()
      const subtenants = JSON.parse((await run(["tenants", "list", "--type", "subtenant", "--json"])).stdout) as { data: Array<{ slug: string }> }
      expect(subtenants.data.map((e) => e.slug).sort()).toEqual(["acme-eu", "paris"])
      const children = JSON.parse((await run(["tenants", "list", "--parent", acmeId, "--json"])).stdout) as { data: Array<{ slug: string }> }
      expect(children.data.map((e) => e.slug)).toEqual(["acme-eu"])

      const shown = await run(["tenants", "show", paris.id])
      expect(shown.stdout).toMatch(/^Paris \(paris\)\n\s+ID:\s+ent_/)
      expect(shown.stdout).toContain("  Path:     acme / acme-eu / paris\n")
      const shownJson = JSON.parse((await run(["tenants", "show", paris.id, "--json"])).stdout) as { id: string; ancestors: Array<{ slug: string }> }
      expect([shownJson.id, shownJson.ancestors.map((a) => a.slug)]).toEqual([paris.id, ["acme", "acme-eu"]])

      const tree = await run(["tenants", "tree"])
      expect(tree.code).toBe(0)
      const lines = tree.stdout.trimEnd().split("\n")
      expect(lines).toHaveLength(5)
      expect(lines).toContain(`acme  Acme  ${acmeId}`)
      expect(lines).toContain(`└── acme-eu  Acme EU  ${euId}`)
      expect(lines).toContain(`    └── paris  Paris  ${paris.id}`)
      expect(lines).toContain(`beta  Beta  ${betaId}`)
      expect(lines.indexOf(`└── acme-eu  Acme EU  ${euId}`)).toBe(lines.indexOf(`acme  Acme  ${acmeId}`) + 1)
      const subtree = JSON.parse((await run(["tenants", "tree", euId, "--json"])).stdout) as { data: Array<{ slug: string; children: Array<{ slug: string; children: Array<unknown> }> }> }
      expect(subtree.data.map((n) => [n.slug, n.children.map((c) => [c.slug, c.children])])).toEqual([["acme-eu", [["paris", []]]]])

      expect((await run(["tenants", "rename", betaId, "Beta Co"])).stdout).toBe(`Renamed beta (${betaId}) to Beta Co.\n`)
      expect(JSON.parse((await run(["tenants", "show", betaId, "--json"])).stdout).name).toBe("Beta Co")

      // Delete asks first (no terminal: exit 2), is refused over live children, and --cascade takes the subtree.
      expect((await run(["tenants", "delete", acmeId])).code).toBe(2)
      const refused = await run(["tenants", "delete", acmeId, "--yes"])
      expect([refused.code, refused.stderr.includes("409")]).toEqual([1, true])
      expect((await run(["tenants", "delete", betaId, "--yes"])).stdout).toBe(`Deleted ${betaId}.\n`)
      expect(JSON.parse((await run(["tenants", "delete", acmeId, "--cascade", "--yes", "--json"])).stdout)).toEqual({ success: true, id: acmeId, cascade: true })
      expect((await run(["tenants", "tree"])).stdout).toMatch(/^default {2}\S.* ent_\w+\n$/)
      const deleted = JSON.parse((await run(["tenants", "list", "--status", "deleted", "--all", "--json"])).stdout) as { data: Array<{ slug: string; deletedAt: string }> }
      expect(deleted.data.map((e) => e.slug).sort()).toEqual(["acme", "acme-eu", "beta", "paris"])
      const gone = await run(["tenants", "show", "ent_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"])
      expect([gone.code, gone.stderr.includes("NOT_FOUND")]).toEqual([1, true])

      // Another platform's owner: her own platform by default; this platform and its tenants are 404.
      const anonymous = createClient({ baseUrl: server.base })
      const { token } = await anonymous.iam.signUp({ name: "Ada", email: "ada-cli-tenants@example.com", password: "correct horse battery" })
      const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
        body: JSON.stringify({ name: "Ada", slug: "ada-cli-tenants" })
      })
      expect(setup.status).toBe(201)
      const { orgId, platformId: adaPlatform } = (await setup.json()) as { orgId: string; platformId: string }
      await createClient({ baseUrl: server.base, token }).iam.organizations.setActive({ organizationId: orgId })
      writeLogin(ada, server.base, token, adaPlatform, "owner")
      const asAda = (args: ReadonlyArray<string>) => core(ada, args, env, bin)
      const own = await asAda(["tenants", "list", "--json"])
      expect(own.code).toBe(0)
      expect((JSON.parse(own.stdout) as { data: Array<{ slug: string; platformId: string }> }).data.map((e) => [e.slug, e.platformId])).toEqual([["default", adaPlatform]])
      for (const args of [["tenants", "list", "--platform", platformId], ["tenants", "show", euId, "--platform", platformId], ["tenants", "show", euId],
        ["tenants", "rename", euId, "Mine", "--platform", platformId], ["tenants", "tree", euId, "--platform", platformId], ["tenants", "delete", euId, "--yes", "--platform", platformId]]) {
        const answer = await asAda(args)
        expect([answer.code, answer.stderr.includes("NOT_FOUND")], args.join(" ")).toEqual([1, true])
      }

      // Usage errors exit 2 before any request.
      for (const args of [["tenants", "list", "--limit", "0"], ["tenants", "list", "--status", "gone"], ["tenants", "list", "--type", "org"], ["tenants", "create", "x"],
        ["tenants", "show"], ["tenants", "rename", euId], ["tenants", "tree", "a", "b"], ["tenants", "delete"], ["tenants", "frob"], ["tenants"]]) {
        const answer = await run(args)
        expect([answer.code, answer.stdout], args.join(" ")).toEqual([2, ""])
      }
    } finally {
      for (const home of [operator, scoped, ada]) home.remove()
    }
  }, SLOW)
})
