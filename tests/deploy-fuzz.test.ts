import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Deploy } from "@core/contracts"
import { TestDatabase } from "@core/kernel/testing"
import { afterAll, describe, expect, it } from "vitest"
import { tarball } from "./support/tarballs.js"
import { call, tenantOf, until } from "./support/tenants.js"
import { type Known, wellFormedBody, wellFormedParams } from "./fuzz/inputs.js"
import { cataloguedRoutes } from "./fuzz/send.js"
import { casesFor, sendCases, sendersOf, SLOW, useFuzzServer } from "./fuzz/suite.js"

/**
 * Every command-line backend route of the catalogue (`Deploy.CliRoutes`), through the real
 * all-in-one server's gateway (`/api/v1/cli/...`), on PGlite and on PostgreSQL when
 * `CORE_TEST_DATABASE_URL` is set:
 *
 * - tenancy: a platform's owner sends every route with another platform's id and real deployment:
 *   404 `NOT_FOUND` each time, never 403, and nothing of the other platform changes;
 * - bad input: the cases tests/fuzz/inputs.ts derives from each route's schemas, from a fixed seed:
 *   no 5xx, every 4xx the error envelope, no error in the server's log, and nothing half-written
 *   (every deployment ends, no upload left in storage).
 */
const SEED = 0x15_de91
const STATIC_KEY = "fuzz-static-key-deploy-0123456789abcdef"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }
const ROUTES = cataloguedRoutes(Deploy)
/** Routes whose well-formed rest changes what is live: sent last. */
const LAST = /rollback/i

const fill = (path: string, ids: Readonly<Record<string, string>>) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!))

/** A tenant with its repository and one successful deployment. */
const owner = async (base: string, slug: string) => {
  const tenant = await tenantOf(base, slug, slug)
  const p = `/api/v1/cli/platforms/${tenant.platformId}`
  expect((await call(base, "POST", "/api/v1/cli/platforms", tenant.bearer, { platformId: tenant.platformId, displayName: slug, planTier: "starter" })).status).toBe(200)
  const response = await fetch(`${base}${p}/deploy`, {
    method: "POST",
    headers: { ...tenant.bearer, "content-type": "application/gzip" },
    body: new Uint8Array(await tarball([{ name: "index.html", content: `<h1>${slug}</h1>` }]))
  })
  expect(response.status).toBe(202)
  const { deploymentId } = await response.json() as { deploymentId: string }
  const done = await until(() => call(base, "GET", `${p}/deployments/${deploymentId}`, tenant.bearer), (r) => r.body?.status === "success", 20_000)
  expect(done.body.status).toBe("success")
  expect((await call(base, "POST", `${p}/secrets`, tenant.bearer, { secrets: { API_KEY: "v1" } })).body.results).toEqual({ API_KEY: "ok" })
  return { ...tenant, deploymentId }
}

for (const driver of TestDatabase.drivers) {
  describe(`the command-line backend's routes through the gateway, on ${driver}`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), "core-deploy-fuzz-"))
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
    const server = useFuzzServer(STATIC_KEY, driver, { CORE_DATA_DIR: dataDir })

    it("answers every route with another platform's id and deployment 404, and changes nothing", async () => {
      const { base } = server
      const a = await owner(base, `cli-tenant-a-${driver}`)
      const b = await owner(base, `cli-tenant-b-${driver}`)
      const p = `/api/v1/cli/platforms/${b.platformId}`
      const snapshot = () => Promise.all([
        call(base, "GET", `${p}/repo`, SERVICE),
        call(base, "GET", `${p}/build-status`, SERVICE),
        call(base, "GET", `${p}/deployments?limit=100`, SERVICE),
        call(base, "GET", `${p}/secrets`, SERVICE)
      ]).then((answers) => answers.map((answer) => [answer.status, answer.body]))
      const before = await snapshot()
      expect(before.map(([status]) => status)).toEqual([200, 200, 200, 200])
      const ids = { platformId: b.platformId, deploymentId: b.deploymentId }
      const known: Known = { orgId: b.orgId, platformId: b.platformId, userId: b.userId, ids }
      expect(ROUTES.map(([name]) => name).sort()).toEqual([
        "activateFeature", "buildStatus", "createRepo", "deactivateFeature", "deploy", "deployMissing", "getDeployment", "getRepo",
        "listDeployments", "listSecrets", "rollback", "setSecrets"
      ])
      const wrong: Array<string> = []
      for (const [name, route] of ROUTES) {
        // Well-formed bodies (a body is checked before the platform): real hashes, one secret.
        const body = route.method === "GET" ? undefined
          : name === "deployMissing" ? { hashes: ["0".repeat(64)] }
          : name === "setSecrets" ? { secrets: { MALLORY: "x" } }
          : wellFormedBody(route, known) ?? (name === "deploy" ? undefined : {})
        const answer = await call(base, route.method, fill(route.path, { ...wellFormedParams(route, known), ...ids }), a.bearer, body)
        if (answer.status !== 404 || answer.body?.error?.code !== "NOT_FOUND") wrong.push(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`)
      }
      // The upload form too: a real archive to another tenant's platform.
      const upload = await fetch(`${base}${p}/deploy`, {
        method: "POST",
        headers: { ...a.bearer, "content-type": "application/gzip" },
        body: new Uint8Array(await tarball([{ name: "index.html", content: "mallory" }]))
      })
      if (upload.status !== 404) wrong.push(`deploy (upload): ${upload.status}`)
      expect(wrong).toEqual([])
      expect(await snapshot()).toEqual(before)
    }, SLOW)

    it("answers every bad input without a 5xx, every 4xx in the error envelope; nothing half-written", async () => {
      const { base } = server
      const a = await owner(base, `cli-fuzz-owner-${driver}`)
      const known: Known = { orgId: a.orgId, platformId: a.platformId, userId: a.userId, ids: { deploymentId: a.deploymentId } }
      const cases = casesFor(ROUTES, known, { seed: SEED, last: LAST, atLeast: 200 })
      expect(await sendCases(`deploy fuzz on ${driver}`, server, cases, await sendersOf(base, a, STATIC_KEY))).toEqual([])
      // Nothing half-written: every deployment the fuzz may have started ends, and no upload stays in storage.
      const settled = await until(() => call(base, "GET", `/api/v1/cli/platforms/${a.platformId}/deployments?limit=100`, a.bearer),
        (r) => r.body.data.every((d: { status: string }) => d.status === "success" || d.status === "failure"), 30_000)
      expect(settled.body.data.filter((d: { status: string }) => d.status !== "success" && d.status !== "failure")).toEqual([])
      const uploads = join(dataDir, "deploy", "uploads")
      expect(readdirSync(uploads, { recursive: true }).filter((f) => String(f).endsWith(".tar.gz") || String(f).includes("tmp"))).toEqual([])
    }, SLOW)
  })
}
