import { acceptedCallers, buildPath, Iam, pathParamNames, type RouteSpec } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccountsHandlers } from "../src/accounts/Http.js"
import { ApiKeys } from "../src/authorization/ApiKeys.js"
import { type Harness, makeHarness, seedOrganization, signUp, STATIC_KEY } from "./AccountsSupport.js"

/**
 * The accounts catalogue (`Iam.AccountRoutes`) as served: one handler per route, API keys refused
 * by every route about a user's own session or account (none of them is scoped to an organization),
 * and bad input answered 4xx on every route, never 500.
 */
let h: Harness
let apiKey: string

beforeAll(async () => {
  h = await makeHarness()
  const org = await seedOrganization(h)
  apiKey = await h.run(Effect.flatMap(ApiKeys, (keys) =>
    keys.create({ kind: "service" }, { name: "ci", organizationId: org.id, permissions: ["*"] })).pipe(
      Effect.map((created) => created.key),
      Effect.orDie
    ))
})
afterAll(() => h.dispose())

const routes = Object.entries(Iam.AccountRoutes) as Array<[string, RouteSpec]>

/** The documented routes answer the kernel's envelope; the rest are better-auth's `/api/auth/*`. */
const ENVELOPE = new Set(["getProfile", "updateProfile", "listActiveSessions", "deleteSession", "getCoreSession", "validateSession"])

const pathOf = (route: RouteSpec, value = "x") =>
  buildPath(route.path, Object.fromEntries(pathParamNames(route.path).map((name) => [name, value])))

const LONG = "a".repeat(5000)

/** Every body field of the catalogue's requests, each past its bound. */
const LONG_BODY = Object.fromEntries(
  ["name", "email", "password", "image", "token", "id", "callbackURL", "redirectTo", "newPassword", "currentPassword"].map((
    field
  ) => [field, LONG])
)

describe("the accounts route catalogue", () => {
  it("is served by one handler per route", () => {
    const served = Route.served(AccountsHandlers)
    expect(served).toHaveLength(routes.length)
    expect(new Set(served)).toEqual(new Set(routes.map(([, route]) => route)))
  })

  it("refuses an API key on every user-only route with 401", async () => {
    const userOnly = routes.filter(([, route]) => route.auth !== "public")
    expect(userOnly.map(([name]) => name).sort()).toEqual([
      "changePassword",
      "deleteSession",
      "deleteUser",
      "getCoreSession",
      "getProfile",
      "listActiveSessions",
      "listSessions",
      "revokeOtherSessions",
      "revokeSession",
      "revokeSessions",
      "updateProfile",
      "updateUser"
    ])
    for (const [name, route] of userOnly) {
      expect(acceptedCallers(route), name).toEqual(["user"])
      const response = await h.fetch(pathOf(route), { method: route.method, apiKey, ...(route.request?.body ? { json: {} } : {}) })
      expect(response.status, name).toBe(401)
      const body = await response.json()
      if (!ENVELOPE.has(name)) expect(body, name).toEqual({ code: "UNAUTHORIZED", message: "Unauthorized" })
      else expect(body.error.code, name).toBe("UNAUTHORIZED")
    }
  })

  it("keeps the static key out of the user-only routes too", async () => {
    for (const [name, route] of routes.filter(([, route]) => route.auth !== "public")) {
      const response = await h.fetch(pathOf(route), { method: route.method, token: STATIC_KEY, ...(route.request?.body ? { json: {} } : {}) })
      expect(response.status, name).toBe(401)
    }
  })

  it("answers bad input with 4xx, never 500", async () => {
    for (const [name, route] of routes) {
      const { token } = await signUp(h)
      const send = (path: string, init: { json?: unknown; body?: string } = {}) =>
        h.fetch(path, {
          method: route.method,
          token,
          ...(init.json === undefined ? {} : { json: init.json }),
          ...(init.body === undefined ? {} : { body: init.body, headers: { "content-type": "application/json" } })
        })
      if (route.request?.body !== undefined) {
        for (const bad of [{ body: "{not json" }, { json: [] }, { json: "text" }, { json: 42 }, { json: LONG_BODY }]) {
          const response = await send(pathOf(route), bad)
          expect([response.status, name, bad]).toEqual([400, name, bad])
        }
        expect((await send(pathOf(route), { json: {} })).status, name).toBeLessThan(500)
      }
      if (route.request?.query !== undefined) {
        const query = `?token=${LONG}&callbackURL=${LONG}&errorCallbackURL=${LONG}&newUserCallbackURL=${LONG}`
        expect((await send(`${pathOf(route)}${query}`)).status, name).toBe(400)
        expect((await send(`${pathOf(route)}?token=x&token=y&callbackURL[]=z`)).status, name).toBe(400)
      }
      if (pathParamNames(route.path).length > 0) {
        for (const value of ["a".repeat(129), LONG]) {
          const status = (await send(pathOf(route, value))).status // 400, or 404 past the router's parameter length
          expect(status >= 400 && status < 500, `${name}: ${status}`).toBe(true)
        }
      }
      const bare = await h.fetch(pathOf(route), { method: route.method })
      expect(bare.status, name).toBeLessThan(500)
      const garbage = await h.fetch(pathOf(route), { method: route.method, token: "garbage\u00ff", apiKey: "core_garbage" })
      expect(garbage.status, name).toBeLessThan(500)
    }
  })
})
