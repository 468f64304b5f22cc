import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberRef, Layer, LogLevel, Option, Redacted } from "effect"
import { CoreConfig } from "../src/Config.js"
import * as Logging from "../src/Logging.js"
import * as RequestContext from "../src/RequestContext.js"

const capture = (level: Logging.LoggingOptions["level"] = "info") => {
  const lines: Array<Record<string, unknown>> = []
  const layer = Logging.layer({ level, write: (line) => lines.push(JSON.parse(line)) })
  return { lines, layer }
}

const request = (headers: Record<string, string>) =>
  HttpServerRequest.fromWeb(new Request("http://local/platforms", { headers }))

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

describe("Logging", () => {
  it.effect("writes one JSON line per log with timestamp, level, message and annotations", () => {
    const { lines, layer } = capture()
    return Effect.gen(function*() {
      yield* Effect.logInfo("platform created").pipe(Effect.annotateLogs({ platformId: "plt_1", count: 2 }))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toEqual({
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        level: "info",
        message: "platform created",
        platformId: "plt_1",
        count: 2
      })
    }).pipe(Effect.provide(layer))
  })

  it.effect("writes the same fields as a line for a person with format text", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      yield* Effect.logWarning("platform created").pipe(Effect.annotateLogs({ platformId: "plt_1", token: "secret", count: 2 }))
      expect(lines).toEqual([expect.stringMatching(/^\d{2}:\d{2}:\d{2} warn  platform created count=2 platformId=plt_1 token=\[REDACTED\]$/)])
    }).pipe(Effect.provide(Logging.layer({ format: "text", write: (line) => lines.push(line) })))
  })

  it.effect("honours the minimum level", () => {
    const { lines, layer } = capture("warn")
    return Effect.gen(function*() {
      yield* Effect.logInfo("quiet")
      yield* Effect.logDebug("quieter")
      yield* Effect.logWarning("loud")
      yield* Effect.logError("louder")
      expect(lines.map((line) => [line.level, line.message])).toEqual([["warn", "loud"], ["error", "louder"]])
    }).pipe(Effect.provide(layer))
  })

  it.effect("prints debug lines when asked to", () => {
    const { lines, layer } = capture("debug")
    return Effect.logDebug("details").pipe(
      Effect.provide(layer),
      Effect.map(() => expect(lines.map((line) => line.level)).toEqual(["debug"]))
    )
  })

  it.effect("never prints the values of sensitive keys, at any depth", () => {
    const { lines, layer } = capture()
    return Effect.gen(function*() {
      yield* Effect.logInfo("sign-in", {
        email: "a@example.com",
        password: "hunter2",
        headers: { authorization: "Bearer abc", cookie: "core.session_token=xyz", "x-api-key": "core_k", "content-type": "application/json" },
        nested: [{ refresh_token: "r1", clientSecret: "s1", apiKey: "k1", "set-cookie": "c" }],
        redacted: Redacted.make("inner")
      }).pipe(Effect.annotateLogs({ token: "t0", CORE_SECRET: "root", userId: "usr_1" }))
      const line = lines[0]
      expect(line).toMatchObject({
        message: "sign-in",
        token: "[REDACTED]",
        CORE_SECRET: "[REDACTED]",
        userId: "usr_1",
        data: {
          email: "a@example.com",
          password: "[REDACTED]",
          headers: { authorization: "[REDACTED]", cookie: "[REDACTED]", "x-api-key": "[REDACTED]", "content-type": "application/json" },
          nested: [{ refresh_token: "[REDACTED]", clientSecret: "[REDACTED]", apiKey: "[REDACTED]", "set-cookie": "[REDACTED]" }],
          redacted: "[REDACTED]"
        }
      })
      const text = JSON.stringify(line)
      for (const secret of ["hunter2", "abc", "xyz", "core_k", "r1", "s1", "k1", "t0", "root", "inner"]) {
        expect(text).not.toContain(`"${secret}"`)
      }
    }).pipe(Effect.provide(layer))
  })

  it.effect("masks credentials inside free text and causes", () => {
    const { lines, layer } = capture()
    const key = "core_" + "A".repeat(43)
    return Effect.gen(function*() {
      yield* Effect.logWarning(`upstream said Authorization: Bearer s3cr3t-token and key ${key}`)
      yield* Effect.logError("connect failed", "postgres://core:pa55word@db:5432/core")
      yield* Effect.die(new Error("Bearer leaked-in-defect")).pipe(Effect.catchAllCause((cause) => Effect.logError("crash", cause)))
      const text = JSON.stringify(lines)
      expect(lines[0].message).toBe("upstream said Authorization: Bearer [REDACTED] and key core_[REDACTED]")
      expect(lines[1].message).toBe("connect failed postgres://core:[REDACTED]@db:5432/core")
      expect(text).not.toContain("s3cr3t-token")
      expect(text).not.toContain("pa55word")
      expect(text).not.toContain("leaked-in-defect")
      expect(lines[2].cause).toContain("Bearer [REDACTED]")
    }).pipe(Effect.provide(layer))
  })

  it.effect("adds the request id and trace id of the current request", () => {
    const { lines, layer } = capture()
    const handler = Effect.gen(function*() {
      yield* Effect.logInfo("handling")
      const context = yield* RequestContext.current
      return HttpServerResponse.unsafeJson(Option.getOrNull(context))
    })
    return Effect.gen(function*() {
      const response = yield* RequestContext.middleware(handler).pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, request({ "x-request-id": "req-42", traceparent: TRACEPARENT }))
      )
      expect(lines[0]).toMatchObject({ message: "handling", requestId: "req-42", traceId: "4bf92f3577b34da6a3ce929d0e0e4736" })
      const body = yield* Effect.promise(() => HttpServerResponse.toWeb(response).json())
      expect(body).toEqual({ requestId: "req-42", traceId: "4bf92f3577b34da6a3ce929d0e0e4736", ip: null, userAgent: null })
    }).pipe(Effect.provide(layer))
  })

  it.effect("takes the log level from CoreConfig", () =>
    Effect.gen(function*() {
      const level = yield* FiberRef.get(FiberRef.currentMinimumLogLevel).pipe(
        Effect.provide(Logging.layerFromConfig.pipe(Layer.provide(CoreConfig.layer({ NODE_ENV: "test", LOG_LEVEL: "error" }))))
      )
      expect(level).toBe(LogLevel.Error)
    }))
})

