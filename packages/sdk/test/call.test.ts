import { defineRoute, Iam } from "@core/contracts"
import { AccountRouteRefs, AuthorizationRouteRefs, DeviceRouteRefs, OrganizationRouteRefs } from "@core/contracts/routes"
import { afterEach, describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import { BadRequestError, ConflictError, createClient, NotFoundError, UnauthorizedError, type CallInput } from "../src/index.js"
import { envelope, startScriptServer, type Reply, type ScriptServer } from "./script-server.js"

let server: ScriptServer | undefined
afterEach(async () => server?.close())

const answering = async (...replies: Array<Reply>) => {
  server = await startScriptServer(replies)
  return createClient({ baseUrl: server.url, retry: 0 })
}

/** A route of another service, declared with its full gateway path (so no prefix is added). */
const searchThings = defineRoute({
  method: "GET",
  path: "/api/v1/things/:kind/search",
  summary: "Search things",
  auth: "caller",
  request: { query: z.object({ q: z.string(), tag: z.array(z.string()).optional(), limit: z.number().optional() }) },
  responses: { 200: z.object({ data: z.array(z.object({ id: z.string() })) }) }
})

describe("client.call", () => {
  it("fills the path's placeholders URL-encoded, under the ref's gateway prefix, and types the result from the route", async () => {
    const client = await answering({ status: 200, body: { id: "ses/1 a" } })
    const revoked = await client.call(AccountRouteRefs.deleteSession, { params: { id: "ses/1 a" } })
    expectTypeOf(revoked).toEqualTypeOf<Iam.RevokedSession>()
    expect(revoked).toEqual({ id: "ses/1 a" })
    expect(server!.requests[0]).toMatchObject({ method: "DELETE", url: "/api/v1/iam/api/sessions/ses%2F1%20a", body: "" })
  })

  it("takes the route's declaration too, typed alike, under the prefix of the catalogued route it is", async () => {
    const client = await answering({ status: 200, body: { id: "ses_1" } }, { status: 200, body: { device_code: "d" } })
    const revoked = await client.call(Iam.AccountRoutes.deleteSession, { params: { id: "ses_1" } })
    expectTypeOf(revoked).toEqualTypeOf<Iam.RevokedSession>()
    await client.call(Iam.DeviceRoutes.requestDeviceCode, { body: { client_id: Iam.DEVICE_CLIENT_ID } })
    expect(server!.requests.map((request) => `${request.method} ${request.url} ${request.body}`)).toEqual([
      "DELETE /api/v1/iam/api/sessions/ses_1 ",
      "POST /api/v1/iam/oauth/device/code client_id=core-cli"
    ])
  })

  it("fills several placeholders, and basePath replaces the gateway prefix", async () => {
    const client = await answering({ status: 204 })
    await client.call(AuthorizationRouteRefs.deleteRoleMapping, { params: { orgId: "org_1", role: "a&b" } }, { basePath: "/direct" })
    expect(server!.requests[0].url).toBe("/direct/api/core/roles/org_1/a%26b")
  })

  it("sends the query, repeating arrays, and adds no prefix to a route outside the identity catalogue", async () => {
    const client = await answering({ status: 200, body: { data: [{ id: "t1" }] } })
    const found = await client.call(searchThings, { params: { kind: "x y" }, query: { q: "a&b", tag: ["p", "q"], limit: 5 } })
    expectTypeOf(found).toEqualTypeOf<{ data: Array<{ id: string }> }>()
    expect(server!.requests[0].url).toBe("/api/v1/things/x%20y/search?q=a%26b&tag=p&tag=q&limit=5")
  })

  it("form-encodes the body of a route whose first content type is a form, and sends JSON otherwise", async () => {
    const token = { access_token: "a", token_type: "bearer", expires_in: 3600, refresh_token: "r" }
    const client = await answering({ status: 200, body: token }, { status: 201, body: { id: "grt_1" } })
    const answered = await client.call(DeviceRouteRefs.token, {
      body: { grant_type: Iam.REFRESH_TOKEN_GRANT, refresh_token: "r t", client_id: Iam.DEVICE_CLIENT_ID }
    })
    expectTypeOf(answered).toEqualTypeOf<Iam.TokenResponse>()
    await client.call(AuthorizationRouteRefs.createGrant, { body: { orgId: "org_1", userId: "usr_1", permission: "org:read", granted: true, grantedBy: "usr_0" } })
    expect(server!.requests[0]).toMatchObject({
      method: "POST",
      url: "/api/v1/iam/oauth/token",
      body: "grant_type=refresh_token&refresh_token=r+t&client_id=core-cli",
      headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" }
    })
    expect(server!.requests[1]).toMatchObject({ url: "/api/v1/iam/api/core/grants", headers: { "content-type": "application/json" } })
    expect(JSON.parse(server!.requests[1].body)).toMatchObject({ orgId: "org_1", granted: true })
  })

  it("resolves undefined for 204", async () => {
    const client = await answering({ status: 204 })
    const deleted = await client.call(AuthorizationRouteRefs.deleteGrant, { params: { id: "grt_1" } })
    expectTypeOf(deleted).toEqualTypeOf<undefined>()
    expect(deleted).toBeUndefined()
  })

  it("sends an idempotency key with a POST unless told not to, and merges the input's and the options' headers", async () => {
    const client = await answering({ status: 200, body: { valid: false } }, { status: 200, body: { valid: false } })
    await client.call(AccountRouteRefs.validateSession, { headers: { "x-a": "1" } }, { headers: { "x-b": "2" } })
    await client.call(AccountRouteRefs.validateSession, {}, { idempotencyKey: false })
    expect(server!.requests[0].headers).toMatchObject({ "x-a": "1", "x-b": "2", "idempotency-key": expect.any(String) })
    expect(server!.requests[1].headers["idempotency-key"]).toBeUndefined()
  })

  it("fails with the status's error, coded from the envelope, a better-auth body or an OAuth body", async () => {
    const client = await answering(
      { status: 404, body: envelope("NOT_FOUND", "No such grant", "req_1") },
      { status: 401, body: { code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" } },
      { status: 400, body: { code: "VALIDATION_ERROR", message: "Invalid body", issues: [{ path: ["email"] }] } },
      { status: 400, body: { error: "invalid_grant", error_description: "The refresh token was used" } },
      { status: 409, body: { error: "conflict" }, headers: { "x-request-id": "req_9" } }
    )
    const failure = (promise: Promise<unknown>) => promise.catch((error: unknown) => error)
    expect(await failure(client.call(AuthorizationRouteRefs.deleteGrant, { params: { id: "grt_1" } })))
      .toMatchObject({ constructor: NotFoundError, code: "NOT_FOUND", message: "No such grant", requestId: "req_1" })
    expect(await failure(client.call(AccountRouteRefs.signInEmail, { body: { email: "a@b.c", password: "x" } })))
      .toMatchObject({ constructor: UnauthorizedError, status: 401, code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" })
    expect(await failure(client.call(AccountRouteRefs.signUpEmail, { body: { name: "A", email: "a", password: "x" } })))
      .toMatchObject({ constructor: BadRequestError, code: "VALIDATION_ERROR", details: { issues: [{ path: ["email"] }] } })
    expect(await failure(client.call(DeviceRouteRefs.token, { body: { grant_type: "refresh_token", refresh_token: "r", client_id: "core-cli" } })))
      .toMatchObject({ constructor: BadRequestError, code: "invalid_grant", message: "The refresh token was used", details: null })
    expect(await failure(client.call(OrganizationRouteRefs.bootstrap, {})))
      .toMatchObject({ constructor: ConflictError, code: "conflict", message: "conflict", requestId: "req_9" })
  })

  it("types the input from the route: the path's parameters and a required body must be given, an absent part may not", () => {
    expectTypeOf<CallInput<typeof Iam.AuthorizationRoutes.deleteGrant>>().toEqualTypeOf<
      & { readonly params: { id: string } }
      & { readonly query?: undefined }
      & { readonly body?: undefined }
      & { readonly headers?: Readonly<Record<string, string>> }
    >()
    expectTypeOf<CallInput<typeof AuthorizationRouteRefs.deleteGrant>>().toEqualTypeOf<CallInput<typeof Iam.AuthorizationRoutes.deleteGrant>>()
    expectTypeOf<{}>().not.toExtend<CallInput<typeof Iam.AuthorizationRoutes.deleteGrant>>()
    expectTypeOf<{}>().not.toExtend<CallInput<typeof AuthorizationRouteRefs.deleteGrant>>()
    expectTypeOf<{}>().not.toExtend<CallInput<typeof DeviceRouteRefs.token>>()
    expectTypeOf<{}>().not.toExtend<CallInput<typeof Iam.DeviceRoutes.token>>()
    expectTypeOf<{}>().toExtend<CallInput<typeof Iam.AccountRoutes.validateSession>>()
    expectTypeOf<{ params: { id: "x" }; body: {} }>().not.toExtend<CallInput<typeof Iam.AuthorizationRoutes.deleteGrant>>()
  })
})

describe("client.iam over the catalogue", () => {
  it("reaches each method's route under the gateway prefix, pages through a paged route, and encodes parameters", async () => {
    const client = await answering(
      { status: 200, body: { data: [{ id: "inv_1" }], cursor: "c1" } },
      { status: 200, body: { data: [{ id: "inv_2" }], cursor: "" } },
      { status: 200, body: { device_code: "d", user_code: "BCDF-GHJK", verification_uri: "v", verification_uri_complete: "v", expires_in: 600, interval: 5 } },
      { status: 200, body: { id: "inv_1", status: "revoked" } }
    )
    const ids: Array<string> = []
    for await (const invitation of client.iam.invitations.all("org 1", { limit: 1 })) ids.push(invitation.id)
    await client.iam.device.requestCode({ scope: "cli" })
    await client.iam.invitations.revoke("org 1", "inv/1")
    expect(ids).toEqual(["inv_1", "inv_2"])
    expect(server!.requests.map((request) => `${request.method} ${request.url} ${request.body}`)).toEqual([
      "GET /api/v1/iam/api/core/organizations/org%201/invitations?limit=1 ",
      "GET /api/v1/iam/api/core/organizations/org%201/invitations?limit=1&cursor=c1 ",
      "POST /api/v1/iam/oauth/device/code client_id=core-cli&scope=cli",
      "DELETE /api/v1/iam/api/core/organizations/org%201/invitations/inv%2F1 "
    ])
    expect(server!.requests[2].headers["idempotency-key"]).toBeUndefined()
  })
})
