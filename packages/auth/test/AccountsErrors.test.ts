import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RateLimited, Unauthorized, ValidationError } from "@core/kernel"
import { Cause, Effect, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { AccountError } from "../src/accounts/AccountErrors.js"
import { handleCause } from "../src/accounts/BetterAuth.js"

const answer = async (cause: Cause.Cause<unknown>, url = "http://iam.test/api/auth/x") => {
  const logs: Array<string> = []
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) => logs.push(JSON.stringify({ message, annotations: [...annotations] })))
  )
  const response = await Effect.runPromise(handleCause(cause).pipe(
    Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request(url))),
    Effect.provide(logger)
  ))
  const web = HttpServerResponse.toWeb(response)
  return { status: web.status, headers: web.headers, body: await web.json(), logs }
}

describe("better-auth error bodies", () => {
  it("answers rule errors with their code, message and better-auth's status", async () => {
    const out = await answer(Cause.fail(AccountError.of("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL")))
    expect(out.status).toBe(422)
    expect(out.body).toEqual({ code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", message: "User already exists. Use another email." })
    expect(out.headers.get("cache-control")).toBe("no-store")
    expect(out.headers.get("x-request-id")).toEqual(expect.any(String))
    expect((await answer(Cause.fail(AccountError.of("INVALID_TOKEN", "unauthenticated")))).status).toBe(401)
  })

  it("answers kernel errors with the kernel's status, code and headers", async () => {
    const limited = await answer(Cause.fail(new RateLimited({
      message: "Too many",
      retryAfterSeconds: 42,
      limit: 5,
      remaining: 0,
      resetSeconds: 42
    })))
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ code: "RATE_LIMITED", message: "Too many" })
    expect(limited.headers.get("retry-after")).toBe("42")
    const unauthorized = await answer(Cause.fail(new Unauthorized({ message: "Unauthorized" })))
    expect(unauthorized).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED", message: "Unauthorized" } })
  })

  it("words validation errors as better-call does and lists the issues", async () => {
    const issues = [{ path: "email", message: "Invalid email address" }, { path: "", message: "Bad shape" }]
    const out = await answer(Cause.fail(new ValidationError({ message: "Invalid request query", issues })))
    expect(out.status).toBe(400)
    expect(out.body).toEqual({ code: "VALIDATION_ERROR", message: "[query.email] Invalid email address; [query] Bad shape", issues })
  })

  it("answers a defect 500 INTERNAL_SERVER_ERROR and logs the path without the query", async () => {
    const out = await answer(Cause.die(new Error("boom")), "http://iam.test/api/auth/magic-link/verify?token=s3cr3t-token")
    expect(out.status).toBe(500)
    expect(out.body).toEqual({ code: "INTERNAL_SERVER_ERROR", message: "Internal Server Error" })
    const logged = out.logs.join("\n")
    expect(logged).toContain("/api/auth/magic-link/verify")
    expect(logged).not.toContain("s3cr3t-token")
    expect(JSON.stringify(out.body)).not.toContain("boom")
  })
})