describe("RequestContext", () => {
  it("reads the gateway's trace id, else a valid traceparent, and ignores malformed ones", () => {
    expect(RequestContext.fromRequest(request({ "x-core-request-id": "gw-1", "x-core-trace-id": "ABCDEF0123456789ABCDEF0123456789" })))
      .toEqual({ requestId: "gw-1", traceId: "abcdef0123456789abcdef0123456789", ip: null, userAgent: null })
    expect(RequestContext.traceIdOf(request({ traceparent: TRACEPARENT }))).toBe("4bf92f3577b34da6a3ce929d0e0e4736")
    expect(RequestContext.traceIdOf(request({ traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" }))).toBeUndefined()
    expect(RequestContext.traceIdOf(request({ traceparent: "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }))).toBeUndefined()
    expect(RequestContext.traceIdOf(request({ traceparent: "garbage" }))).toBeUndefined()
    expect(RequestContext.fromRequest(request({})).requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(RequestContext.fromRequest(request({ "user-agent": "x".repeat(600) })).userAgent).toHaveLength(512)
  })

  it.effect("carries the caller once resolved", () =>
    Effect.gen(function*() {
      const caller = { kind: "apikey", keyId: "key_1", organizationId: "org_1", platformId: "plt_1", permissions: [] } as const
      const seen = yield* RequestContext.RequestContext.pipe(
        RequestContext.withCaller(caller),
        RequestContext.provide,
        Effect.provideService(HttpServerRequest.HttpServerRequest, request({ "x-request-id": "req-7" }))
      )
      expect(seen).toEqual({ requestId: "req-7", caller, ip: null, userAgent: null })
    }))
})
