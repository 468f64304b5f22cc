import { notFoundMessage, pathParamNames, type RouteSpec } from "@core/contracts"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type CataloguedRoute, everyRoute, fillPath } from "./support/catalogue.js"
import { call, tenantOf } from "./support/tenants.js"
import { wellFormedBody } from "./fuzz/inputs.js"
import { SLOW, useFuzzServer } from "./fuzz/suite.js"

/**
 * An id of any shape that names nothing answers 404 `NOT_FOUND`, as Stripe and GitHub answer, on
 * every catalogued route with a parameter in its path (the table is the catalogue, so a new route
 * is covered when it is declared): `plt_0123456789`, `job_x`, a NUL, a space answer the very body
 * a well-formed unknown id gets (status, code, message, details), and another tenant's records are
 * 404 too. Through the all-in-one server's gateway, on PGlite and on PostgreSQL when
 * `CORE_TEST_DATABASE_URL` is set (decision 0567).
 */
const STATIC_KEY = "path-ids-static-key-0123456789abcdef"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }

const ROUTES = everyRoute().filter(({ route }) => pathParamNames(route.path).length > 0)

/** Sent as a route's body: none at all (the deploy upload takes an empty one). */
const NO_BODY = Symbol("no body")

/** A parameter its contract marks as input (a secret's name, a one-time token): refused values stay 400. */
const isInput = (route: RouteSpec, param: string) => notFoundMessage(route, param) === undefined

interface ParamShape {
  readonly pattern?: string
}

const shapeOf = (route: RouteSpec, param: string): ParamShape => {
  const schema = route.request?.params
  if (schema === undefined) return {}
  const json = z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as { properties?: Record<string, ParamShape> }
  return json.properties?.[param] ?? {}
}

const prefixOf = (shape: ParamShape): string | undefined => /^\^([a-z]{2,4})_\[/.exec(shape.pattern ?? "")?.[1]

/** A value of the parameter's shape that names nothing. */
const unknownValue = (route: RouteSpec, param: string): string => {
  const shape = shapeOf(route, param)
  const prefix = prefixOf(shape)
  if (prefix !== undefined) return `${prefix}_01JDQ3V6X4TQ7K9ZC2M8N5P0RS`
  if (param === "version") return "9.9.9"
  if (param === "secretName") return "MISSING_SECRET"
  return "missing-0123"
}

/** Values (encoded for the URL) no record can have: each must answer what `unknownValue` answers. */
const malformedValues = (route: RouteSpec, param: string): ReadonlyArray<readonly [string, string]> => {
  const prefix = prefixOf(shapeOf(route, param))
  return [
    ...(prefix === undefined ? [] : [[`${prefix}_0123456789`, `${prefix}_0123456789`], [`${prefix}_x`, `${prefix}_x`], ["another prefix", "zzz_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"]] as const),
    ["x", "x"],
    ["upper case", "NOT-AN-ID"],
    ["a NUL", "a%00b"],
    ["a space", "a%20b"],
    ["an encoded slash", "..%2F..%2Fetc"],
    ["an emoji", "%F0%9F%98%80"],
    ["100 characters", "p".repeat(100)]
  ]
}

/** Values the router itself cannot route (over its 100 characters, undecodable): 404 `NOT_FOUND` as well. */
const UNROUTABLE: ReadonlyArray<readonly [string, string]> = [
  ["101 characters", "p".repeat(101)],
  ["4,000 characters", "p".repeat(4_000)],
  ["an encoded lone surrogate", "%ED%A0%80"],
  ["broken percent-encoding", "%E0%A4%A"]
]

/** One request: its status and its JSON body, or its text when it is a page (the billing portal's). */
const sendTo = async (base: string, method: string, path: string, headers: Record<string, string>, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: "manual"
  })
  const text = await response.text()
  const json = response.headers.get("content-type")?.includes("json") === true && text !== ""
  return { status: response.status, body: json ? JSON.parse(text) as any : text }
}

/** What must be the same for a malformed and a well-formed unknown id: all but the request id. */
const sameAnswer = (answer: { status: number; body: any }) =>
  typeof answer.body === "string"
    ? { status: answer.status, page: answer.body }
    : {
      status: answer.status,
      code: answer.body?.error?.code ?? answer.body?.code,
      message: answer.body?.error?.message ?? answer.body?.message,
      details: answer.body?.error?.details
    }

/** A 404 `NOT_FOUND`: the envelope's (or better-auth's) code, or a page's status. */
const isNotFound = (answer: ReturnType<typeof sameAnswer>) => answer.status === 404 && ("page" in answer || answer.code === "NOT_FOUND")

