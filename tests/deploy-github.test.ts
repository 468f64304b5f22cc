import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GitHub from "../packages/deploy/test/support/githubStandIn.js"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"
import { site } from "./support/sites.js"

/**
 * The command-line backend on the GitHub source host (decision 0489), through the gateway
 * of the real all-in-one server configured with `GITHUB_TOKEN`, `GITHUB_OWNER`, `GITHUB_TEMPLATE` and
 * `GITHUB_API_URL` pointing at a local stand-in that answers GitHub's documented shapes: `POST
 * /platforms` generates the repository from the template (`created`, then `exists` with the same
 * `repoFullName`), features are commits of `core.json` through the contents API, the no-body deploy
 * serves the branch's `site/` from GitHub's tarball, and a refused token is a 502 envelope.
 */
const SLOW = 180_000
const github = await GitHub.start()
github.addRepo("core-templates/site", { "README.md": "# template\n", "site/about.html": "<p>from the template</p>" }, { isTemplate: true })
afterAll(() => github.close())


for (const driver of TestDatabase.drivers) {
  describe(`the command-line backend on GitHub, through the gateway, on ${driver}`, () => {
    const server = useServer({
      GITHUB_TOKEN: github.token,
      GITHUB_OWNER: "acme",
      GITHUB_TEMPLATE: "core-templates/site",
      GITHUB_API_URL: github.url
    }, SLOW, { driver })
    let ada: Tenant
    let bob: Tenant
    let slug: string

    beforeAll(async () => {
      slug = `ada-gh-${driver}`
      ada = await tenantOf(server.base, "Ada", slug)
      bob = await tenantOf(server.base, "Bob", `bob-gh-${driver}`)
    }, SLOW)

    it("POST /platforms generates the repository from the template (created), then answers exists with the same repoFullName", async () => {
      const body = { platformId: ada.platformId, displayName: "Ada on GitHub", planTier: "starter" }
      const mark = github.requests.length
      const created = await call(server.base, "POST", "/api/v1/cli/platforms", ada.bearer, body)
      expect(created).toMatchObject({ status: 200, body: { platformId: ada.platformId, repoFullName: `acme/${slug}`, status: "created" } })
      const again = await call(server.base, "POST", "/api/v1/cli/platforms", ada.bearer, body)
      expect(again).toMatchObject({ status: 200, body: { ...created.body, status: "exists" } })
      expect(github.requests.slice(mark).filter((r) => r.method === "POST" && r.path === "/repos/core-templates/site/generate")).toHaveLength(1)
      const repo = github.repos.get(`acme/${slug}`)!
      expect(JSON.parse(repo.files.get("core.json")!.toString())).toMatchObject({ platformId: ada.platformId, displayName: "Ada on GitHub", planTier: "starter", features: {} })
      const record = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/repo`, ada.bearer)
      expect(record.body).toMatchObject({ repoFullName: `acme/${slug}`, defaultBranch: "main", cloneUrl: `${github.url}/acme/${slug}.git`, edgePagesProjectName: slug })
      expect((await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/repo`, bob.bearer)).status).toBe(404)
    }, SLOW)

    it("a feature's activation and deactivation are commits of core.json through the contents API", async () => {
      const repo = github.repos.get(`acme/${slug}`)!
      const activated = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/features/activate`, ada.bearer, { featureId: "search", version: "1.2.0", config: { depth: 2 } })
      expect(activated).toMatchObject({ status: 200, body: { status: "activated", featureId: "search", version: "1.2.0" } })
      expect(repo.commits.at(-1)).toEqual({ message: "Activate search@1.2.0", path: "core.json" })
      expect(JSON.parse(repo.files.get("core.json")!.toString()).features).toEqual({ search: { version: "1.2.0", config: { depth: 2 } } })
      await until(() => call(server.base, "GET", `/api/v1/provisioning/jobs/${activated.body.provisionJobId}`, ada.bearer), (r) => r.body.status === "COMPLETED")
      const deactivated = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/features/deactivate`, ada.bearer, { featureId: "search" })
      expect(deactivated).toMatchObject({ status: 200, body: { status: "deactivated", featureId: "search" } })
      expect(repo.commits.at(-1)).toEqual({ message: "Deactivate search", path: "core.json" })
      expect(JSON.parse(repo.files.get("core.json")!.toString()).features).toEqual({})
    }, SLOW)

    it("the no-body deploy serves the default branch's site/ from GitHub's tarball", async () => {
      const response = await fetch(`${server.base}/api/v1/cli/platforms/${ada.platformId}/deploy`, { method: "POST", headers: ada.bearer })
      const body = await response.json() as any
      expect(response.status).toBe(202)
      const done = await until(() => call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments/${body.deploymentId}`, ada.bearer),
        (r) => r.body?.status === "success" || r.body?.status === "failure", 20_000)
      expect(done.body).toMatchObject({ status: "success", errorMessage: null })
      expect((await site(server.base, `${slug}.localhost`)).text).toContain("Ada on GitHub")
      expect(await site(server.base, `${slug}.localhost`, "/about.html")).toEqual({ status: 200, text: "<p>from the template</p>" })
    }, SLOW)

    it("GitHub's rate limit outlasting the retries is a 502 envelope naming GitHub, never the token; nothing is recorded", async () => {
      const carol = await tenantOf(server.base, "Carol", `carol-gh-${driver}`)
      github.limitNext(3, "secondary")
      // Three rate limits outlast the two retries: 502, and no repository row (a retry creates it).
      const limited = await call(server.base, "POST", "/api/v1/cli/platforms", carol.bearer, { platformId: carol.platformId, displayName: "Carol", planTier: "starter" })
      expect(limited.status).toBe(502)
      expect(limited.body.error).toMatchObject({ code: "UPSTREAM_UNAVAILABLE" })
      expect(limited.body.error.message).toContain("GitHub rate limit")
      expect(JSON.stringify(limited.body)).not.toContain(github.token)
      expect((await call(server.base, "GET", `/api/v1/cli/platforms/${carol.platformId}/repo`, carol.bearer)).status).toBe(404)
      const retried = await call(server.base, "POST", "/api/v1/cli/platforms", carol.bearer, { platformId: carol.platformId, displayName: "Carol", planTier: "starter" })
      expect(retried.body).toMatchObject({ repoFullName: `acme/carol-gh-${driver}`, status: "created" })
    }, SLOW)
  })
}
