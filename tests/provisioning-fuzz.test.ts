import { Provisioning } from "@core/contracts"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, it } from "vitest"
import { call, tenantOf, until } from "./support/tenants.js"
import { type Known, wellFormedBody, wellFormedParams } from "./fuzz/inputs.js"
import { cataloguedRoutes } from "./fuzz/send.js"
import { casesFor, sendCases, sendersOf, SLOW, useFuzzServer } from "./fuzz/suite.js"

/**
 * Every provisioning route of the catalogue, through the real all-in-one server's gateway (at
 * `/api/v1/provisioning/<path>`), on PGlite and on PostgreSQL when `CORE_TEST_DATABASE_URL` is set:
 *
 * - tenancy: a platform's owner sends every route a tenant may call with another platform's real
 *   records (its job, its custom domain, its platform and entity): 404 `NOT_FOUND` each time (the
 *   job list of that platform: empty), never 403, and nothing of the other platform changes;
 * - bad input: the cases tests/fuzz/inputs.ts derives from each route's schemas, from a fixed seed:
 *   no 5xx, every 4xx the error envelope, no error in the server's log.
 */
const SEED = 0x9_0613
const STATIC_KEY = "fuzz-static-key-provisioning-0123456789"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }

/** Every catalogued provisioning route, by name. */
const ROUTES = cataloguedRoutes(Provisioning)

/** Routes whose well-formed rest could end the fuzz's own platform or jobs: sent last. */
const LAST = /deprovision|PlatformStatus|cancel|forceComplete|remove/i

/** A route's path under the gateway's prefix: `/api/v1/provision/x` and `/internal/x` as `/api/v1/provisioning/...`. */
const gatewayPath = (path: string) => `/api/v1/provisioning${path.replace(/^\/api\/v1\/provision(?=\/)/, "")}`

const fill = (path: string, ids: Readonly<Record<string, string>>) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!))

/** A tenant with a DNS record (a custom domain's target) and its default tenant's id. */
const owner = async (base: string, slug: string) => {
  const tenant = await tenantOf(base, slug, slug)
  const p = `/api/v1/platforms/${tenant.platformId}`
  const entities = await call(base, "GET", `${p}/entities`, tenant.bearer)
  const entityId = (entities.body.data as Array<{ id: string; slug: string }>).find((entity) => entity.slug === "default")!.id
  const record = await call(base, "POST", `${p}/dns-records`, SERVICE, { type: "CNAME", name: `${slug}.example.com`, content: "edge.example.net", ttl: 1, proxied: false })
  expect(record.status).toBe(201)
  return { ...tenant, entityId, recordId: record.body.id as string }
}

