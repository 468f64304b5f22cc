import { createClient } from "@core/sdk"
import { TestDatabase } from "@core/kernel/testing"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { core, tempHome, type TempHome, writeLogin } from "../packages/cli/test/login-support.js"
import type { CoreRun } from "../packages/cli/test/run-core.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * `core resources` (and its secrets) and `core features` with the real built binary against the
 * real all-in-one server, on PGlite and (with CORE_TEST_DATABASE_URL) on PostgreSQL: the platform
 * from --platform or the login, --json and tables, --limit/--cursor/--all, the lookup by edge name,
 * set-status with If-Match, delete (asks first), secrets set from stdin or a file and never printed,
 * a feature activated with --wait until the worker makes it active, the manifest, another
 * platform's records (404, exit 1), and usage errors (exit 2, before any request).
 */
const SLOW = 240_000
const STATIC_KEY = SHARED_STATIC_KEY
let bin = ""

beforeAll(async () => {
  bin = (await builtCli()).bundle
}, SLOW)

/** The binary with `input` on its stdin (runCore's stdin is closed). */
const withStdin = (home: TempHome, args: ReadonlyArray<string>, env: Record<string, string>, input: string): Promise<CoreRun> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: "1", HOME: home.home, ...env }, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }))
    child.stdin.end(input)
  })

const json = <T>(run: CoreRun): T => {
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as T
}

interface Resource { id: string; edgeName: string; status: string; environment: string; entityId: string; resourceType: string; deletedAt: string | null }

