import { buildPath, Iam, pathParamNames, toOpenApi } from "@core/contracts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, makeHarness } from "./AuthorizationSupport.js"

let h: Harness

beforeAll(async () => {
  h = await makeHarness()
})
afterAll(() => h.dispose())

const routes = Object.entries(Iam.AuthorizationRoutes)

describe("the authorization route catalogue", () => {
  it("is served route by route: without credentials each answers 401, the JWKS 200", async () => {
    for (const [name, route] of routes) {
      const params = Object.fromEntries(pathParamNames(route.path).map((param) => [param, "x"]))
      const response = await h.fetch(buildPath(route.path, params), {
        method: route.method,
        ...(route.method === "POST" ? { json: {} } : {})
      })
      expect(response.status, name).toBe(route.auth === "public" ? 200 : 401)
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