for (const driver of TestDatabase.drivers) {
  describe(`path ids through the gateway, on ${driver}`, () => {
    const server = useFuzzServer(STATIC_KEY, driver)

    it("answers a path id of any shape that names nothing 404, in the words of a well-formed unknown one", async () => {
      const { base } = server
      expect(ROUTES.length).toBeGreaterThanOrEqual(80)
      const a = await tenantOf(base, "ids-a", "ids-a")
      const b = await tenantOf(base, "ids-b", "ids-b")
      const recordsOf = async (tenant: typeof a, edge: string) => {
        const entities = await call(base, "GET", `/api/v1/platforms/${tenant.platformId}/entities`, tenant.bearer)
        const entityId = (entities.body.data as Array<{ id: string; slug: string }>).find((entity) => entity.slug === "default")!.id
        const resource = await call(base, "POST", `/api/v1/platforms/${tenant.platformId}/entities/${entityId}/resources`, SERVICE, {
          stackId: "stk_ids", resourceType: "kv", serviceName: "cache", environment: "prod", edgeName: edge
        })
        expect(resource.status).toBe(201)
        return { platformId: tenant.platformId, orgId: tenant.orgId, entityId, resourceId: resource.body.id as string }
      }
      const own = await recordsOf(a, "ids-a-prod-cache")
      const other = await recordsOf(b, "ids-b-prod-cache")
      const stack = await call(base, "POST", "/api/v1/stacks", SERVICE, { name: "ids-stack", displayName: "Ids", description: "A stack for the table" })
      expect(stack.status).toBe(201)
      /** The caller's own records, by parameter name, so that a lookup reaches the parameter under test. */
      const ownByName: Record<string, string> = { ...own, name: "ids-stack" }
      /** Bodies the schema sampler cannot make well formed (cross-field rules), so that the lookup is reached. */
      const bodies: Record<string, unknown> = {
        "Registry.EntityRoutes.createEntity": { name: "Child", slug: "child", type: "subtenant", parentId: own.entityId },
        "Registry.DnsRecordRoutes.createDnsRecord": { type: "A", name: "a.example.com", content: "192.0.2.2", ttl: 1, proxied: false },
        "Stacks.StackRoutes.createStackVersion": {
          version: "1.0.0", stackDefinition: { resources: [{ type: "sql_db", name: "main", environment: "prod", config: {} }] }, coreSdkVersion: "0.1.0"
        },
        "Deploy.CliRoutes.deploy": NO_BODY,
        "Deploy.CliRoutes.deployMissing": { hashes: ["0".repeat(64)] },
        "Deploy.CliRoutes.setSecrets": { secrets: { API_TOKEN: "value" } }
      }
      const sender = (route: RouteSpec): Record<string, string> => {
        switch (route.auth) {
          case "public":
            return {}
          case "session-cookie":
            return { cookie: `core.session_token=${a.token}` }
          case "operator":
          case "service":
            return SERVICE
          case "caller":
            return route.callers === undefined || route.callers.includes("user") ? a.bearer : SERVICE
        }
      }
      const send = (entry: CataloguedRoute, values: Record<string, string>) => {
        const { route } = entry
        const chosen = entry.label in bodies ? bodies[entry.label] : undefined
        const body = route.method === "GET" || route.method === "DELETE" || route.method === "HEAD" || chosen === NO_BODY
          ? undefined
          : chosen ?? wellFormedBody(route, { orgId: a.orgId, platformId: a.platformId, userId: a.userId, ids: ownByName }) ?? {}
        return sendTo(base, route.method, fillPath(entry.gatewayPath, values), sender(route), body)
      }
      const wrong: Array<string> = []
      let compared = 0
      for (const entry of ROUTES) {
        const names = pathParamNames(entry.route.path)
        for (const [index, param] of names.entries()) {
          // The parameters before this one are the caller's own records, those after it well formed.
          const values = Object.fromEntries(names.map((name, at) => [
            name,
            encodeURIComponent(at < index && ownByName[name] !== undefined ? ownByName[name]! : unknownValue(entry.route, name))
          ]))
          if (isInput(entry.route, param)) continue
          const unknown = await send(entry, values)
          const expected = sameAnswer(unknown)
          if (!isNotFound(expected)) {
            wrong.push(`${entry.label} ${param} unknown: ${unknown.status} ${JSON.stringify(unknown.body).slice(0, 200)}`)
            continue
          }
          for (const [what, value] of malformedValues(entry.route, param)) {
            // The gateway matches a public path before it decodes `%2F`: such a path is not the public
            // route, so it asks for credentials (401) before anything is looked up.
            if (entry.route.auth === "public" && what === "an encoded slash") continue
            const answer = sameAnswer(await send(entry, { ...values, [param]: value }))
            compared++
            if (JSON.stringify(answer) !== JSON.stringify(expected)) wrong.push(`${entry.label} ${param} ${what}: ${JSON.stringify(answer)} ≠ ${JSON.stringify(expected)}`)
          }
          for (const [what, value] of UNROUTABLE) {
            const answer = sameAnswer(await send(entry, { ...values, [param]: value }))
            if (!isNotFound(answer)) wrong.push(`${entry.label} ${param} ${what}: ${JSON.stringify(answer)}`)
          }
          // Another tenant's record in this place is 404 too, in the same words (the service key sees every tenant).
          const theirs = (other as Record<string, string>)[param]
          if (theirs !== undefined && sender(entry.route) !== SERVICE) {
            const answer = sameAnswer(await send(entry, { ...values, [param]: theirs }))
            if (JSON.stringify(answer) !== JSON.stringify(expected)) wrong.push(`${entry.label} ${param} another tenant's: ${JSON.stringify(answer)} ≠ ${JSON.stringify(expected)}`)
          }
        }
      }
      if (wrong.length > 0) console.info(wrong.join("\n"))
      expect(wrong).toEqual([])
      expect(compared).toBeGreaterThanOrEqual(500)
    }, SLOW * 2)
  })
}
