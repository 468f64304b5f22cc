import { beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { core, tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import { useServer } from "../packages/server/test/ServerProcess.js"

/**
 * `core platforms` with the real built binary (tsup's dist/core.js) against the real all-in-one
 * server: the static key's credential file, --json, tables, --limit and --all over the registry's
 * nested cursor, the lifecycle verbs, confirmation of the destructive ones, and usage errors (exit 2).
 */
const SLOW = 180_000
const STATIC_KEY = "cli-static-key-0123456789abcdef"
let bin = ""

// The one build every test of the real binary shares (packages/cli/test/built-cli.ts, decision 0266).
beforeAll(async () => {
  bin = (await builtCli()).bundle
}, SLOW)

describe("core platforms (built binary) through the gateway", () => {
  const server = useServer({ CORE_STATIC_API_KEY: STATIC_KEY }, SLOW)

  it("creates, lists page by page, shows, and runs the lifecycle; destructive verbs ask first", async () => {
    const operator = tempHome()
    try {
      const env = { CORE_API_URL: server.base }
      writeLogin(operator, server.base, STATIC_KEY, null, "operator")
      const run = (args: ReadonlyArray<string>) => core(operator, args, env, bin)

      const ids: Array<string> = []
      for (const slug of ["cli-a", "cli-b", "cli-c"]) {
        const created = await run(["platforms", "create", slug, "--name", slug.toUpperCase(), "--tier", "scale"])
        expect(created).toMatchObject({ code: 0, stderr: "" })
        expect(created.stdout).toMatch(new RegExp(`^Created platform ${slug} \\((plt_\\w+)\\)\\.\\n$`))
        ids.push(/\((plt_\w+)\)/.exec(created.stdout)![1]!)
      }

      const table = await run(["platforms", "list", "--tier", "scale"])
      expect(table.code).toBe(0)
      expect(table.stdout).toMatch(/^ID\s+SLUG\s+NAME\s+STATUS\s+TIER\n/)
      for (const slug of ["cli-a", "cli-b", "cli-c"]) expect(table.stdout).toMatch(new RegExp(`\\n\\S+\\s+${slug}\\s+${slug.toUpperCase()}\\s+active\\s+scale\\n`))

      const page = JSON.parse((await run(["platforms", "list", "--tier", "scale", "--limit", "1", "--json"])).stdout)
      expect(page.data).toHaveLength(1)
      expect(typeof page.nextCursor).toBe("string")
      const all = JSON.parse((await run(["platforms", "list", "--tier", "scale", "--limit", "1", "--all", "--json"])).stdout)
      expect(all.data.map((p: { slug: string }) => p.slug).sort()).toEqual(["cli-a", "cli-b", "cli-c"])
      expect(all.nextCursor).toBeNull()

      const shown = JSON.parse((await run(["platforms", "show", ids[0]!, "--json"])).stdout)
      expect(shown).toMatchObject({ id: ids[0], slug: "cli-a", name: "CLI-A", status: "active", tier: "scale" })
      expect((await run(["platforms", "show", ids[0]!])).stdout).toMatch(/^CLI-A \(cli-a\)\n\s+ID:\s+plt_/)

      expect((await run(["platforms", "suspend", ids[1]!, "--reason", "unpaid"])).stdout).toBe(`Suspended platform cli-b (${ids[1]}): now suspended.\n`)
      expect(JSON.parse((await run(["platforms", "restore", ids[1]!, "--json"])).stdout).status).toBe("active")
      expect((await run(["platforms", "cancel", ids[1]!])).code).toBe(2) // no --yes without a terminal
      expect(JSON.parse((await run(["platforms", "show", ids[1]!, "--json"])).stdout).status).toBe("active")
      expect((await run(["platforms", "cancel", ids[1]!, "--reason", "leaving", "--yes"])).stdout).toBe(`Cancelled platform cli-b (${ids[1]}): now cancelled.\n`)
      expect((await run(["platforms", "delete", ids[1]!])).code).toBe(2)
      expect(JSON.parse((await run(["platforms", "delete", ids[1]!, "--yes", "--json"])).stdout).status).toBe("deleted")

      // A forbidden transition and an unknown platform exit 1 with the service's code.
      const again = await run(["platforms", "restore", ids[1]!])
      expect([again.code, again.stderr.includes("INVALID_STATE")]).toEqual([1, true])
      const unknown = await run(["platforms", "show", "plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"])
      expect([unknown.code, unknown.stderr.includes("NOT_FOUND")]).toEqual([1, true])

      // Usage errors exit 2 before any request.
      for (const args of [["platforms", "list", "--limit", "0"], ["platforms", "list", "--tier", "gold"], ["platforms", "create", "x"], ["platforms", "show"], ["platforms", "frob"]]) {
        expect((await run(args)).code, args.join(" ")).toBe(2)
      }
    } finally {
      operator.remove()
    }
  }, SLOW)
})
