import type { RouteSpec } from "@core/contracts"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { CRAFTED_CURSORS } from "./fuzz/cursors.js"
import { wellFormedQuery } from "./fuzz/inputs.js"
import { SLOW, useFuzzServer } from "./fuzz/suite.js"
import { everyRoute, fillPath } from "./support/catalogue.js"
import { call, tenantOf } from "./support/tenants.js"

/**
 * Every paged route of the catalogue (a `cursor` in its query: 21 today, derived, so a new one is
 * covered when it is declared) answers a cursor no server issued (crafted sort keys such as the
 * probe's base64url of `{"id":"x","createdAt":"x"}`, other JSON, garbage, truncated, huge) with
 * 400 `VALIDATION_ERROR` on `cursor`, never a 500, and logs no error; through the all-in-one
 * server's gateway, on PGlite and on PostgreSQL when `CORE_TEST_DATABASE_URL` is set (decision 0565).
 */
const STATIC_KEY = "paged-cursors-static-key-0123456789ab"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }

const hasCursor = (route: RouteSpec): boolean => {
  const query = route.request?.query
  return query instanceof z.ZodObject && "cursor" in query.shape
}
const PAGED = everyRoute().filter(({ route }) => route.method === "GET" && hasCursor(route))

for (const driver of TestDatabase.drivers) {
  describe(`cursors of every paged route through the gateway, on ${driver}`, () => {
    const server = useFuzzServer(STATIC_KEY, driver)

    it("answers every cursor no server issued 400 VALIDATION_ERROR on cursor, on every paged route", async () => {
      const { base } = server
      expect(PAGED.length).toBeGreaterThanOrEqual(21)
      const owner = await tenantOf(base, "cursors", "cursors")
      const entities = await call(base, "GET", `/api/v1/platforms/${owner.platformId}/entities`, owner.bearer)
      const entityId = (entities.body.data as Array<{ id: string; slug: string }>).find((entity) => entity.slug === "default")!.id
      const resource = await call(base, "POST", `/api/v1/platforms/${owner.platformId}/entities/${entityId}/resources`, SERVICE, {
        stackId: "stk_cursors", resourceType: "kv", serviceName: "cache", environment: "prod", edgeName: "cursors-prod-cache"
      })
      expect(resource.status).toBe(201)
      const known = { orgId: owner.orgId, platformId: owner.platformId, userId: owner.userId, ids: { entityId, resourceId: resource.body.id as string } }
      // An endpoint whose delivery log is paged (it wants only test events, so nothing is sent to it).
      const endpoint = await call(base, "POST", "/api/v1/webhooks/endpoints", owner.bearer, { url: "https://93.184.216.34/hooks", events: ["webhook.test"] })
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)
      const values: Record<string, string> = { platformId: owner.platformId, orgId: owner.orgId, entityId, resourceId: resource.body.id, id: endpoint.body.id }
      const wrong: Array<string> = []
      for (const { label, route, gatewayPath } of PAGED) {
        const headers = route.auth === "operator" || route.auth === "service" ? SERVICE : owner.bearer
        // Only the caller's own records, so that each page is reached: the first page answers 200.
        const query = Object.fromEntries(Object.entries(wellFormedQuery(route, known))
          .filter(([key, value]) => key !== "cursor" && (["platformId", "organizationId", "limit"].includes(key) || value === undefined)))
        const path = fillPath(gatewayPath, values)
        const search = new URLSearchParams(query as Record<string, string>).toString()
        const first = await call(base, "GET", `${path}${search === "" ? "" : `?${search}`}`, headers)
        if (first.status !== 200) {
          wrong.push(`${label}: the first page answers ${first.status} ${JSON.stringify(first.body).slice(0, 200)}`)
          continue
        }
        for (const [what, cursor] of CRAFTED_CURSORS) {
          const answer = await call(base, "GET", `${path}?${search === "" ? "" : `${search}&`}cursor=${cursor}`, headers)
          const error = answer.body?.error
          if (answer.status !== 400 || error?.code !== "VALIDATION_ERROR" || error.details?.issues?.[0]?.path !== "cursor") {
            wrong.push(`${label} with ${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
          }
        }
      }
      if (wrong.length > 0) console.info(wrong.join("\n"))
      expect(wrong).toEqual([])
      const { logLines } = await import("../packages/server/test/ServerProcess.js")
      expect(logLines(server.running.output.stdout).filter((line) => line.level === "error")).toEqual([])
    }, SLOW)
  })
}
