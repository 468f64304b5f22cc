import { Registry, type RouteSpec } from "@core/contracts"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, it } from "vitest"
import { call, tenantOf } from "./support/tenants.js"
import { type Known, wellFormedBody, wellFormedParams } from "./fuzz/inputs.js"
import { cataloguedRoutes } from "./fuzz/send.js"
import { casesFor, sendCases, sendersOf, SLOW, useFuzzServer } from "./fuzz/suite.js"
import { eventually } from "./support/poll.js"

/**
 * Every registry route of the catalogue, through the real all-in-one server (its gateway in front of
 * the registry), on PGlite and on PostgreSQL when `CORE_TEST_DATABASE_URL` is set:
 *
 * - tenancy: a platform's owner sends every route with another platform's ids (and its own platform
 *   with another platform's entity): 404 `NOT_FOUND` each time, never 403, and nothing changes;
 * - bad input: the cases tests/fuzz/inputs.ts derives from each route's schemas, from a fixed seed:
 *   no 5xx, every 4xx the error envelope, no error in the server's log.
 */
const SEED = 0x2e_6157
const STATIC_KEY = "fuzz-static-key-0123456789abcdef"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }

/** Every catalogued registry route, by name. */
const ROUTES = cataloguedRoutes(Registry)

/** Routes whose well-formed rest could end the fuzz's own platform or tree: sent last. */
const LAST = /delete|suspend|cancel|restore|remove|deactivate/i

/** A tenant (its platform set up by identity) with a subtenant under its default tenant. */
const owner = async (base: string, slug: string) => {
  const tenant = await tenantOf(base, slug, slug)
  const entities = await call(base, "GET", `/api/v1/platforms/${tenant.platformId}/entities`, tenant.bearer)
  expect(entities.status).toBe(200)
  const root = (entities.body.data as Array<{ id: string; slug: string }>).find((entity) => entity.slug === "default")!
  const child = await call(base, "POST", `/api/v1/platforms/${tenant.platformId}/entities`, tenant.bearer, { name: "Child", slug: "child", type: "subtenant", parentId: root.id })
  expect(child.status).toBe(201)
  return { ...tenant, entityId: child.body.id as string }
}

const fill = (path: string, ids: Readonly<Record<string, string>>) =>
  path.replace(/\{(\w+)\}|:(\w+)/g, (_, a: string | undefined, b: string | undefined) => encodeURIComponent(ids[(a ?? b)!]!))