for (const driver of TestDatabase.drivers) {
  describe(`core resources and core features (built binary) through the gateway on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })

    it("records, lists, looks up, repairs and deletes resources; sets and deletes secrets; activates features; another platform's are 404", async () => {
      const operator = tempHome()
      const scoped = tempHome()
      const ada = tempHome()
      try {
        const env = { CORE_API_URL: server.base }
        writeLogin(operator, server.base, STATIC_KEY, null, "operator")
        const op = (args: ReadonlyArray<string>) => core(operator, args, env, bin)
        const platformId = json<{ id: string }>(await op(["platforms", "create", `cli-res-${driver}`, "--name", "Resources", "--json"])).id

        const none = await op(["resources", "list"])
        expect([none.code, none.stdout, none.stderr.includes("No platform: pass --platform")]).toEqual([2, "", true])

        writeLogin(scoped, server.base, STATIC_KEY, platformId, "operator")
        const run = (args: ReadonlyArray<string>) => core(scoped, args, env, bin)
        const tenants = json<{ data: Array<{ id: string; slug: string }> }>(await run(["tenants", "list", "--json"])).data
        const defaultId = tenants.find((t) => t.slug === "default")!.id
        const otherId = (/\((ent_\w+)\)/.exec((await run(["tenants", "create", "acme", "--name", "Acme"])).stdout))![1]!

        // create: table line, then --json; the edge name is unique among live resources (409, exit 1).
        const edge = `acme-api-${driver}`
        const created = await run(["resources", "create", edge, "--entity", defaultId, "--stack", "web-app", "--type", "worker", "--service", "api", "--environment", "prod"])
        expect(created).toMatchObject({ code: 0, stderr: "" })
        expect(created.stdout).toMatch(new RegExp(`^Created worker ${edge} \\((res_\\w+)\\), pending\\.\\n$`))
        const apiId = /\((res_\w+)\)/.exec(created.stdout)![1]!
        const kv = json<Resource>(await run(["resources", "create", `acme-kv-${driver}`, "--entity", defaultId, "--stack", "web-app", "--type", "kv", "--service", "cache",
          "--environment", "dev", "--url", "https://kv.example.com", "--json"]))
        expect(kv).toMatchObject({ resourceType: "kv", environment: "dev", status: "pending", entityId: defaultId, platformId })
        const db = json<Resource>(await run(["resources", "create", `acme-db-${driver}`, "--entity", otherId, "--stack", "web-app", "--type", "sql_db", "--service", "db", "--environment", "prod", "--json"]))
        const duplicate = await run(["resources", "create", edge, "--entity", otherId, "--stack", "s", "--type", "kv", "--service", "x", "--environment", "dev"])
        expect([duplicate.code, duplicate.stdout, duplicate.stderr.includes("409")]).toEqual([1, "", true])

        // list: a table, --json pages, --all, the filters and --entity.
        const table = await run(["resources", "list"])
        expect(table.code).toBe(0)
        expect(table.stdout).toMatch(/^ID\s+EDGE NAME\s+TYPE\s+ENV\s+STATUS\s+SERVICE\s+ENTITY\n/)
        expect(table.stdout).toMatch(new RegExp(`\\n${kv.id}\\s+acme-kv-${driver}\\s+kv\\s+dev\\s+pending\\s+cache\\s+${defaultId}\\n`))
        const first = json<{ data: Array<Resource>; nextCursor: string }>(await run(["resources", "list", "--limit", "2", "--json"]))
        expect([first.data.length, typeof first.nextCursor]).toEqual([2, "string"])
        const second = json<{ data: Array<Resource>; nextCursor: null }>(await run(["resources", "list", "--limit", "2", "--cursor", first.nextCursor, "--json"]))
        expect([second.data.length, second.nextCursor]).toEqual([1, null])
        expect([...first.data, ...second.data].map((r) => r.id).sort()).toEqual([apiId, kv.id, db.id].sort())
        const all = json<{ data: Array<Resource>; nextCursor: null }>(await run(["resources", "list", "--limit", "1", "--all", "--json"]))
        expect([all.data.map((r) => r.id).sort(), all.nextCursor]).toEqual([[apiId, kv.id, db.id].sort(), null])
        expect(json<{ data: Array<Resource> }>(await run(["resources", "list", "--entity", otherId, "--json"])).data.map((r) => r.id)).toEqual([db.id])
        expect(json<{ data: Array<Resource> }>(await run(["resources", "list", "--entity", defaultId, "--environment", "dev", "--json"])).data.map((r) => r.id)).toEqual([kv.id])
        expect(json<{ data: Array<Resource> }>(await run(["resources", "list", "--type", "sql_db", "--json"])).data.map((r) => r.id)).toEqual([db.id])
        expect(json<{ data: Array<Resource> }>(await op(["resources", "list", "--platform", platformId, "--status", "pending", "--all", "--json"])).data).toHaveLength(3)

        // show and lookup.
        const shown = await run(["resources", "show", apiId])
        expect(shown.stdout).toMatch(new RegExp(`^${edge} \\(${apiId}\\)\\n  Type:        worker\\n  Environment: prod\\n  Status:      pending\\n`))
        expect(json<Resource>(await op(["resources", "lookup", edge, "--json"])).id).toBe(apiId)
        expect((await run(["resources", "lookup", `acme-kv-${driver}`])).stdout).toContain(`  Edge URL:    https://kv.example.com\n`)
        const unknownEdge = await run(["resources", "lookup", "nobody-here"])
        expect([unknownEdge.code, unknownEdge.stderr.includes("NOT_FOUND")]).toEqual([1, true])

        // set-status: an operator's repair; a stale If-Match is 412.
        expect((await run(["resources", "set-status", apiId, "active"])).stdout).toBe(`${edge} (${apiId}) is active.\n`)
        const stale = await run(["resources", "set-status", apiId, "failed", "--if-match", "\"999\""])
        expect([stale.code, stale.stderr.includes("412")]).toEqual([1, true])
        expect(json<Resource>(await run(["resources", "show", apiId, "--json"])).status).toBe("active")

        // secrets: from stdin and from a file, never printed; delete asks first.
        const value = "s3cret-value-never-printed"
        const set = await withStdin(scoped, ["resources", "secrets", "set", apiId, "API_TOKEN"], env, `${value}\n`)
        expect(set).toMatchObject({ code: 0, stderr: "" })
        expect(set.stdout).toBe(`Set API_TOKEN on ${apiId} (its value is stored encrypted and never shown).\n`)
        const file = join(scoped.dir, "db-url")
        writeFileSync(file, "postgres://user:pw@db/app")
        const fromFile = await run(["resources", "secrets", "set", apiId, "DATABASE_URL", "--value-file", file, "--json"])
        expect(json<{ secretName: string; status: string }>(fromFile)).toMatchObject({ secretName: "DATABASE_URL", status: "active" })
        const secrets = await run(["resources", "secrets", "list", apiId])
        expect(secrets.stdout).toMatch(/^NAME\s+STATUS\s+LAST SET\n/)
        expect(secrets.stdout).toMatch(/\nAPI_TOKEN\s+active\s+\d{4}-/)
        for (const output of [set.stdout, fromFile.stdout, secrets.stdout, (await run(["resources", "secrets", "list", apiId, "--json"])).stdout]) {
          expect(output).not.toContain(value)
          expect(output).not.toContain("user:pw")
        }
        expect((await run(["resources", "secrets", "delete", apiId, "API_TOKEN"])).code).toBe(2)
        expect((await run(["resources", "secrets", "delete", apiId, "API_TOKEN", "--yes"])).stdout).toBe(`Deleted the secret API_TOKEN of ${apiId}.\n`)
        expect(json<{ data: Array<{ secretName: string }> }>(await run(["resources", "secrets", "list", apiId, "--status", "deleted", "--all", "--json"])).data.map((s) => s.secretName)).toEqual(["API_TOKEN"])

        // delete asks first; a deleted resource is listed only with --status deleted and no longer looked up.
        expect((await run(["resources", "delete", db.id])).code).toBe(2)
        expect((await run(["resources", "delete", db.id, "--yes"])).stdout).toBe(`Deleted ${db.id}.\n`)
        expect(json<{ data: Array<Resource> }>(await run(["resources", "list", "--status", "deleted", "--json"])).data.map((r) => r.id)).toEqual([db.id])
        expect((await run(["resources", "lookup", `acme-db-${driver}`])).code).toBe(1)

        // features: activate --wait until the server's worker makes it active, progress on stderr.
        const activated = await run(["features", "activate", "billing", "--version", "1.2.0", "--wait"])
        expect(activated.code, activated.stderr).toBe(0)
        expect(activated.stdout).toBe("billing 1.2.0 (prod) is active.\n")
        expect(activated.stderr).toMatch(/^Activating billing \(act_\w+\): pending\n/)
        expect(activated.stderr).toContain("): active\n")
        const again = json<{ status: string; activationId: string }>(await run(["features", "activate", "billing", "--version", "1.2.0", "--json"]))
        expect(again.status).toBe("active")
        const waitedAgain = await run(["features", "activate", "billing", "--version", "1.2.0", "--wait", "--json"])
        expect(json<{ id: string; status: string }>(waitedAgain)).toMatchObject({ id: again.activationId, status: "active" })
        expect(waitedAgain.stderr).toBe(`Activating billing (${again.activationId}): active\n`)
        const listed = json<{ data: Array<{ id: string; featureId: string; status: string; entityId: string }> }>(await run(["features", "list", "--json"]))
        expect(listed.data.map((a) => [a.id, a.featureId, a.status, a.entityId])).toEqual([[again.activationId, "billing", "active", defaultId]])
        expect((await run(["features", "list"])).stdout).toMatch(new RegExp(`^ID\\s+FEATURE\\s+VERSION\\s+ENV\\s+STATUS\\s+ACTIVATED\\n${again.activationId}\\s+billing\\s+1\\.2\\.0\\s+prod\\s+active\\s+\\d{4}-`))
        expect((await run(["features", "show", again.activationId])).stdout).toMatch(/^billing 1\.2\.0 \(act_\w+\)\n  Environment: prod\n  Status:      active\n/)
        const manifest = json<{ entityId: string; environment: string; features: Array<{ id: string; version: string; status: string }> }>(await run(["features", "manifest", "--json"]))
        expect(manifest).toMatchObject({ entityId: defaultId, environment: "prod", features: [{ id: "billing", version: "1.2.0", status: "active" }] })
        expect((await run(["features", "manifest"])).stdout).toMatch(/\nFEATURE\s+VERSION\s+PACKAGE\s+SERVICE URL\nbilling\s+1\.2\.0\s+\S+\s+\S+\n$/)
        expect((await run(["features", "manifest", "--environment", "dev"])).stdout).toMatch(/\nNo active features\.\n$/)
        expect(json<{ features: Array<unknown> }>(await run(["features", "manifest", "--entity", otherId, "--json"])).features).toEqual([])
        const pending = json<{ status: string }>(await run(["features", "activate", "search", "--version", "0.1.0", "--environment", "stg", "--entity", otherId, "--config", "{\"package\":\"@acme/search\"}", "--json"]))
        expect(["pending", "active"]).toContain(pending.status)
        const off = await run(["features", "deactivate", "billing"])
        expect(off.stdout).toMatch(/^billing \(prod\) is (deactivating|deactivated)\.\n$/)

        // Another platform's owner: her own platform by default; this platform's records are 404.
        const anonymous = createClient({ baseUrl: server.base })
        const slug = `ada-cli-res-${driver}`
        const { token } = await anonymous.iam.signUp({ name: "Ada", email: `${slug}@example.com`, password: "correct horse battery" })
        const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
          body: JSON.stringify({ name: "Ada", slug })
        })
        expect(setup.status).toBe(201)
        const { orgId, platformId: adaPlatform } = (await setup.json()) as { orgId: string; platformId: string }
        await createClient({ baseUrl: server.base, token }).iam.organizations.setActive({ organizationId: orgId })
        writeLogin(ada, server.base, token, adaPlatform, "owner")
        const asAda = (args: ReadonlyArray<string>) => core(ada, args, env, bin)
        expect(json<{ data: Array<unknown> }>(await asAda(["resources", "list", "--json"])).data).toEqual([])
        expect(json<{ features: Array<unknown> }>(await asAda(["features", "manifest", "--json"])).features).toEqual([])
        for (const args of [["resources", "list", "--platform", platformId], ["resources", "show", apiId, "--platform", platformId], ["resources", "show", apiId],
          ["resources", "lookup", edge], ["resources", "set-status", apiId, "failed", "--platform", platformId], ["resources", "delete", apiId, "--yes", "--platform", platformId],
          ["resources", "secrets", "list", apiId, "--platform", platformId], ["resources", "secrets", "delete", apiId, "DATABASE_URL", "--yes", "--platform", platformId],
          ["resources", "create", "ada-steals", "--entity", defaultId, "--stack", "s", "--type", "kv", "--service", "x", "--environment", "dev", "--platform", platformId],
          ["features", "list", "--platform", platformId], ["features", "manifest", "--platform", platformId, "--entity", defaultId],
          ["features", "show", again.activationId, "--platform", platformId, "--entity", defaultId], ["features", "deactivate", "billing", "--platform", platformId, "--entity", defaultId]]) {
          const answer = await asAda(args)
          expect([answer.code, answer.stderr.includes("NOT_FOUND")], args.join(" ")).toEqual([1, true])
        }
        const adaSecret = await withStdin(ada, ["resources", "secrets", "set", apiId, "STOLEN", "--platform", platformId], env, "x")
        expect([adaSecret.code, adaSecret.stderr.includes("NOT_FOUND")]).toEqual([1, true])
        expect(json<{ data: Array<{ secretName: string }> }>(await run(["resources", "secrets", "list", apiId, "--json"])).data.map((s) => s.secretName)).toEqual(["DATABASE_URL"])
        expect(json<Resource>(await run(["resources", "show", apiId, "--json"])).status).toBe("active")

        // Usage errors exit 2 before any request.
        for (const args of [["resources"], ["resources", "frob"], ["resources", "list", "--limit", "0"], ["resources", "list", "--type", "vm"], ["resources", "list", "--environment", "qa"],
          ["resources", "create", "x", "--entity", defaultId], ["resources", "create", "x", "--entity", "e", "--stack", "s", "--type", "vm", "--service", "x", "--environment", "dev"],
          ["resources", "show"], ["resources", "set-status", apiId, "gone"], ["resources", "delete"], ["resources", "lookup"], ["resources", "secrets"],
          ["resources", "secrets", "set", apiId], ["resources", "secrets", "list"], ["features"], ["features", "activate", "billing"],
          ["features", "activate", "billing", "--version", "1", "--config", "[1]"], ["features", "activate", "billing", "--version", "1", "--timeout", "0"],
          ["features", "manifest", "--environment", "qa"], ["features", "list", "--status", "on"], ["features", "show"], ["features", "deactivate"]]) {
          const answer = await run(args)
          expect([answer.code, answer.stdout], args.join(" ")).toEqual([2, ""])
        }
        const empty = await withStdin(scoped, ["resources", "secrets", "set", apiId, "EMPTY"], env, "")
        expect([empty.code, empty.stderr.includes("empty")]).toEqual([2, true])
      } finally {
        for (const home of [operator, scoped, ada]) home.remove()
      }
    }, SLOW)
  })
}
