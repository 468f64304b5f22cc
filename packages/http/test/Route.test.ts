import { idSchema, pathInput } from "@core/contracts"
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { type Callers, NotFound, Route } from "@core/kernel"
import { type HttpHarness, makeHttpHarness } from "@core/kernel/testing"
import { FakeCallers, handlers } from "./fixtures/routes.js"

const app = HttpRouter.toHttpApp(Route.router(handlers))

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
    expect((await none.json()).error).toMatchObject({ code: "UNAUTHORIZED", message: "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)" })
    const bad = await harness.fetch("/orgs/org_1/things", { method: "POST", apiKey: "core_bad", json: { name: "a" } })
    expect(bad.status).toBe(401)
    const other = await harness.fetch("/orgs/org_2/things", { method: "POST", apiKey: "core_good", json: { name: "a" } })
    expect(other.status).toBe(404)
    expect((await other.json()).error.code).toBe("NOT_FOUND")
  })

  it("answers 403 to a member lacking the permission", async () => {
    const response = await harness.fetch("/orgs/org_1/things", { method: "POST", token: "usr_reader", json: { name: "a" } })
    expect(response.status).toBe(403)
    expect((await response.json()).error).toMatchObject({ code: "FORBIDDEN", message: "Missing permission resources:manage: ask an owner or admin of the organization to grant it (core grants create --permission resources:manage)" })
  })

  it("validates body, params and query with the contract (400 with issues)", async () => {
    const empty = await harness.fetch("/orgs/org_1/things", { method: "POST", token: "usr_owner", json: { name: "" } })
    expect(empty.status).toBe(400)
    expect((await empty.json()).error).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "name" }] } })
    // Credentials come first: a bad query without them is 401, not 400.
    expect((await harness.fetch("/things?limit=0")).status).toBe(401)
    const query = await harness.fetch("/things?limit=0", { token: "static" })
    expect(query.status).toBe(400)
    const notJson = await harness.fetch("/orgs/org_1/things", { method: "POST", token: "usr_owner", body: "x", headers: { "content-type": "text/plain" } })
    expect(notJson.status).toBe(415)
  })

  it("keeps a route to the callers it declares, and operator routes to operators and the service", async () => {
    expect((await harness.fetch("/things/thg_1", { method: "DELETE", apiKey: "core_good" })).status).toBe(401)
    expect((await harness.fetch("/things/thg_1", { method: "DELETE", token: "usr_owner" })).status).toBe(204)
    expect((await harness.fetch("/things", { token: "usr_owner" })).status).toBe(403)
    const byKey = await harness.fetch("/things", { apiKey: "core_good" })
    expect(byKey.status).toBe(403)
    expect((await byKey.json()).error.message).toBe("This action needs the operator role or the service key")
    const byOperator = await harness.fetch("/things?limit=5", { token: "usr_op" })
    expect(await byOperator.json()).toEqual({ limit: 5, caller: "user" })
    expect(await (await harness.fetch("/things", { token: "static" })).json()).toEqual({ limit: 25, caller: "service" })
  })
})

describe("Route: an optional body", () => {
  const Optional = {
    method: "POST",
    path: "/read",
    summary: "A POST read whose body is optional",
    auth: "public",
    request: { body: z.object({ id: z.string().max(10).optional() }).optional() },
    responses: { 200: z.object({ id: z.string().nullable() }) }
  } as const
  let harness: HttpHarness<Callers>
  beforeAll(async () => {
    const router = Route.router([Route.handle(Optional, ({ body }) => Effect.succeed({ id: body?.id ?? null }))])
    harness = await makeHttpHarness(Effect.runSync(HttpRouter.toHttpApp(router)), FakeCallers)
  })
  afterAll(() => harness.dispose())

  it("reads a POST without a body as none, and still reads and checks one that is sent", async () => {
    const none = await harness.fetch("/read", { method: "POST" })
    expect([none.status, await none.json()]).toEqual([200, { id: null }])
    const sent = await harness.fetch("/read", { method: "POST", json: { id: "a" } })
    expect(await sent.json()).toEqual({ id: "a" })
    expect((await harness.fetch("/read", { method: "POST", json: { id: "x".repeat(11) } })).status).toBe(400)
    expect((await harness.fetch("/read", { method: "POST", body: "{", headers: { "content-type": "application/json" } })).status).toBe(400)
  })
})

describe("Route: path parameters name records", () => {
  const PlatformId = idSchema("plt")
  const Read = {
    method: "GET",
    path: "/platforms/:platformId/secrets/:secretName",
    summary: "A path naming a record, then a value the request writes",
    auth: "public",
    request: { params: z.object({ platformId: PlatformId, secretName: pathInput(z.string().regex(/^[A-Z_]+$/)) }) },
    responses: { 200: z.object({ platformId: z.string() }), 404: null }
  } as const
  let harness: HttpHarness<Callers>
  beforeAll(async () => {
    const router = Route.router([Route.handle(Read, ({ params }) =>
      params.platformId === "plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
        ? Effect.succeed({ platformId: params.platformId })
        : Effect.fail(new NotFound({ message: "Platform not found" })))])
    harness = await makeHttpHarness(Effect.runSync(HttpRouter.toHttpApp(router)), FakeCallers)
  })
  afterAll(() => harness.dispose())

  it("answers a value its contract refuses as the 404 of an unknown record, and keeps a written value's 400", async () => {
    const unknown = await harness.fetch("/platforms/plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RT/secrets/A", { headers: { "x-request-id": "r1" } })
    const body = { error: { code: "NOT_FOUND", message: "Platform not found", requestId: "r1", details: null } }
    expect([unknown.status, await unknown.json()]).toEqual([404, body])
    for (const id of ["plt_0123456789", "x", "job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", "a%00b"]) {
      const malformed = await harness.fetch(`/platforms/${id}/secrets/A`, { headers: { "x-request-id": "r1" } })
      expect([malformed.status, await malformed.json()], id).toEqual([404, body])
    }
    const written = await harness.fetch("/platforms/plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS/secrets/lower")
    expect(written.status).toBe(400)
    expect((await written.json()).error).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "secretName" }] } })
    expect((await harness.fetch("/platforms/plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS/secrets/A")).status).toBe(200)
  })
})
