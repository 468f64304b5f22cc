import { TestDatabase } from "@core/kernel/testing"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { core, tempHome, type TempHome, writeLogin } from "../packages/cli/test/login-support.js"
import type { CoreRun } from "../packages/cli/test/run-core.js"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { type Tenant, tenantOf } from "./support/tenants.js"
import { site } from "./support/sites.js"

/**
 * `core deploy` with the real built binary through the gateway of the real all-in-one server:
 * a directory deployed and answering at `<project>.localhost`, an unchanged redeploy
 * sending no file again, a preview beside production, `core deployments list|rollback`, and
 * `core secrets set|list` — on PGlite and PostgreSQL.
 */
const SLOW = 240_000
let bin = ""

beforeAll(async () => {
  bin = (await builtCli()).bundle
}, SLOW)

const json = <T>(run: CoreRun): T => {
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as T
}


interface Record { deploymentId: string; status: string; url: string; live: boolean; branch: string }

for (const driver of TestDatabase.drivers) {
  describe(`core deploy (built binary) through the all-in-one server on ${driver}`, () => {
    const server = useServer({}, SLOW, { driver })
    let ada: Tenant
    let home: TempHome
    let work: string
    const slug = `cli-deploy-${driver}`
    const run = (args: ReadonlyArray<string>) => core(home, args, { CORE_API_URL: server.base }, bin)

    beforeAll(async () => {
      ada = await tenantOf(server.base, "Ada", slug)
      home = tempHome()
      writeLogin(home, server.base, ada.token, ada.platformId, "owner")
      work = mkdtempSync(join(tmpdir(), "core-site-"))
    }, SLOW)
    afterAll(() => {
      home?.remove()
      rmSync(work, { recursive: true, force: true })
    })

    it("deploys a directory (answering at its .localhost address), redeploys it unchanged without sending a file, a preview beside it, then a rollback", async () => {
      const dist = join(work, "dist")
      mkdirSync(join(dist, "assets"), { recursive: true })
      writeFileSync(join(dist, "index.html"), "<h1>first</h1>")
      writeFileSync(join(dist, "assets", "app.0a1b2c3d.js"), "console.log('app')")
      const first = json<Record>(await run(["deploy", dist, "--json"]))
      expect(first).toMatchObject({ status: "success", branch: "main", live: true, url: expect.stringContaining(`${slug}.localhost`) })
      expect(await site(server.base, `${slug}.localhost`)).toEqual({ status: 200, text: "<h1>first</h1>" })
      expect((await site(server.base, `${slug}.localhost`, "/assets/app.0a1b2c3d.js")).text).toBe("console.log('app')")

      const again = await run(["deploy", dist])
      expect(again.code, again.stderr).toBe(0)
      expect(again.stdout).toContain("Deploying 2 files")
      expect(again.stdout).toContain("0 to upload, 2 already on the server")
      expect(again.stdout).toMatch(new RegExp(`Live at http://${slug}\\.localhost:\\d+/`))

      const preview = join(work, "preview")
      mkdirSync(preview)
      writeFileSync(join(preview, "index.html"), "<h1>preview</h1>")
      const previewed = json<Record>(await run(["deploy", preview, "--branch", "feature-x", "--json"]))
      expect(previewed).toMatchObject({ status: "success", branch: "feature-x", url: expect.stringContaining(`feature-x.${slug}.localhost`) })
      expect((await site(server.base, `feature-x.${slug}.localhost`)).text).toBe("<h1>preview</h1>")

      writeFileSync(join(dist, "index.html"), "<h1>second</h1>")
      const changed = await run(["deploy", dist])
      expect(changed.stdout).toContain("1 to upload, 1 already on the server")
      expect((await site(server.base, `${slug}.localhost`)).text).toBe("<h1>second</h1>")

      const list = json<{ data: Array<Record> }>(await run(["deployments", "list", "--json"]))
      expect(list.data.length).toBe(4)
      expect(list.data[3]!.deploymentId).toBe(first.deploymentId)
      const rolled = json<Record>(await run(["deployments", "rollback", first.deploymentId, "--json"]))
      expect(rolled).toMatchObject({ deploymentId: first.deploymentId, live: true })
      expect((await site(server.base, `${slug}.localhost`)).text).toBe("<h1>first</h1>")
      expect((await site(server.base, `feature-x.${slug}.localhost`)).text).toBe("<h1>preview</h1>")
      const shown = json<Record>(await run(["deployments", "show", first.deploymentId, "--json"]))
      expect(shown.status).toBe("success")
      const missing = await run(["deployments", "show", "dep_00000000000000000000000000"])
      expect(missing.code).toBe(1)
    }, SLOW)

    it("piped, a one-file site says '1 file' and prints each status once, 'success' once", async () => {
      const single = join(work, "single")
      mkdirSync(single)
      writeFileSync(join(single, "index.html"), "<h1>one</h1>")
      const piped = await run(["deploy", single, "--branch", "one-file"])
      expect({ code: piped.code, stderr: piped.stderr }).toEqual({ code: 0, stderr: "" })
      const lines = piped.stdout.trimEnd().split("\n")
      expect(lines[0]).toBe("Deploying 1 file (0.00 MiB): 1 to upload, 0 already on the server.")
      expect(lines[1]).toMatch(/^Deployment dep_\w+ queued \(project [\w-]+\)\.$/)
      expect(lines.at(-1)).toMatch(new RegExp(`^Live at http://one-file\\.${slug}\\.localhost:\\d+/$`))
      // The statuses between, as the deployment went through them: each once, ending in one 'success'.
      const statuses = lines.slice(2, -1)
      expect(statuses[0]).toBe("queued")
      expect(statuses.at(-1)).toBe("success")
      expect(statuses.filter((status) => status === "success")).toEqual(["success"])
      expect(new Set(statuses).size).toBe(statuses.length)
    }, SLOW)

    it("core secrets set NAME=value and from stdin, list shows names only; a bad name is a usage error", async () => {
      const set = json<{ results: { [name: string]: string } }>(await run(["secrets", "set", "API_URL=https://api.example.com", "--json"]))
      expect(set.results).toEqual({ API_URL: "ok" })
      const list = json<{ data: Array<{ name: string }> }>(await run(["secrets", "list", "--json"]))
      expect(list.data.map((s) => s.name)).toEqual(["API_URL"])
      const bad = await run(["secrets", "set", "bad-name=x"])
      expect(bad.code).toBe(2)
    }, SLOW)
  })
}
