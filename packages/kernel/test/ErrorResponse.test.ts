import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ErrorResponse, InvalidState, NotFound, RateLimited, ValidationError } from "@core/kernel"
import { SqlError } from "@effect/sql/SqlError"

const request = (headers: Record<string, string> = {}) =>
  HttpServerRequest.fromWeb(new Request("http://local/x", { headers }))

const render = (cause: Effect.Effect<never, unknown>, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const response = yield* ErrorResponse.withErrorEnvelope(cause).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request(headers))
    )
    const web = HttpServerResponse.toWeb(response)
    return { status: web.status, headers: web.headers, body: yield* Effect.promise(() => web.json()) }
  })

describe("ErrorResponse", () => {
  it.effect("maps a tagged error to its status and envelope with the request id", () =>
    Effect.gen(function*() {
      const res = yield* render(Effect.fail(new NotFound({ message: "Platform not found" })), { "x-request-id": "req-1" })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: { code: "NOT_FOUND", message: "Platform not found", requestId: "req-1", details: null } })
    }))

  it.effect("carries validation issues and state transitions in details", () =>
    Effect.gen(function*() {
      const v = yield* render(Effect.fail(new ValidationError({ message: "Invalid request body", issues: [{ path: "slug", message: "bad" }] })))
      expect(v.status).toBe(400)
      expect(v.body.error.details).toEqual({ issues: [{ path: "slug", message: "bad" }] })
      const s = yield* render(Effect.fail(new InvalidState({ message: "no", from: "cancelled", to: "active" })))
      expect(s.status).toBe(409)
      expect(s.body.error).toMatchObject({ code: "INVALID_STATE", details: { from: "cancelled", to: "active" } })
    }))

  it.effect("adds Retry-After and RateLimit headers to 429", () =>
    Effect.gen(function*() {
      const res = yield* render(Effect.fail(new RateLimited({ message: "Too many requests", retryAfterSeconds: 7, limit: 10, remaining: 0, resetSeconds: 7 })))
      expect(res.status).toBe(429)
      expect(res.headers.get("retry-after")).toBe("7")
      expect(res.headers.get("ratelimit-limit")).toBe("10")
    }))

  it.effect("turns a defect into 500 INTERNAL_ERROR without a stack trace", () =>
    Effect.gen(function*() {
      const res = yield* render(Effect.die(new Error("secret internals at line 42")), { "x-request-id": "req-9" })
      expect(res.status).toBe(500)
      expect(res.body).toEqual({ error: { code: "INTERNAL_ERROR", message: "An internal error occurred", requestId: "req-9", details: null } })
      expect(JSON.stringify(res.body)).not.toContain("line 42")
    }))

  it.effect("answers a database that refuses or drops connections 503 UNAVAILABLE with Retry-After; a failed statement stays 500", () =>
    Effect.gen(function*() {
      const driverError = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code })
      const outages = [
        new SqlError({ message: "Failed to acquire connection", cause: driverError("connect ECONNREFUSED 10.0.0.7:5432", "ECONNREFUSED") }),
        new SqlError({ message: "Failed to execute statement", cause: driverError("terminating connection due to administrator command", "57P01") }),
        new SqlError({ message: "Failed to execute statement", cause: driverError("Connection terminated unexpectedly") }),
        new SqlError({ message: "Failed to execute statement", cause: driverError("sorry, too many clients already", "53300") })
      ]
      for (const [index, error] of outages.entries()) {
        const res = yield* render(index % 2 === 0 ? Effect.die(error) : Effect.fail(error), { "x-request-id": `db-${index}` })
        expect([res.status, res.headers.get("retry-after"), res.body]).toEqual([503, "5", {
          error: { code: "UNAVAILABLE", message: "The service is temporarily unavailable; try again shortly", requestId: `db-${index}`, details: null }
        }])
        expect(JSON.stringify(res.body)).not.toContain("10.0.0.7")
      }
      const statement = yield* render(Effect.die(new SqlError({ message: "Failed to execute statement", cause: driverError("invalid input syntax for type uuid", "22P02") })))
      expect([statement.status, statement.body.error.code]).toEqual([500, "INTERNAL_ERROR"])
    }))

  it.effect("replaces an unsafe inbound request id with a generated one", () =>
    Effect.gen(function*() {
      const res = yield* render(Effect.fail(new NotFound({ message: "x" })), { "x-request-id": "bad id\twith spaces" })
      expect(res.body.error.requestId).toMatch(/^[0-9a-f-]{36}$/)
    }))
})

describe("ErrorResponse.handleCause with a router", () => {
  it.effect("answers an unmatched route with 404 NOT_FOUND, not 500", () =>
    Effect.gen(function*() {
      const { HttpRouter } = yield* Effect.promise(() => import("@effect/platform"))
      const app = ErrorResponse.withErrorEnvelope(HttpRouter.empty)
      const response = yield* app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, request({ "x-request-id": "r-404" }))
      )
      const web = HttpServerResponse.toWeb(response)
      expect(web.status).toBe(404)
      expect(yield* Effect.promise(() => web.json())).toEqual({
        error: { code: "NOT_FOUND", message: "Route not found", requestId: "r-404", details: null }
      })
    }))
})

describe("bad input that used to surface as a 500", () => {
  it.effect("answers broken percent-encoding in a routed path with the 404 envelope, never 500", () =>
    Effect.gen(function*() {
      const { HttpRouter } = yield* Effect.promise(() => import("@effect/platform"))
      const app = ErrorResponse.withErrorEnvelope(
        HttpRouter.empty.pipe(
          HttpRouter.del("/grants/:id", Effect.map(HttpRouter.params, (params) => HttpServerResponse.text(params.id ?? "")))
        )
      )
      const response = yield* app.pipe(
        Effect.provideService(
          HttpServerRequest.HttpServerRequest,
          HttpServerRequest.fromWeb(new Request("http://local/grants/%E0%A4%A", { method: "DELETE", headers: { "x-request-id": "r-uri" } }))
        )
      )
      const web = HttpServerResponse.toWeb(response)
      expect(web.status).toBe(404)
      expect((yield* Effect.promise(() => web.json())).error).toMatchObject({ code: "NOT_FOUND", requestId: "r-uri" })
    }))

  it.effect("refuses NUL characters anywhere in decoded input with the path", () =>
    Effect.gen(function*() {
      const { Validation } = yield* Effect.promise(() => import("@core/kernel"))
      const { z } = yield* Effect.promise(() => import("zod"))
      const error = yield* Effect.flip(Validation.decode(z.object({ a: z.object({ b: z.string() }) }), { a: { b: "x\u0000y" } }))
      expect(error.issues).toEqual([{ path: "a.b", message: "Must not contain NUL characters" }])
    }))
})
