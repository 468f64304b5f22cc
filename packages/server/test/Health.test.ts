import { HttpApp } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as Health from "../src/Health.js"

describe("Health", () => {
  it.effect("is ready when every check answers", () =>
    Effect.gen(function*() {
      const result = yield* Health.readiness([
        { name: "database", check: Effect.void },
        { name: "redis", check: Effect.succeed("PONG") }
      ])
      expect(result).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } })
    }))

  it.effect("is unavailable when a check fails, dies or does not answer in time", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Health.readiness([
        { name: "database", check: Effect.fail(new Error("connection refused")) },
        { name: "redis", check: Effect.never },
        { name: "cache", check: Effect.die("boom") },
        { name: "mail", check: Effect.void }
      ]))
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(fiber)).toEqual({
        status: "unavailable",
        checks: { database: "error", redis: "timeout", cache: "error", mail: "ok" }
      })
    }))

  it.effect("is degraded, not unavailable, when only an optional dependency fails", () =>
    Effect.gen(function*() {
      const result = yield* Health.readiness([
        { name: "database", check: Effect.void },
        { name: "redis", check: Effect.fail(new Error("ECONNREFUSED")), required: false }
      ])
      expect(result).toEqual({ status: "degraded", checks: { database: "ok", redis: "error" } })
      const both = yield* Health.readiness([
        { name: "database", check: Effect.fail(new Error("down")) },
        { name: "redis", check: Effect.fail(new Error("down")), required: false }
      ])
      expect(both.status).toBe("unavailable")
    }))

  it("answers /ready 200 when degraded", async () => {
    const degraded = HttpApp.toWebHandler(Health.routes([
      { name: "database", check: Effect.void },
      { name: "redis", check: Effect.fail("down"), required: false }
    ]))
    const ready = await degraded(new Request("http://localhost/ready"))
    expect([ready.status, await ready.json()]).toEqual([200, { status: "degraded", checks: { database: "ok", redis: "error" } }])
  })

  it("answers /health with text ok and /ready with 200 or 503 JSON", async () => {
    const healthy = HttpApp.toWebHandler(Health.routes([{ name: "database", check: Effect.void }]))
    const health = await healthy(new Request("http://localhost/health"))
    expect([health.status, health.headers.get("content-type"), await health.text()]).toEqual([200, "text/plain", "ok"])
    const ready = await healthy(new Request("http://localhost/ready"))
    expect([ready.status, ready.headers.get("cache-control"), await ready.json()]).toEqual([
      200,
      "no-store",
      { status: "ready", checks: { database: "ok" } }
    ])
    const broken = HttpApp.toWebHandler(Health.routes([{ name: "database", check: Effect.fail("down") }]))
    const unavailable = await broken(new Request("http://localhost/ready"))
    expect([unavailable.status, await unavailable.json()]).toEqual([
      503,
      { status: "unavailable", checks: { database: "error" } }
    ])
  })
})
