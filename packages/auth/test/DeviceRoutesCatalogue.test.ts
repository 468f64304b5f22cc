import { buildPath, Iam, type RouteSpec, toOpenApi } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { ApiKeys } from "../src/authorization/ApiKeys.js"
import { DeviceHandlers } from "../src/device/Http.js"
import { CLIENT_ID, deviceRow, newUser, seedOrganization, type Send, send, useHarness } from "./OAuthHttpSupport.js"

/** Bodies no route of the catalogue accepts: not an object, not readable, too large, too long, holding NUL. */
const GARBAGE: ReadonlyArray<Send> = [
  { json: {} },
  { json: [] },
  { json: null },
  { json: "core-cli" },
  { json: { client_id: 42, grant_type: 7, user_code: 7, scope: ["a"] } },
  { json: { client_id: "x".repeat(5_000), device_code: "x".repeat(5_000), user_code: "x".repeat(5_000), grant_type: "x".repeat(5_000) } },
  { json: { client_id: "\u0000", device_code: "\u0000", refresh_token: "\u0000", user_code: "\u0000", grant_type: "\u0000", scope: "\u0000" } },
  { body: "{\"client_id\":", headers: { "content-type": "application/json" } },
  { body: "\u00ff\u00fe{}", headers: { "content-type": "application/json; charset=latin1" } },
  { body: "client_id=%ZZ&user_code=%&grant_type", headers: { "content-type": "application/x-www-form-urlencoded" } },
  { body: `padding=${"x".repeat(20_000)}`, headers: { "content-type": "application/x-www-form-urlencoded" } },
  { body: "<client_id>core-cli</client_id>", headers: { "content-type": "application/xml" } },
  { body: "client_id=core-cli" }
]

describe("Iam.DeviceRoutes, route by route", () => {
  const it = useHarness()

  describe("the catalogue", () => {
    it.effect("is served route by route: with an empty body the OAuth routes answer invalid_request, the guarded ones 401", () =>
      Effect.gen(function*() {
        const expected: Record<string, number> = {
          requestDeviceCode: 400,
          deviceToken: 400,
          token: 400,
          authorizeDevice: 401,
          denyDevice: 401,
          authorizationServerMetadata: 200,
          gatewayAuthorizationServerMetadata: 200,
          cliWhoami: 401
        }
        for (const [name, route] of Object.entries(Iam.DeviceRoutes)) {
          const answer = yield* send(buildPath(route.path, {}), { method: route.method, ...(route.method === "POST" ? { json: {} } : {}) })
          expect([name, answer.status]).toEqual([name, expected[name]])
        }
      }))

    it.effect("makes an OpenAPI 3.1 document with every path", () =>
      Effect.sync(() => {
        const document = toOpenApi({ title: "Core identity: device authorization", version: "1", routes: Iam.DeviceRoutes })
        expect(Object.keys(document.paths).sort()).toEqual([
          "/.well-known/oauth-authorization-server",
          "/.well-known/oauth-authorization-server/api/v1/iam",
          "/api/v1/cli/whoami",
          "/oauth/device/authorize",
          "/oauth/device/code",
          "/oauth/device/deny",
          "/oauth/device/token",
          "/oauth/token"
        ])
        expect(() => JSON.stringify(document)).not.toThrow()
      }))
  })

  it.effect("every declared route has exactly one handler", () =>
    Effect.sync(() => {
      const served = Route.served(DeviceHandlers)
      expect(served).toHaveLength(Object.keys(Iam.DeviceRoutes).length)
      expect(new Set(served)).toEqual(new Set(Object.values(Iam.DeviceRoutes)))
    }))

  it.effect("bad input answers 4xx in the route's own body on every route, with or without a session; never a 500", () =>
    Effect.gen(function*() {
      const user = yield* newUser("garbage")
      for (const [name, route] of Object.entries<RouteSpec>(Iam.DeviceRoutes)) {
        if (route.method !== "POST") {
          const answer = yield* send(`${route.path}?x=${"%00".repeat(3)}&x=${"y".repeat(5_000)}`)
          expect([name, answer.status]).toEqual([name, 200])
          continue
        }
        for (const init of GARBAGE) {
          for (const token of [undefined, user.token]) {
            const answer = yield* send(route.path, { ...init, method: "POST", ...(token === undefined ? {} : { token }) })
            const refused = route.request?.body !== undefined || token === undefined
            expect([name, init, token !== undefined, refused ? answer.status >= 400 && answer.status < 500 : answer.status === 200])
              .toEqual([name, init, token !== undefined, true])
            if (route.path.startsWith("/oauth/")) expect([name, answer.body.error]).toEqual([name, expect.any(String)])
          }
        }
      }
    }))

  it.effect("API keys: whoami answers a key's identity; approving or denying a device is for signed-in users only", () =>
    Effect.gen(function*() {
      const owner = yield* newUser("keys")
      const org = yield* seedOrganization({ userId: owner.id, role: "owner" })
      const keys = yield* ApiKeys
      const caller = { kind: "user" as const, userId: owner.id, sessionId: "ses", email: owner.email, organizationId: org.id, via: "bearer" as const }
      const created = yield* keys.create(caller, { organizationId: org.id, name: "ci" })

      const whoami = yield* send(Iam.DeviceRoutes.cliWhoami.path, { method: "POST", headers: { "x-api-key": created.key } })
      expect([whoami.status, whoami.body]).toEqual([200, { email: owner.email, platformId: org.platformId, role: "apikey", expiresAt: null }])

      const { body: code } = yield* send(Iam.DeviceRoutes.requestDeviceCode.path, { form: { client_id: CLIENT_ID } })
      for (const route of [Iam.DeviceRoutes.authorizeDevice, Iam.DeviceRoutes.denyDevice]) {
        for (const headers of [{ "x-api-key": created.key }, { authorization: `Bearer ${created.key}` }] as Array<Record<string, string>>) {
          const answer = yield* send(route.path, { json: { user_code: code.user_code }, headers })
          expect([route.path, answer.status, answer.body.error]).toEqual([route.path, 401, "invalid_token"])
        }
      }
      expect((yield* deviceRow(code.device_code)).status).toBe("pending")
    }))
})
