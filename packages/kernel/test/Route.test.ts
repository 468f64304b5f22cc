import { defineRoutes } from "@core/contracts"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { type Caller, Callers } from "../src/Caller.js"
import { requirePermission } from "../src/Policy.js"
import * as Route from "../src/Route.js"
import { type HttpHarness, makeHttpHarness } from "../src/testing/index.js"
import { Unauthorized } from "../src/Errors.js"
import { HttpRouter } from "@effect/platform"

const Thing = z.object({ id: z.string(), name: z.string() })

const Routes = defineRoutes({
  ping: { method: "GET", path: "/ping", summary: "Ping", auth: "public", responses: { 200: z.object({ ok: z.boolean() }) } },
  create: {
    method: "POST",
    path: "/orgs/{orgId}/things",
    summary: "Create a thing",
    auth: "caller",
    permission: "resources:manage",
    request: {
      params: z.object({ orgId: z.string().max(128) }),
      body: z.object({ name: z.string().min(1).max(200) }),
      contentTypes: ["application/json", "application/x-www-form-urlencoded"]
    },
    responses: { 201: Thing, 400: null, 401: null, 403: null, 404: null }
  },
  remove: {
    method: "DELETE",
    path: "/things/:id",
    summary: "Delete a thing",
    auth: "caller",
    callers: ["user"],
    responses: { 204: null }
  },
  list: {
    method: "GET",
    path: "/things",
    summary: "List things",
    auth: "operator",
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(25) }) },
    responses: { 200: z.object({ limit: z.number(), caller: z.string() }) }
  }
})

const user = (userId: string): Caller => ({ kind: "user", userId, sessionId: "ses_1", email: "a@b.c", organizationId: "org_1", via: "bearer" })

/** A small `Callers` of the same Tag: tokens name users, `core_…` keys hold `resources:manage` in org_1. */
const FakeCallers = Layer.succeed(Callers, {
  resolve: (request) => {
    const key = request.headers["x-api-key"]
    if (key === "core_good") {
      return Effect.succeed({ kind: "apikey", keyId: "key_1", organizationId: "org_1", platformId: "plt_1", permissions: ["resources:*"] })
    }
    if (key !== undefined) return Effect.fail(new Unauthorized({ message: "Invalid API key" }))
    const bearer = request.headers.authorization?.slice(7)
    if (bearer === "static") return Effect.succeed({ kind: "service" })
    return Effect.succeed(bearer === undefined ? undefined : user(bearer))
  },
  isOperator: (userId) => Effect.succeed(userId === "usr_op"),
  permissionsOf: (userId, organizationId) =>
    Effect.succeed(organizationId !== "org_1" ? undefined : userId === "usr_owner" ? ["*"] : ["resources:read"])
})

const app = HttpRouter.toHttpApp(Route.router([
  Route.handle(Routes.ping, () => Effect.succeed({ ok: true })),
  Route.handle(Routes.create, ({ caller, params, body }) =>
    Effect.as(requirePermission(caller, params.orgId, "resources:manage"), { id: "thg_1", name: body.name })),
  Route.handle(Routes.remove, ({ caller }) => Effect.sync(() => expect(caller.kind).toBe("user"))),
  Route.handle(Routes.list, ({ caller, query }) => Effect.succeed({ limit: query.limit, caller: caller.kind }))
]))

describe("Route: a catalogued route served from its declaration", () => {
  let harness: HttpHarness<Callers>
  beforeAll(async () => {
    harness = await makeHttpHarness(Effect.runSync(app), FakeCallers)
  })
  afterAll(() => harness.dispose())

  it("answers a public route with its declared body", async () => {
    const response = await harness.fetch("/ping")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
  })

  it("answers the declared success status, for users and API keys alike", async () => {
    const byOwner = await harness.fetch("/orgs/org_1/things", { method: "POST", token: "usr_owner", json: { name: "a" } })
    expect(byOwner.status).toBe(201)
    expect(await byOwner.json()).toEqual({ id: "thg_1", name: "a" })
    const byKey = await harness.fetch("/orgs/org_1/things", { method: "POST", apiKey: "core_good", json: { name: "b" } })
    expect(byKey.status).toBe(201)
  })

  it("reads a form-encoded body where the route declares it", async () => {
    const response = await harness.fetch("/orgs/org_1/things", {
      method: "POST",
      token: "usr_owner",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "name=formed"
    })
    expect(await response.json()).toEqual({ id: "thg_1", name: "formed" })
  })

  it("refuses without credentials (401), with bad ones (401), and another tenant (404)", async () => {
    const none = await harness.fetch("/orgs/org_1/things", { method: "POST", json: { name: "a" } })
    expect(none.status).toBe(401)
    expect((await none.json()).error).toMatchObject({ code: "UNAUTHORIZED", message: "Authentication required" })
    const bad = await harness.fetch("/orgs/org_1/things", { method: "POST", apiKey: "core_bad", json: { name: "a" } })
    expect(bad.status).toBe(401)
    const other = await harness.fetch("/orgs/org_2/things", { method: "POST", apiKey: "core_good", json: { name: "a" } })
    expect(other.status).toBe(404)
    expect((await other.json()).error.code).toBe("NOT_FOUND")
  })

  it("answers 403 to a member lacking the permission", async () => {
    const response = await harness.fetch("/orgs/org_1/things", { method: "POST", token: "usr_reader", json: { name: "a" } })
    expect(response.status).toBe(403)
    expect((await response.json()).error).toMatchObject({ code: "FORBIDDEN", message: "Missing permission resources:manage" })
  })

  it("validates body, params and query with the contract (400 with issues)", async () => {
    const empty = await harness.fetch("/orgs/org_1/things", { method: "POST", token: "usr_owner", json: { name: "" } })
    expect(empty.status).toBe(400)
    expect((await empty.json()).error).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "name" }] } })
    const query = await harness.fetch("/things?limit=0", { token: "static" })
    expect(query.status).toBe(400)
    const notJson = await harness.fetch("/orgs/org_1/things", { method: "POST", token: "usr_owner", body: "x", headers: { "content-type": "text/plain" } })
    expect(notJson.status).toBe(415)
  })

  it("keeps a route to the callers it declares, and operator routes to operators and the service", async () => {
    expect((await harness.fetch("/things/thg_1", { method: "DELETE", apiKey: "core_good" })).status).toBe(401)
    expect((await harness.fetch("/things/thg_1", { method: "DELETE", token: "usr_owner" })).status).toBe(204)
    expect((await harness.fetch("/things", { token: "usr_owner" })).status).toBe(403)
    expect((await harness.fetch("/things", { apiKey: "core_good" })).status).toBe(401)
    const byOperator = await harness.fetch("/things?limit=5", { token: "usr_op" })
    expect(await byOperator.json()).toEqual({ limit: 5, caller: "user" })
    expect(await (await harness.fetch("/things", { token: "static" })).json()).toEqual({ limit: 25, caller: "service" })
  })
})
