import { GATEWAY_PREFIXES, publicPathOf, SERVICE_DECLARATIONS, SERVICE_NAMES } from "@core/contracts"
import { GATEWAY_PREFIXES as ROUTE_TABLE_PREFIXES } from "@core/contracts/routes"
import { OpenApiDocument, RouteRules, Routes } from "@core/gateway"
import { Config } from "@core/kernel"
import { describe, expect, it } from "vitest"
import * as Services from "../src/Services.js"

/**
 * A service is declared once, in `@core/contracts` (`ServiceDeclarations.ts`): the
 * gateway's table, its rules, the OpenAPI document, the zod-free route table, the configuration's
 * upstream variables and the server's composition are all read from the declarations.
 */
describe("the services' declarations", () => {
  it("are the server's services, in their order, each with the declaration's name, upstream and base", () => {
    expect(Services.SERVICES.map((service) => service.name)).toEqual(SERVICE_NAMES)
    for (const service of Services.SERVICES) {
      expect(service.declaration.name).toBe(service.name)
      expect(service.upstream).toBe(service.declaration.upstream)
      expect(service.base).toBe("base" in service.declaration ? service.declaration.base : undefined)
    }
  })

  it("are the gateway's routing table: every prefix of every service, and nothing else", () => {
    const declared = SERVICE_DECLARATIONS.flatMap((service) =>
      [service.prefix, ...Object.values("alsoAt" in service ? service.alsoAt : {})].map((prefix) => [prefix, service.upstream])
    )
    expect(Routes.ROUTES.map((route) => [route.prefix, route.service])).toEqual(declared)
    expect(Routes.SERVICES).toEqual(SERVICE_DECLARATIONS.map((service) => service.upstream))
    for (const service of SERVICE_DECLARATIONS) {
      expect(Routes.match(Routes.ROUTES, `${service.prefix}/x`)?.route.service, service.name).toBe(service.upstream)
    }
  })

  it("are the configuration's upstream variables and `serve --service`'s names", () => {
    expect(Config.UPSTREAM_SERVICES).toEqual(SERVICE_NAMES)
    expect(Services.find("REGISTRY")?.name).toBe("registry")
  })

  it("are the OpenAPI document's services: each route at its public path, under its service's tag group", () => {
    const document = OpenApiDocument.document()
    for (const service of SERVICE_DECLARATIONS) {
      const group = document["x-tagGroups"].find((candidate) => candidate.name === service.tag.name)
      expect(group, service.name).toBeDefined()
      for (const catalogue of service.catalogues) {
        for (const route of Object.values(catalogue)) {
          const path = publicPathOf(service, route.path).replace(/:(\w+)/g, "{$1}")
          expect(document.paths[path]?.[route.method.toLowerCase()], `${service.name} ${route.method} ${path}`).toBeDefined()
        }
      }
    }
  })

  it("give every route a rule at its public path, and the specification's path forms stay routed", () => {
    const rules = RouteRules.compile()
    expect(rules.ruleOf("GET", "/api/v1/platforms").path).toBe("/api/v1/platforms")
    expect(rules.ruleOf("GET", "/api/v1/resources/platforms/plt_1/resources").path).toBe("/api/v1/resources/platforms/{platformId}/resources")
    expect(rules.ruleOf("GET", "/.well-known/oauth-protected-resource/mcp").public).toBe(true)
    // Billing at `/api/v1/billing<path>` and `/api/v1/billing/api/billing<path>`; provisioning under `/api/v1/provisioning`.
    expect(Routes.match(Routes.ROUTES, "/api/v1/billing/api/billing/upgrade")).toMatchObject({ route: { service: "BILLING" }, url: "/api/billing/upgrade" })
    expect(Routes.match(Routes.ROUTES, "/api/v1/billing/plans")).toMatchObject({ route: { service: "BILLING" }, url: "/plans" })
    expect(Routes.match(Routes.ROUTES, "/api/v1/provisioning/api/v1/provision/jobs")).toMatchObject({ route: { service: "PROVISIONING" }, url: "/api/v1/provision/jobs" })
  })

  it("give `@core/contracts/routes` (zod-free, for the SDK) the same prefixes", () => {
    expect(ROUTE_TABLE_PREFIXES).toEqual(GATEWAY_PREFIXES)
  })
})
