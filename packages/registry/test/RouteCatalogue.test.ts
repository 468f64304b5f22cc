import { Registry, type RouteSpec, toOpenApi } from "@core/contracts"
import { Route } from "@core/kernel"
import { describe, expect, it } from "vitest"
import { RegistryHandlers } from "../src/index.js"

const key = (route: RouteSpec) => `${route.method} ${route.path}`

/**
 * The registry serves exactly what `Registry.RegistryRoutes`, `Registry.ResourceFamilyRoutes` and
 * `Registry.LookupRoutes` declare, each route from its own declaration.
 */
describe("the registry and its catalogue", () => {
  it("serves every catalogued route once, and nothing else", () => {
    const served = Route.served(RegistryHandlers)
    // Under /api/v1/platforms, and the resource family under /api/v1/resources and the lookups.
    const catalogued = [Registry.RegistryRoutes, Registry.ResourceFamilyRoutes, Registry.LookupRoutes].flatMap((routes) =>
      Object.values(routes) as ReadonlyArray<RouteSpec>)
    expect(served.map(key).sort()).toEqual(catalogued.map(key).sort())
    expect(served.every((route) => catalogued.includes(route))).toBe(true)
  })

  it("documents the ETag of one platform and the 412 of every conditional change", () => {
    const document = toOpenApi({ title: "registry", version: "0", routes: Registry.RegistryRoutes })
    const responses = (path: string, method: string) => document.paths[path][method].responses as Record<string, { headers?: Record<string, unknown> }>
    expect(Object.keys(responses("/api/v1/platforms/{platformId}", "get")["200"].headers ?? {})).toContain("etag")
    expect(Object.keys(responses("/api/v1/platforms", "post")["201"].headers ?? {})).toContain("etag")
    for (const [path, method] of [["/api/v1/platforms/{platformId}", "patch"], ["/api/v1/platforms/{platformId}", "delete"], ...["suspend", "restore", "cancel", "delete"].map((action) => [`/api/v1/platforms/{platformId}/${action}`, "post"])]) {
      expect(responses(path, method), `${method} ${path}`).toHaveProperty("412")
    }
    expect(Object.keys(document.paths).sort()).toEqual([
      "/api/v1/onboarding",
      "/api/v1/onboarding/{onboardingId}",
      "/api/v1/platforms",
      "/api/v1/platforms/{platformId}",
      "/api/v1/platforms/{platformId}/cancel",
      "/api/v1/platforms/{platformId}/delete",
      "/api/v1/platforms/{platformId}/dns-records",
      "/api/v1/platforms/{platformId}/dns-records/{recordId}",
      "/api/v1/platforms/{platformId}/entities",
      "/api/v1/platforms/{platformId}/entities/{entityId}",
      "/api/v1/platforms/{platformId}/entities/{entityId}/ancestors",
      "/api/v1/platforms/{platformId}/entities/{entityId}/descendants",
      "/api/v1/platforms/{platformId}/entities/{entityId}/features",
      "/api/v1/platforms/{platformId}/entities/{entityId}/features/activate",
      "/api/v1/platforms/{platformId}/entities/{entityId}/features/deactivate",
      "/api/v1/platforms/{platformId}/entities/{entityId}/features/{activationId}",
      "/api/v1/platforms/{platformId}/entities/{entityId}/manifest",
      "/api/v1/platforms/{platformId}/entities/{entityId}/resources",
      "/api/v1/platforms/{platformId}/lifecycle",
      "/api/v1/platforms/{platformId}/resources",
      "/api/v1/platforms/{platformId}/resources/{resourceId}",
      "/api/v1/platforms/{platformId}/resources/{resourceId}/secrets",
      "/api/v1/platforms/{platformId}/resources/{resourceId}/secrets/{secretName}",
      "/api/v1/platforms/{platformId}/restore",
      "/api/v1/platforms/{platformId}/suspend"
    ])
  })
})
