import { buildPath, Iam, pathParamNames, type RouteSpec, toOpenApi } from "@core/contracts"
import { Route } from "@core/kernel"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { z } from "zod"
import { AuthorizationHandlers } from "../src/authorization/Http.js"
import { type Harness, makeHarness, seedTenant, STATIC_KEY } from "./AuthorizationSupport.js"

let h: Harness
let owner: string

beforeAll(async () => {
  h = await makeHarness()
  owner = (await h.run(seedTenant)).owner.token
})
afterAll(() => h.dispose())

const routes = Object.entries(Iam.AuthorizationRoutes) as Array<[string, RouteSpec]>

/**
 * A well-formed query or body per route: the kernel decodes the query before it resolves the
 * caller, so a query-less request would answer 400 before the 401 this test is about.
 */
const wellFormed: Readonly<Record<string, { readonly query?: string; readonly json?: unknown }>> = {
  listRoleMappings: { query: "?orgId=org_x" },
  listGrants: { query: "?orgId=org_x" },
  listApiKeys: { query: "?organizationId=org_x" },
  validateApiKey: { json: { key: `core_${"x".repeat(43)}` } }
}

const pathOf = (route: RouteSpec, value: string) =>
  buildPath(route.path, Object.fromEntries(pathParamNames(route.path).map((param) => [param, value])))

const fieldsOf = (schema: z.ZodType | undefined): ReadonlyArray<string> =>
  schema !== undefined && "shape" in schema ? Object.keys(schema.shape as object) : []

const LONG = "x".repeat(5000)

describe("the authorization route catalogue", () => {
  it("is served handler by handler: every route once, and nothing else", () => {
    const served = Route.served(AuthorizationHandlers).map((route) => `${route.method} ${route.path}`)
    expect(served.sort()).toEqual(routes.map(([, route]) => `${route.method} ${route.path}`).sort())
  })

  it("is served route by route: without credentials each answers 401, the JWKS 200", async () => {
    for (const [name, route] of routes) {
      const input = wellFormed[name] ?? {}
      const response = await h.fetch(`${pathOf(route, "x")}${input.query ?? ""}`, {
        method: route.method,
        ...(route.method === "POST" ? { json: input.json ?? {} } : {})
      })
      expect(response.status, name).toBe(name === "jwks" ? 200 : 401)
    }
  })

  it("answers bad input on every route with 4xx, never 500: empty, garbage and over-long", async () => {
    for (const [name, route] of routes) {
      const attempts: Array<[string, string, RequestInit & { json?: unknown }]> = []
      if (pathParamNames(route.path).length > 0) {
        for (const value of [LONG, "\u0000"]) attempts.push(["params", pathOf(route, value), {}])
      }
      for (const field of fieldsOf(route.request?.query)) {
        attempts.push([`query ${field}`, `${pathOf(route, "x")}?${field}=${LONG}`, {}])
      }
      if (route.request?.body !== undefined) {
        const path = pathOf(route, "x")
        const long = Object.fromEntries(fieldsOf(route.request.body).map((field) => [field, LONG]))
        for (const json of [{}, [], "text", null, long]) attempts.push([`body ${JSON.stringify(json).slice(0, 20)}`, path, { json }])
        attempts.push(["garbage JSON", path, { body: "{nope", headers: { "content-type": "application/json" } }])
        attempts.push(["wrong type", path, { body: "key=x", headers: { "content-type": "text/plain" } }])
      }
      for (const token of [STATIC_KEY, owner]) {
        for (const [what, path, init] of attempts) {
          const response = await h.fetch(path, { method: route.method, token, ...init })
          expect([name, what, Math.floor(response.status / 100)]).toEqual([name, what, 4])
          expect((await response.json()).error.code, `${name} ${what}`).toEqual(expect.any(String))
        }
      }
    }
  })

  it("makes an OpenAPI 3.1 document with every path", () => {
    const document = toOpenApi({ title: "Core identity: authorization", version: "1", routes: Iam.AuthorizationRoutes })
    expect(document.openapi).toMatch(/^3\.1\./)
    expect(Object.keys(document.paths).sort()).toEqual([
      "/.well-known/jwks.json",
      "/api/audit",
      "/api/audit/events",
      "/api/audit/log",
      "/api/core/apikey/validate",
      "/api/core/apikeys",
      "/api/core/apikeys/{id}",
      "/api/core/grants",
      "/api/core/grants/{id}",
      "/api/core/roles",
      "/api/core/roles/{orgId}/{role}",
      "/api/core/service-token",
      "/internal/platform-status"
    ])
    expect(() => JSON.stringify(document)).not.toThrow()
  })
})
