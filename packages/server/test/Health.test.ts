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