for (const driver of TestDatabase.drivers) {
  describe(`the registry's routes through the gateway, on ${driver}`, () => {
    const server = useFuzzServer(STATIC_KEY, driver)

    it("answers every route with another platform's ids 404, and changes nothing", async () => {
      const { base } = server
      const a = await owner(base, "tenant-a")
      const b = await owner(base, "tenant-b")
      // One record of every kind in B's platform, so that each route is tried with a real id of B.
      const p = `/api/v1/platforms/${b.platformId}`
      const resource = await call(base, "POST", `${p}/entities/${b.entityId}/resources`, SERVICE, {
        stackId: "stk_b", resourceType: "kv", serviceName: "cache", environment: "prod", edgeName: "tenant-b-prod-cache"
      })
      const record = await call(base, "POST", `${p}/dns-records`, SERVICE, { type: "A", name: "b.example.com", content: "192.0.2.1", ttl: 1, proxied: false })
      const activation = await call(base, "POST", `${p}/entities/${b.entityId}/features/activate`, SERVICE, { featureId: "search", version: "1.0.0", environment: "prod" })
      const secret = await call(base, "PUT", `${p}/resources/${resource.body.id}/secrets/API_TOKEN`, SERVICE, { value: "b-secret-value" })
      expect([resource.status, record.status, activation.status, secret.status]).toEqual([201, 201, 202, 201])
      const ids: Record<string, string> = {
        platformId: b.platformId, entityId: b.entityId, parentId: b.entityId, resourceId: resource.body.id,
        recordId: record.body.id, activationId: activation.body.activationId, secretName: "API_TOKEN"
      }
      /** Bodies the schema sampler cannot make well formed (cross-field rules). */
      const bodies: Record<string, unknown> = {
        createDnsRecord: { type: "A", name: "a.example.com", content: "192.0.2.2", ttl: 1, proxied: false },
        updateResource: { status: "failed" },
        setResourceSecret: { value: "overwritten" }
      }
      const snapshot = () => Promise.all([
        call(base, "GET", p, SERVICE),
        call(base, "GET", `${p}/entities?limit=100`, SERVICE),
        call(base, "GET", `${p}/resources/${resource.body.id}`, SERVICE),
        call(base, "GET", `${p}/dns-records`, SERVICE),
        call(base, "GET", `${p}/resources/${resource.body.id}/secrets`, SERVICE),
        call(base, "GET", `${p}/lifecycle`, SERVICE)
      ]).then((answers) => answers.map((answer) => answer.body))
      // The activation's job may still be running: wait until it settles, so that the snapshot holds still.
      await eventually(() => call(base, "GET", `${p}/entities/${b.entityId}/features/${activation.body.activationId}`, SERVICE),
        (found) => found.body.status !== "pending", { message: "the feature activation's job to settle", interval: 100 })
      const before = await snapshot()
      const scoped = ROUTES.filter(([, route]) => /[{:]platformId/.test(route.path))
      expect(scoped.length).toBeGreaterThanOrEqual(25)
      const wrong: Array<string> = []
      const probe = async (name: string, route: RouteSpec, ids: Record<string, string>, label: string) => {
        const known = { orgId: b.orgId, platformId: ids.platformId!, userId: b.userId, ids }
        const body = route.method === "GET" || route.method === "DELETE" ? undefined : bodies[name] ?? wellFormedBody(route, known) ?? {}
        const answer = await call(base, route.method, fill(route.path, { ...wellFormedParams(route, known), ...ids }), a.bearer, body)
        if (answer.status !== 404 || answer.body?.error?.code !== "NOT_FOUND") wrong.push(`${name} ${label}: ${answer.status} ${JSON.stringify(answer.body)}`)
      }
      for (const [name, route] of scoped) {
        await probe(name, route, ids, "with the other platform's ids")
        if (/[{:](entityId|resourceId|recordId|activationId)/.test(route.path)) await probe(name, route, { ...ids, platformId: a.platformId }, "with the other platform's records under its own")
      }
      for (const lookup of ["/api/v1/lookup", "/api/v1/resources/lookup"]) {
        const answer = await call(base, "GET", `${lookup}?edgeName=tenant-b-prod-cache`, a.bearer)
        if (answer.status !== 404) wrong.push(`${lookup}: ${answer.status} ${JSON.stringify(answer.body)}`)
      }
      expect(wrong).toEqual([])
      expect(await snapshot()).toEqual(before)
      expect(JSON.stringify(before)).not.toContain("b-secret-value")
      const events = await call(base, "GET", `${p}/lifecycle`, SERVICE)
      expect(events.body.pagination.total).toBe(0)
    }, SLOW)

    it("answers every bad input without a 5xx, every 4xx in the error envelope", async () => {
      const { base } = server
      const a = await owner(base, "fuzz-owner")
      // Records of every kind, so that a well-formed rest reaches past the lookups of each route.
      const p = `/api/v1/platforms/${a.platformId}`
      const resource = await call(base, "POST", `${p}/entities/${a.entityId}/resources`, SERVICE, {
        stackId: "stk_a", resourceType: "kv", serviceName: "cache", environment: "prod", edgeName: "fuzz-prod-cache"
      })
      const record = await call(base, "POST", `${p}/dns-records`, SERVICE, { type: "A", name: "fuzz.example.com", content: "192.0.2.1" })
      const activation = await call(base, "POST", `${p}/entities/${a.entityId}/features/activate`, SERVICE, { featureId: "search", version: "1.0.0", environment: "prod" })
      const known: Known = {
        orgId: a.orgId, platformId: a.platformId, userId: a.userId,
        ids: { entityId: a.entityId, parentId: a.entityId, resourceId: resource.body.id, recordId: record.body.id, activationId: activation.body.activationId, secretName: "API_TOKEN", edgeName: "fuzz-prod-cache" }
      }
      const cases = casesFor(ROUTES, known, { seed: SEED, last: LAST, atLeast: 1_000 })
      expect(await sendCases(`registry fuzz on ${driver}`, server, cases, await sendersOf(base, a, STATIC_KEY))).toEqual([])
    }, SLOW)
  })
}
