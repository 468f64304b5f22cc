import { buildPath, defineRoutes, Iam, pathParamNames, type RouteSpec } from "@core/contracts"
import { describe, expect, it } from "vitest"
import * as OpenApiDocument from "../src/OpenApiDocument.js"
import * as RouteRules from "../src/RouteRules.js"
import { isUnder, ROUTES } from "../src/Routes.js"

/** A concrete path of a declared one: each parameter filled with `<name>-1`. */
const concrete = (path: string): string =>
  buildPath(path, Object.fromEntries(pathParamNames(path).map((name) => [name, `${name}-1`])))

const identityRoutes: Array<[string, RouteSpec]> = Object.entries(Iam.IdentityRoutes)

describe("RouteRules.compile", () => {
  const rules = RouteRules.compile()

  it("gives every identity route, at its gateway path, the catalogue's auth and rate-limit class", () => {
    for (const [name, route] of identityRoutes) {
      const path = `/api/v1/iam${concrete(route.path)}`
      expect([name, rules.ruleOf(route.method, path)]).toEqual([
        name,
        {
          public: route.auth === "public",
          rateLimit: route.rateLimit ?? "default",
          crossSiteCheck: !["GET", "HEAD", "OPTIONS"].includes(route.method) && route.crossSite !== "service",
          suspensionExempt: route.suspension === "exempt",
          changesTenant: route.changesTenant === true,
          path: `/api/v1/iam${route.path}`
        }
      ])
      if (route.method === "GET") expect(rules.ruleOf("HEAD", path)).toBe(rules.ruleOf("GET", path))
    }
  })

  it("gives the registry's routes, under /api/v1/platforms (its base), the catalogue's rules", () => {
    expect(rules.ruleOf("GET", "/api/v1/platforms/plt_1")).toEqual({
      public: false,
      rateLimit: "default",
      crossSiteCheck: false,
      suspensionExempt: false,
      changesTenant: false,
      path: "/api/v1/platforms/{platformId}"
    })
    expect(rules.ruleOf("POST", "/api/v1/platforms")).toEqual({
      public: false,
      rateLimit: "default",
      crossSiteCheck: true,
      suspensionExempt: false,
      changesTenant: false,
      path: "/api/v1/platforms"
    })
  })

  it("gives the registry's resource family (/api/v1/resources) and lookups their catalogue paths", () => {
    expect(rules.ruleOf("PATCH", "/api/v1/resources/platforms/plt_1/resources/res_1")).toMatchObject({
      public: false,
      crossSiteCheck: true,
      path: "/api/v1/resources/platforms/{platformId}/resources/{resourceId}"
    })
    expect(rules.ruleOf("GET", "/api/v1/platforms/plt_1/resources/res_1").path).toBe("/api/v1/platforms/{platformId}/resources/{resourceId}")
    expect(rules.ruleOf("GET", "/api/v1/lookup")).toMatchObject({ public: false, path: "/api/v1/lookup" })
    expect(rules.ruleOf("GET", "/api/v1/resources/lookup")).toMatchObject({ public: false, path: "/api/v1/resources/lookup" })
    expect(rules.ruleOf("PUT", "/api/v1/platforms/plt_1/resources/res_1/secrets/API_KEY").path).toBe(
      "/api/v1/platforms/{platformId}/resources/{resourceId}/secrets/{secretName}"
    )
  })

  it("matches path parameters one whole segment each", () => {
    const reset = "/api/v1/iam/api/auth/reset-password/:token"
    expect(rules.ruleOf("GET", "/api/v1/iam/api/auth/reset-password/tok_0123456789-abc_DEF")).toMatchObject({ public: true, path: reset })
    expect(rules.ruleOf("GET", "/api/v1/iam/api/auth/reset-password/t%C3%B6ken")).toMatchObject({ public: true, path: reset })
    for (const other of ["/a/b", "/", "", "/a%2Fb", "/a%2fb"]) {
      expect([other, rules.ruleOf("GET", `/api/v1/iam/api/auth/reset-password${other}`).public]).toEqual([other, false])
    }
    expect(rules.ruleOf("DELETE", "/api/v1/iam/api/core/roles/org_1/admin").path).toBe("/api/v1/iam/api/core/roles/{orgId}/{role}")
    expect(rules.ruleOf("DELETE", "/api/v1/iam/api/core/roles/org_1").path).toBeUndefined()
  })

  it("matches by method: another method on a declared path is undeclared", () => {
    expect(rules.ruleOf("POST", "/api/v1/iam/api/auth/sign-up/email")).toMatchObject({ public: true, rateLimit: "credentials" })
    expect(rules.ruleOf("GET", "/api/v1/iam/api/auth/sign-up/email")).toEqual(RouteRules.undeclared("GET"))
    expect(rules.ruleOf("GET", "/api/v1/iam/sign-in")).toMatchObject({ public: true, rateLimit: "default" })
    expect(rules.ruleOf("POST", "/api/v1/iam/sign-in")).toMatchObject({ public: true, rateLimit: "credentials" })
    // Identity's home page is its prefix, with the slash the pages link and without, as the OpenAPI document lists it.
    expect([rules.ruleOf("GET", "/api/v1/iam").public, rules.ruleOf("GET", "/api/v1/iam/").public]).toEqual([true, true])
    expect(rules.ruleOf("POST", "/api/v1/iam").public).toBe(false)
    const table = RouteRules.compile([{
      prefix: "/api/v1/iam",
      catalogues: [[
        { method: "GET", path: "/page", summary: "A page", auth: "public", responses: { 200: null } },
        { method: "POST", path: "/page", summary: "Its form", auth: "session-cookie", responses: { 303: null } },
        { method: "GET", path: "/things/:id", summary: "A thing", auth: "public", responses: { 200: null } },
        { method: "DELETE", path: "/things/:id", summary: "Remove it", auth: "caller", responses: { 204: null } }
      ]]
    }])
    expect([table.ruleOf("GET", "/api/v1/iam/page").public, table.ruleOf("POST", "/api/v1/iam/page").public]).toEqual([true, false])
    expect(table.ruleOf("PUT", "/api/v1/iam/page")).toEqual(RouteRules.undeclared("PUT"))
    expect([table.ruleOf("GET", "/api/v1/iam/things/t1").public, table.ruleOf("DELETE", "/api/v1/iam/things/t1").public]).toEqual([true, false])
    expect(table.ruleOf("PATCH", "/api/v1/iam/things/t1")).toEqual(RouteRules.undeclared("PATCH"))
  })

  it("needs credentials, and counts at the general limit, for whatever no catalogue declares", () => {
    for (const [method, path] of [
      ["POST", "/api/v1/iam/api/auth/forget-password"],
      ["GET", "/api/v1/iam/api/core/nothing-here"],
      ["GET", "/api/v1/iam/nothing-here"],
      ["POST", "/api/v1/iam/api/auth/sign-in/email/"],
      ["GET", "/api/v1/platforms/plt_1/nothing-here"],
      ["PUT", "/api/v1/platforms/plt_1"],
      ["POST", "/api/v1/iam/api/auth/sign-in/%65mail"]
    ] as const) {
      expect([method, path, rules.ruleOf(method, path)]).toEqual([method, path, RouteRules.undeclared(method)])
    }
    expect(RouteRules.undeclared("GET")).toMatchObject({ public: false, rateLimit: "default", crossSiteCheck: false })
    expect(RouteRules.undeclared("PATCH")).toMatchObject({ public: false, rateLimit: "default", crossSiteCheck: true })
  })

  it("opens the OpenAPI documents, and never counts the probes and the metrics", () => {
    expect(rules.ruleOf("GET", "/api/v1/openapi.json").public).toBe(true)
    expect(rules.ruleOf("GET", "/api/v1/iam/openapi.json").public).toBe(true)
    expect(rules.ruleOf("GET", "/api/v1/platforms/openapi.json").public).toBe(true)
    expect(rules.ruleOf("GET", "/api/v1/stacks/openapi.json").public).toBe(true)
    expect(rules.ruleOf("GET", "/api/v1/provisioning/openapi.json").public).toBe(true)
    expect(rules.ruleOf("GET", "/api/v1/cli/openapi.json").public).toBe(true)
    for (const path of ["/health", "/ready", "/metrics"]) {
      expect([path, rules.ruleOf("GET", path).rateLimit, rules.ruleOf("HEAD", path).rateLimit]).toEqual([path, "exempt", "exempt"])
    }
  })

  it("gives the pages' posts at the root their classes too (decision 0154)", () => {
    for (const route of Object.values(Iam.WebRoutes) as ReadonlyArray<RouteSpec>) {
      expect([route.method, route.path, rules.ruleOf(route.method, route.path).rateLimit]).toEqual([
        route.method,
        route.path,
        route.rateLimit ?? "default"
      ])
    }
    expect(rules.ruleOf("POST", "/sign-in").rateLimit).toBe("credentials")
    expect(rules.ruleOf("POST", "/sign-up").rateLimit).toBe("credentials")
  })

  it("puts a route under its service's base at the prefix, and prefers a literal path to a pattern", () => {
    const table = RouteRules.compile([
      {
        prefix: "/api/v1/billing",
        base: "/api/billing",
        catalogues: [
          defineRoutes({
            plans: { method: "GET", path: "/api/billing/plans", summary: "Plans", auth: "public", responses: { 200: null } },
            plan: { method: "GET", path: "/api/billing/plans/:id", summary: "A plan", auth: "caller", responses: { 200: null } },
            free: { method: "GET", path: "/api/billing/plans/free", summary: "The free plan", auth: "public", rateLimit: "exempt", responses: { 200: null } }
          })
        ]
      }
    ])
    expect(table.ruleOf("GET", "/api/v1/billing/plans").public).toBe(true)
    expect(table.ruleOf("GET", "/api/v1/billing/plans/pro")).toMatchObject({ public: false, path: "/api/v1/billing/plans/:id" })
    expect(table.ruleOf("GET", "/api/v1/billing/plans/free")).toMatchObject({ public: true, rateLimit: "exempt" })
    expect(table.ruleOf("GET", "/api/v1/billing/openapi.json").public).toBe(true)
  })

  it("refuses one method and path declared twice with different rules", () => {
    const route = (auth: RouteSpec["auth"]): RouteSpec => ({ method: "POST", path: "/x", summary: "x", auth, responses: { 200: null } })
    expect(() => RouteRules.compile([{ prefix: "/api/v1/iam", catalogues: [[route("public")], [route("caller")]] }])).toThrow(
      "POST /api/v1/iam/x is declared twice with different auth or rate-limit classes"
    )
    expect(() => RouteRules.compile([{ prefix: "/api/v1/iam", catalogues: [[route("public")], [route("public")]] }])).not.toThrow()
  })

  describe("suspension exemptions and tenant changes, from the catalogue and the routing table", () => {
    /** The hand-kept lists `Authentication.ts` matched before the catalogue said them (0163, 0171). */
    const oldSuspensionExempt = (pathname: string): boolean =>
      pathname === "/api/v1/iam/api/auth/sign-out" || pathname === "/api/v1/iam/api/auth/get-session" ||
      isUnder(pathname, "/api/v1/billing")
    const OLD_TENANT_CHANGES = [
      "/api/v1/iam/api/auth/organization",
      "/api/v1/iam/api/core/org-setup",
      "/api/v1/iam/api/core/organizations",
      "/api/v1/iam/api/core/roles",
      "/api/v1/iam/api/core/grants",
      "/api/v1/iam/api/core/bootstrap"
    ]
    const oldChangesTenant = (method: string, pathname: string): boolean =>
      !["GET", "HEAD", "OPTIONS"].includes(method) && OLD_TENANT_CHANGES.some((prefix) => isUnder(pathname, prefix))

    /** Every declared route of every mount, at a concrete gateway path. */
    const declared = RouteRules.MOUNTS.flatMap((mount) =>
      mount.catalogues.flatMap((catalogue) => Object.values(catalogue) as ReadonlyArray<RouteSpec>).map((route) => ({
        method: route.method,
        path: concrete(OpenApiDocument.gatewayPath(mount, route.path))
      }))
    )
    const key = ({ method, path }: { readonly method: string; readonly path: string }) => `${method} ${path}`

    it("exempts from suspension exactly the routes the old list matched, sign-out and get-session", () => {
      // Billing's routes are exempt by their prefix (the next test); the rest as the old list said.
      const others = declared.filter(({ path }) => !isUnder(path, "/api/v1/billing"))
      const derived = others.filter(({ method, path }) => rules.ruleOf(method, path).suspensionExempt).map(key)
      const old = others.filter(({ path }) => oldSuspensionExempt(path)).map(key)
      expect(derived.sort()).toEqual(old.sort())
      expect(derived).toEqual(["GET /api/v1/iam/api/auth/get-session", "POST /api/v1/iam/api/auth/sign-out"])
      expect(rules.ruleOf("HEAD", "/api/v1/iam/api/auth/get-session").suspensionExempt).toBe(true)
    })

    it("marks as changing the tenant exactly the writes the old prefixes matched", () => {
      const derived = declared.filter(({ method, path }) => rules.ruleOf(method, path).changesTenant).map(key)
      const old = declared.filter(({ method, path }) => oldChangesTenant(method, path)).map(key)
      expect(derived.sort()).toEqual(old.sort())
      expect(derived.length).toBe(26)
      for (const path of ["/api/v1/iam/api/core/roles", "/api/v1/iam/api/auth/organization/list", "/api/v1/iam/api/core/organizations/acme"]) {
        expect([path, rules.ruleOf("GET", path).changesTenant]).toEqual([path, false])
      }
    })

    it("never declares changesTenant on a safe method", () => {
      for (const mount of RouteRules.MOUNTS) {
        for (const catalogue of mount.catalogues) {
          for (const route of Object.values(catalogue) as ReadonlyArray<RouteSpec>) {
            if (route.changesTenant === true) expect([route.path, route.method]).not.toEqual([route.path, "GET"])
          }
        }
      }
    })

    it("keeps everything under /api/v1/billing exempt, declared or not (a suspended platform can still pay)", () => {
      expect(ROUTES.find((route) => route.prefix === "/api/v1/billing")?.suspensionExempt).toBe(true)
      const billing = declared.filter(({ path }) => isUnder(path, "/api/v1/billing"))
      expect(billing.length).toBeGreaterThan(30)
      for (const { method, path } of billing) expect([method, path, rules.ruleOf(method, path).suspensionExempt]).toEqual([method, path, true])
      for (const method of ["GET", "POST", "DELETE", "HEAD"]) {
        for (const path of ["/api/v1/billing", "/api/v1/billing/nothing-here", "/api/v1/billing/plans/pro/upgrade"]) {
          expect([method, path, rules.ruleOf(method, path)]).toEqual([
            method,
            path,
            { ...RouteRules.undeclared(method), suspensionExempt: true }
          ])
        }
      }
      expect(rules.ruleOf("GET", "/api/v1/billingx").suspensionExempt).toBe(false)
      expect(rules.ruleOf("GET", "/api/v1/platforms/plt_1").suspensionExempt).toBe(false)
      expect(rules.ruleOf("GET", "/api/v1/stacks/x").suspensionExempt).toBe(false)
      expect(RouteRules.undeclared("GET").suspensionExempt).toBe(false)
    })

    it("exempts a service's declared routes through its prefix, and nothing without the routing table's mark", () => {
      const billing = [{
        prefix: "/api/v1/billing",
        base: "/api/billing",
        catalogues: [[
          { method: "GET", path: "/api/billing/plans", summary: "Plans", auth: "public", responses: { 200: null } },
          { method: "POST", path: "/api/billing/plans/:id/upgrade", summary: "Upgrade", auth: "caller", responses: { 200: null } }
        ] as ReadonlyArray<RouteSpec>]
      }]
      const marked = RouteRules.compile(billing, [{ prefix: "/api/v1/billing", service: "BILLING", suspensionExempt: true }])
      expect(marked.ruleOf("GET", "/api/v1/billing/plans")).toMatchObject({ public: true, suspensionExempt: true })
      expect(marked.ruleOf("POST", "/api/v1/billing/plans/pro/upgrade")).toMatchObject({ suspensionExempt: true, path: "/api/v1/billing/plans/:id/upgrade" })
      expect(marked.ruleOf("GET", "/api/v1/billing/openapi.json").suspensionExempt).toBe(true)
      const unmarked = RouteRules.compile(billing, [{ prefix: "/api/v1/billing", service: "BILLING" }])
      expect(unmarked.ruleOf("GET", "/api/v1/billing/plans").suspensionExempt).toBe(false)
      expect(unmarked.ruleOf("GET", "/api/v1/billing/other").suspensionExempt).toBe(false)
    })
  })

  it("is compiled from the published contracts (the services' declarations, with their further prefixes) and the pages", () => {
    expect(RouteRules.MOUNTS).toEqual([...OpenApiDocument.CONTRACTS, RouteRules.PAGES])
  })

  it("leaves the device approval's cross-site check to identity, which answers it in OAuth's words; the root metadata is public", () => {
    const rules = RouteRules.compile()
    expect(rules.ruleOf("POST", "/api/v1/iam/oauth/device/authorize")).toMatchObject({ public: false, crossSiteCheck: false })
    expect(rules.ruleOf("POST", "/api/v1/iam/oauth/device/deny")).toMatchObject({ public: false, crossSiteCheck: false })
    expect(rules.ruleOf("POST", "/api/v1/iam/api/auth/sign-out")).toMatchObject({ crossSiteCheck: true })
    expect(rules.ruleOf("GET", "/.well-known/oauth-authorization-server/api/v1/iam")).toMatchObject({ public: true })
    // The same route under identity's prefix (the gateway strips it) stays public.
    expect(rules.ruleOf("GET", "/api/v1/iam/.well-known/oauth-authorization-server/api/v1/iam")).toMatchObject({ public: true })
    expect(rules.ruleOf("GET", "/.well-known/oauth-protected-resource/mcp")).toMatchObject({ public: true })
  })
})
