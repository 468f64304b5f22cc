import { describe, expect, it } from "vitest"
import { isServiceName, match, ROUTES, targetOf } from "../src/Routes.js"

describe("Routes", () => {
  it("maps every seed prefix to its service", () => {
    // Derived from the services' declarations (@core/contracts ServiceDeclarations.ts), in their order.
    expect(ROUTES.map((route) => [route.prefix, route.service])).toEqual([
      ["/api/v1/iam", "IAM"],
      ["/.well-known/oauth-authorization-server/api/v1/iam", "IAM"],
      ["/api/v1/platforms", "REGISTRY"],
      ["/api/v1/onboarding", "REGISTRY"],
      ["/api/v1/resources", "REGISTRY"],
      ["/api/v1/lookup", "REGISTRY"],
      ["/api/v1/stacks", "STACKS"],
      ["/api/v1/provisioning", "PROVISIONING"],
      ["/api/v1/billing", "BILLING"],
      ["/api/v1/cli", "CLI"],
      ["/mcp", "VAULT"],
      ["/.well-known/oauth-protected-resource/mcp", "VAULT"],
      ["/api/v1/webhooks", "EVENTS"],
      ["/api/v1/events", "EVENTS"]
    ])
    expect(ROUTES.filter((route) => route.suspensionExempt === true).map((route) => route.prefix)).toEqual(["/api/v1/billing"])
    expect(ROUTES.filter((route) => route.keepPrefix === true).map((route) => route.prefix)).toEqual([
      "/.well-known/oauth-authorization-server/api/v1/iam", "/api/v1/onboarding", "/api/v1/resources", "/api/v1/lookup", "/mcp", "/.well-known/oauth-protected-resource/mcp", "/api/v1/events"
    ])
  })

  it("forwards the root's well-known documents whole: identity's RFC 8414 metadata, /mcp's RFC 9728 metadata", () => {
    expect(match(ROUTES, "/.well-known/oauth-authorization-server/api/v1/iam")).toMatchObject({
      route: { service: "IAM" },
      url: "/.well-known/oauth-authorization-server/api/v1/iam"
    })
    expect(match(ROUTES, "/.well-known/oauth-protected-resource/mcp")?.url).toBe("/.well-known/oauth-protected-resource/mcp")
    expect(match(ROUTES, "/mcp")?.route).toMatchObject({ resourceMetadata: "/.well-known/oauth-protected-resource/mcp", checksHost: true })
    expect(match(ROUTES, "/.well-known/oauth-authorization-server")).toBeUndefined()
  })

  it("forwards the whole path for a prefix that keeps it (the registry's resource family and lookup)", () => {
    const resources = ROUTES.find((route) => route.prefix === "/api/v1/resources")
    expect(match(ROUTES, "/api/v1/resources/platforms/p1/resources?limit=2")).toEqual({ route: resources, url: "/api/v1/resources/platforms/p1/resources?limit=2" })
    expect(match(ROUTES, "/api/v1/lookup?edgeName=a%20b")?.url).toBe("/api/v1/lookup?edgeName=a%20b")
    expect(match(ROUTES, "/api/v1/lookup")?.route.service).toBe("REGISTRY")
    expect(match(ROUTES, "/api/v1/lookups")).toBeUndefined()
  })

  const at = (prefix: string) => ROUTES.find((route) => route.prefix === prefix)

  it("strips the prefix and keeps the query verbatim", () => {
    expect(match(ROUTES, "/api/v1/platforms/abc?x=1")).toEqual({ route: at("/api/v1/platforms"), url: "/abc?x=1" })
    expect(match(ROUTES, "/api/v1/platforms/a/b/c?x=1&y=%20z&x=2")?.url).toBe("/a/b/c?x=1&y=%20z&x=2")
  })

  it("answers / for the exact prefix, with or without a query or trailing slash", () => {
    expect(match(ROUTES, "/api/v1/platforms")?.url).toBe("/")
    expect(match(ROUTES, "/api/v1/platforms/")?.url).toBe("/")
    expect(match(ROUTES, "/api/v1/platforms?x=1")?.url).toBe("/?x=1")
  })

  it("matches whole segments only", () => {
    expect(match(ROUTES, "/api/v1/platformsx")).toBeUndefined()
    expect(match(ROUTES, "/api/v1/nope")).toBeUndefined()
    expect(match(ROUTES, "/api/v1")).toBeUndefined()
    expect(match(ROUTES, "/API/V1/iam")).toBeUndefined()
  })

  it("prefers the longest prefix", () => {
    const routes = [...ROUTES, { prefix: "/api/v1/iam/admin", service: "VAULT" as const }]
    expect(match(routes, "/api/v1/iam/admin/x")).toEqual({ route: routes[routes.length - 1], url: "/x" })
    expect(match(routes, "/api/v1/iam/administrators")?.route.service).toBe("IAM")
  })

  it("resolves dot segments before matching, as an HTTP upstream would", () => {
    expect(match(ROUTES, "/api/v1/platforms/../iam/x")).toEqual({ route: at("/api/v1/iam"), url: "/x" })
    expect(match(ROUTES, "/api/v1/iam/%2e%2e/billing/y")).toEqual({ route: at("/api/v1/billing"), url: "/y" })
    expect(match(ROUTES, "/api/v1/iam/../../v2/iam")).toBeUndefined()
  })

  it("treats a leading // as a path, never as a host", () => {
    expect(targetOf("//evil.example/api/v1/iam/x").pathname).toBe("//evil.example/api/v1/iam/x")
    expect(match(ROUTES, "//evil.example/api/v1/iam/x")).toBeUndefined()
  })

  it("reads absolute-form request targets", () => {
    expect(match(ROUTES, "http://localhost:8787/api/v1/stacks/s1?v=2")).toEqual({ route: at("/api/v1/stacks"), url: "/s1?v=2" })
  })

  it("knows the service names", () => {
    expect(isServiceName("VAULT")).toBe(true)
    expect(isServiceName("vault")).toBe(false)
  })
})