for (const driver of TestDatabase.drivers) {
  describe(`provisioning's routes through the gateway, on ${driver}`, () => {
    const server = useFuzzServer(STATIC_KEY, driver)

    it("answers every tenant route with another platform's records 404, and changes nothing", async () => {
      const { base } = server
      const a = await owner(base, "prov-tenant-a")
      const b = await owner(base, "prov-tenant-b")
      // B's real records: a finished job and an active custom domain.
      const added = await call(base, "POST", gatewayPath("/api/v1/provision/domain/add"), b.bearer,
        { platformId: b.platformId, customHostname: `shop-${driver}.b.example.com`, targetDnsRecordId: b.recordId })
      expect(added.status).toBe(202)
      const job = await until(() => call(base, "GET", gatewayPath(`/api/v1/provision/jobs/${added.body.jobId}`), b.bearer), (r) => r.body.status === "COMPLETED", 20_000)
      expect(job.body.status).toBe("COMPLETED")
      const domains = await call(base, "GET", gatewayPath(`/api/v1/provision/domains?platformId=${b.platformId}`), b.bearer)
      expect(domains.body.data).toHaveLength(1)
      const ids: Record<string, string> = {
        platformId: b.platformId, entityId: b.entityId, jobId: added.body.jobId, id: domains.body.data[0].id,
        targetDnsRecordId: b.recordId, stackInstanceId: "sti_00000000000000000000000000", customHostname: `other-${driver}.b.example.com`
      }
      const known: Known = { orgId: b.orgId, platformId: b.platformId, userId: b.userId, ids }
      const snapshot = () => Promise.all([
        call(base, "GET", gatewayPath(`/api/v1/provision/jobs?platformId=${b.platformId}&limit=100`), SERVICE),
        call(base, "GET", gatewayPath(`/api/v1/provision/domains?platformId=${b.platformId}`), SERVICE),
        call(base, "GET", `/api/v1/platforms/${b.platformId}/resources`, SERVICE)
      ]).then((answers) => answers.map((answer) => answer.body))
      const before = await snapshot()

      const tenantRoutes = ROUTES.filter(([, route]) => route.auth === "caller")
      expect(tenantRoutes.map(([name]) => name).sort()).toEqual([
        "activateFeatureJob", "activateStack", "addDomain", "createApp", "deactivateFeatureJob", "deactivateStack", "deprovisionPlatform",
        "getJob", "listDomains", "listJobs", "onboard", "provisionPlatform", "removeDomain", "streamJobEvents"
      ])
      const wrong: Array<string> = []
      for (const [name, route] of tenantRoutes) {
        const body = route.method === "GET" || route.method === "DELETE" ? undefined : wellFormedBody(route, known) ?? {}
        const query = route.request?.query === undefined ? "" : `?platformId=${encodeURIComponent(b.platformId)}`
        const answer = await call(base, route.method, `${gatewayPath(fill(route.path, { ...wellFormedParams(route, known), ...ids }))}${query}`, a.bearer, body)
        if (name === "listJobs") {
          if (answer.status !== 200 || answer.body.data.length !== 0) wrong.push(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`)
        } else if (name === "onboard") {
          // An onboardingId of no flow would start one, which only operators do (decision 0575).
          if (answer.status !== 403 || answer.body?.error?.code !== "FORBIDDEN") wrong.push(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`)
        } else if (answer.status !== 404 || answer.body?.error?.code !== "NOT_FOUND") {
          wrong.push(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`)
        }
      }
      // The operator routes: a tenant's owner is refused (403), whatever the record.
      for (const [name, route] of ROUTES.filter(([, route]) => route.auth === "operator")) {
        const answer = await call(base, route.method, gatewayPath(fill(route.path, { ...wellFormedParams(route, known), ...ids })), a.bearer,
          route.method === "GET" ? undefined : wellFormedBody(route, known) ?? {})
        if (answer.status !== 403 || answer.body?.error?.code !== "FORBIDDEN") wrong.push(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`)
      }
      expect(wrong).toEqual([])
      expect(await snapshot()).toEqual(before)
    }, SLOW)

    it("answers every bad input without a 5xx, every 4xx in the error envelope", async () => {
      const { base } = server
      const a = await owner(base, "prov-fuzz-owner")
      const added = await call(base, "POST", gatewayPath("/api/v1/provision/domain/add"), a.bearer,
        { platformId: a.platformId, customHostname: `fuzz-${driver}.a.example.com`, targetDnsRecordId: a.recordId })
      expect(added.status).toBe(202)
      await until(() => call(base, "GET", gatewayPath(`/api/v1/provision/jobs/${added.body.jobId}`), a.bearer), (r) => r.body.status === "COMPLETED", 20_000)
      const domains = await call(base, "GET", gatewayPath(`/api/v1/provision/domains?platformId=${a.platformId}`), a.bearer)
      const known: Known = {
        orgId: a.orgId, platformId: a.platformId, userId: a.userId,
        ids: {
          entityId: a.entityId, jobId: added.body.jobId, id: domains.body.data[0].id, targetDnsRecordId: a.recordId,
          customHostname: `more-${driver}.a.example.com`
        }
      }
      const cases = casesFor(ROUTES, known, { seed: SEED, last: LAST, path: gatewayPath, atLeast: 500 })
      expect(await sendCases(`provisioning fuzz on ${driver}`, server, cases, await sendersOf(base, a, STATIC_KEY))).toEqual([])
    }, SLOW)
  })
}
