import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Iam, type RouteSpec, toOpenApi, toOpenApiPath } from "../src/index.js"
import { validateOpenApi31 } from "./OpenApiShape.js"

const routes: Array<[string, RouteSpec]> = Object.entries(Iam.IdentityRoutes)

/** The strings of a JSON Schema that have no `maxLength` (a `const` or an `enum` is bounded by itself). */
const unboundedStrings = (node: unknown, at: string, found: Array<string> = []): Array<string> => {
  if (Array.isArray(node)) node.forEach((item, i) => unboundedStrings(item, `${at}[${i}]`, found))
  else if (typeof node === "object" && node !== null) {
    const schema = node as Record<string, unknown>
    const types = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (types.includes("string") && schema.maxLength === undefined && schema.const === undefined && schema.enum === undefined) found.push(at)
    for (const [key, value] of Object.entries(schema)) unboundedStrings(value, `${at}.${key}`, found)
  }
  return found
}

describe("Iam.IdentityRoutes", () => {
  it("merges the area catalogues without losing a route to a name clash", () => {
    const total = Object.values(Iam.IDENTITY_CATALOGUES).reduce((sum, catalogue) => sum + Object.keys(catalogue).length, 0)
    expect(routes).toHaveLength(total)
  })

  it("declares each method and path once", () => {
    const keys = routes.map(([, route]) => `${route.method} ${toOpenApiPath(route.path).replace(/\{[^}]+\}/g, "{}")}`)
    const repeated = keys.filter((key, i) => keys.indexOf(key) !== i)
    expect(repeated).toEqual([])
  })

  it("bounds every string a request may carry (decision 0186)", () => {
    expect(unboundedStrings(z.toJSONSchema(z.object({ a: z.string(), b: z.string().max(1), c: z.enum(["x"]) })), "s"))
      .toEqual(["s.properties.a"])
    const problems = routes.flatMap(([name, route]) =>
      (["params", "query", "body", "headers"] as const).flatMap((part) => {
        const schema = route.request?.[part]
        if (schema === undefined) return []
        const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" })
        return unboundedStrings(json, `${name}.${part}`)
      }))
    expect(problems).toEqual([])
  })

  it("gives every route a summary, a tag, a success and the caller kinds its auth allows", () => {
    for (const [name, route] of routes) {
      expect(route.summary, name).not.toBe("")
      expect(route.tags?.[0], name).toMatch(/^identity: /)
      expect(Object.keys(route.responses).some((status) => Number(status) < 400), name).toBe(true)
      if (route.callers !== undefined) expect(route.auth, name).toBe("caller")
    }
  })

  it("answers the better-auth bodies on /api/auth/*, the OAuth bodies on /oauth/*, pages in HTML", () => {
    const errorsOf = (route: RouteSpec) => Object.entries(route.responses).filter(([status]) => Number(status) >= 400).map(([, r]) => r)
    for (const [name, route] of routes) {
      const errors = errorsOf(route)
      if (route.path.startsWith("/api/auth/") && route.path !== "/api/auth/profile") {
        // A 401 may also be the gateway's envelope, when the gateway refuses the request first.
        for (const [status, error] of Object.entries(route.responses).filter(([status]) => Number(status) >= 400)) {
          expect(error, `${name} ${status}`).toMatchObject({ schema: status === "401" && route.auth !== "public" ? Iam.AuthUnauthorizedBody : Iam.AuthErrorBody })
        }
      }
      if (route.path.startsWith("/oauth/")) for (const error of errors) expect(error, name).toMatchObject({ schema: Iam.OAuthErrorBody })
      if (route.tags?.includes("identity: web pages")) {
        for (const [status, response] of Object.entries(route.responses)) {
          if (Number(status) !== 303) expect(response, `${name} ${status}`).toMatchObject({ contentType: "text/html" })
        }
      }
    }
  })

  it("classes the credential routes for the gateway's rate limits", () => {
    const classed = (rateLimit: string) =>
      routes.filter(([, route]) => route.rateLimit === rateLimit).map(([, route]) => `${route.method} ${route.path}`).sort()
    expect(classed("credentials")).toEqual([
      "POST /api/auth/request-password-reset",
      "POST /api/auth/sign-in/email",
      "POST /api/auth/sign-in/magic-link",
      "POST /api/auth/sign-up/email",
      "POST /forgot-password",
      "POST /sign-in",
      "POST /sign-up"
    ])
    expect(classed("exempt")).toEqual(["POST /oauth/device/token", "POST /oauth/token"])
  })

  it("describes every route in a valid OpenAPI 3.1 document whose schemas compile", () => {
    const doc = toOpenApi({ title: "Identity", version: "1", routes: Iam.IdentityRoutes })
    expect(validateOpenApi31(doc)).toEqual([])
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item))
    expect(operations).toHaveLength(routes.length)
    expect(operations.map((op) => op.operationId).sort()).toEqual(routes.map(([name]) => name).sort())
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    ajv.addSchema({ $id: "https://core.test/identity.json", components: doc.components })
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.compile({ $ref: `https://core.test/identity.json#/components/schemas/${name}` }), name).not.toThrow()
    }
  })
})
