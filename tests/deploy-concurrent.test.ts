import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { tarball } from "./support/tarballs.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"

/**
 * A new platform's first deploys arriving together: its repository is made once, every
 * deploy is its own deployment and succeeds, and no answer names a server path — on PGlite and
 * PostgreSQL, through the gateway of the real all-in-one server.
 */
const SLOW = 180_000
const CONCURRENT = 6

const deploy = async (base: string, platformId: string, headers: Record<string, string>, body?: Buffer) => {
  const response = await fetch(`${base}/api/v1/cli/platforms/${platformId}/deploy`, {
    method: "POST",
    headers: body === undefined ? headers : { "content-type": "application/gzip", ...headers },
    ...(body === undefined ? {} : { body: new Uint8Array(body) })
  })
  const text = await response.text()
  return { status: response.status, text, body: text === "" ? undefined : JSON.parse(text) as any }
}

for (const driver of TestDatabase.drivers) {
  describe(`concurrent first deploys of a new platform on ${driver}`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), `core-deploy-race-${driver}-`))
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
    const server = useServer({ CORE_DATA_DIR: dataDir, CORE_SECRET: "deploy-concurrent-test-secret-0123456789abcdef" }, SLOW, { driver })
    const git = join(dataDir, "deploy", "git")
    let tenants: Array<Tenant>

    beforeAll(async () => {
      tenants = []
      for (const name of ["Ada", "Bob", "Cy"]) tenants.push(await tenantOf(server.base, name, `${name.toLowerCase()}-race-${driver}`))
    }, SLOW)

    /** No answer names the data directory, the temporary directory or any `.git` path. */
    const pathless = (texts: ReadonlyArray<string>) => {
      for (const text of texts) {
        expect(text).not.toContain(dataDir)
        expect(text).not.toContain(tmpdir())
        expect(text).not.toMatch(/\.git\b|ENOENT|ENOTEMPTY|rejected/)
      }
    }

    /** The platform's bare repository: exactly one, with the one creating commit and no staging left. */
    const oneRepository = (slug: string) => {
      expect(readdirSync(git).filter((name) => name.startsWith(slug))).toEqual([`${slug}.git`])
      const log = execFileSync("git", ["log", "--format=%s", "main"], { cwd: join(git, `${slug}.git`), encoding: "utf8" })
      expect(log.trim().split("\n")).toEqual(["Create the platform's repository"])
    }

    it(`${CONCURRENT} uploads at once: all 202, each its own deployment, all succeed; one repository`, async () => {
      const [ada] = tenants
      const answers = await Promise.all(Array.from({ length: CONCURRENT }, async (_, index) =>
        deploy(server.base, ada!.platformId, ada!.bearer, await tarball([{ name: "index.html", content: `<h1>v${index}</h1>` }]))))
      pathless(answers.map((answer) => answer.text))
      expect(answers.map((answer) => answer.status)).toEqual(Array(CONCURRENT).fill(202))
      const ids = answers.map((answer) => answer.body.deploymentId as string)
      expect(new Set(ids).size).toBe(CONCURRENT)
      for (const id of ids) {
        const done = await until(() => call(server.base, "GET", `/api/v1/cli/platforms/${ada!.platformId}/deployments/${id}`, ada!.bearer),
          (r) => r.body?.status === "success" || r.body?.status === "failure", 30_000)
        expect(done.body).toMatchObject({ deploymentId: id, status: "success", errorMessage: null })
      }
      const list = await call(server.base, "GET", `/api/v1/cli/platforms/${ada!.platformId}/deployments`, ada!.bearer)
      expect(list.body.data.map((d: { deploymentId: string }) => d.deploymentId).sort()).toEqual([...ids].sort())
      const repo = await call(server.base, "GET", `/api/v1/cli/platforms/${ada!.platformId}/repo`, ada!.bearer)
      expect(repo.body).toMatchObject({ repoFullName: "local/ada-race-" + driver, defaultBranch: "main" })
      oneRepository(`ada-race-${driver}`)
    }, SLOW)

    it(`${CONCURRENT} deploys from the repository at once; a refused upload makes no repository; ${CONCURRENT} POST /platforms: one created, the rest exists`, async () => {
      const [, bob, cy] = tenants
      const fromRepo = await Promise.all(Array.from({ length: CONCURRENT }, () => deploy(server.base, bob!.platformId, bob!.bearer)))
      pathless(fromRepo.map((answer) => answer.text))
      expect(fromRepo.map((answer) => answer.status)).toEqual(Array(CONCURRENT).fill(202))
      oneRepository(`bob-race-${driver}`)

      // An upload that fails its checks makes no repository.
      const refused = await deploy(server.base, cy!.platformId, cy!.bearer, Buffer.from("not a tarball"))
      expect([refused.status, refused.body.error.code]).toEqual([400, "VALIDATION_ERROR"])
      expect((await call(server.base, "GET", `/api/v1/cli/platforms/${cy!.platformId}/repo`, cy!.bearer)).status).toBe(404)
      expect(readdirSync(git).filter((name) => name.startsWith("cy-race"))).toEqual([])

      const body = { platformId: cy!.platformId, displayName: "Cy's site", planTier: "starter" }
      const created = await Promise.all(Array.from({ length: CONCURRENT }, () => call(server.base, "POST", "/api/v1/cli/platforms", cy!.bearer, body)))
      pathless(created.map((answer) => JSON.stringify(answer.body)))
      expect(created.map((answer) => answer.status)).toEqual(Array(CONCURRENT).fill(200))
      expect(created.map((answer) => answer.body.status).sort()).toEqual(["created", ...Array(CONCURRENT - 1).fill("exists")])
      oneRepository(`cy-race-${driver}`)
    }, SLOW)
  })
}
