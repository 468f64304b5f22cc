import { buildPath, Iam, pathParamNames, type RouteSpec } from "@core/contracts"
import { Route } from "@core/kernel"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { OrganizationsHandlers } from "../src/organizations/Http.js"
import { type Harness, makeHarness, makeTenants, type Send, STATIC_KEY } from "./OrganizationsSupport.js"

/**
 * The organization catalogue is served handler by handler, each route refuses a request without
 * credentials, and bad input answers 4xx, never 500: empty and garbage bodies, bodies, queries and
 * path parameters with over-long strings.
 */
let h: Harness
let tenants: Awaited<ReturnType<typeof makeTenants>>

const LONG = "x".repeat(5000)
const routes = Object.entries(Iam.OrganizationRoutes) as Array<[string, RouteSpec]>

/** The keys of an object schema (through `.optional()`), to fill each with a value too long for it. */
const keysOf = (schema: z.ZodType | undefined): Array<string> => {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : []
}

const longRecord = (schema: z.ZodType | undefined) => Object.fromEntries(keysOf(schema).map((key) => [key, LONG]))

/** The credentials a route takes: the cookie for `org-setup`, the service key for operator routes, else a session. */
const credentials = (route: RouteSpec): Send =>
  route.auth === "session-cookie"
    ? { cookie: tenants.owner.token }
    : route.auth === "operator"
    ? { token: STATIC_KEY }
    : { token: tenants.owner.token }

const known = (): Record<string, string> => ({ slug: tenants.org.slug, orgId: tenants.org.id, invitationId: "inv_missing" })

const pathOf = (route: RouteSpec, value?: string) =>
  buildPath(route.path, Object.fromEntries(pathParamNames(route.path).map((name) => [name, value ?? known()[name]])))

const send = (route: RouteSpec, path: string, init: Send) =>
  h.fetch(path, { ...credentials(route), method: route.method, ...init }).then((response) => response.status)

beforeAll(async () => {
  h = await makeHarness()
  tenants = await makeTenants(h)
})
afterAll(() => h.dispose())

describe("the organization route catalogue", () => {
  it("is served handler by handler: every route once, and nothing else", () => {
    const served = Route.served(OrganizationsHandlers).map((route) => `${route.method} ${route.path}`)
    expect(served.sort()).toEqual(routes.map(([, route]) => `${route.method} ${route.path}`).sort())
  })

  it("answers 401 to every route without credentials", async () => {
    for (const [name, route] of routes) {
      const json = route.request?.body === undefined ? undefined : {}
      // The kernel decodes a query before it resolves the caller: a well-formed one, so the 401 shows.
      const query = name === "getInvitation" ? "?id=inv_missing" : ""
      const response = await h.fetch(`${pathOf(route)}${query}`, { method: route.method, ...(json === undefined ? {} : { json }) })
      expect({ name, status: response.status }).toEqual({ name, status: 401 })
    }
  })
})

describe("bad input on the organization routes", () => {
  it("an empty object body is answered, never with a 500", async () => {
    for (const [name, route] of routes) {
      if (route.request?.body === undefined) continue
      expect(await send(route, pathOf(route), { json: {} }), name).toBeLessThan(500)
    }
  })

  it("garbage bodies answer 400 (not JSON) or 415 (not declared JSON)", async () => {
    for (const [name, route] of routes) {
      if (route.request?.body === undefined) continue
      const headers = { "content-type": "application/json" }
      expect(await send(route, pathOf(route), { headers, body: "{\"name\":" }), name).toBe(400)
      expect(await send(route, pathOf(route), { headers, body: "[1,2,3]" }), name).toBe(400)
      expect(await send(route, pathOf(route), { headers: { "content-type": "text/plain" }, body: "name=x" }), name).toBe(415)
    }
  })

  it("over-long strings answer 400 (path parameters past the router's length: 404)", async () => {
    for (const [name, route] of routes) {
      const request = route.request
      if (request?.body !== undefined && keysOf(request.body).length > 0) {
        expect(await send(route, pathOf(route), { json: longRecord(request.body) }), `${name} body`).toBe(400)
      }
      if (request?.query !== undefined) {
        const query = new URLSearchParams(longRecord(request.query)).toString()
        expect(await send(route, `${pathOf(route)}?${query}`, {}), `${name} query`).toBe(400)
      }
      if (route.path.includes(":")) {
        const json = request?.body === undefined ? undefined : { email: "someone@example.com" }
        const status = await send(route, pathOf(route, LONG), json === undefined ? {} : { json })
        expect([400, 404], `${name} params`).toContain(status)
      }
    }
  })
})
