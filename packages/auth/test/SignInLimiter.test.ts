import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, TestClock } from "effect"
import { afterAll, beforeAll } from "vitest"
import { DEFAULT_LIMITS, delayOf, make } from "../src/accounts/SignInLimiter.js"
import { SharedState } from "../src/internal/SharedState.js"
import { freshEmail, type Harness, makeHarness, PASSWORD, signUp } from "./AccountsSupport.js"

/** Decision 0190: failed sign-ins keyed by account and address, slowed down before refused. */
describe("sign-in limits over HTTP", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ env: { CORE_TRUST_PROXY: "1" } })
  })
  afterAll(() => h.dispose())

  const signIn = (json: unknown, ip: string) =>
    h.fetch("/api/auth/sign-in/email", { json, headers: { "x-forwarded-for": ip, "user-agent": "vitest" } })

  it("a stranger's failures refuse only the stranger's address: 429 with Retry-After and RateLimit-*, another address signs in", async () => {
    const { email } = await signUp(h)
    const stranger = "192.0.2.66"
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await signIn({ email, password: "wrong password!" }, stranger)).status).toBe(401)
    }
    const limited = await signIn({ email, password: PASSWORD }, stranger)
    expect(limited.status).toBe(429)
    expect(await limited.json()).toEqual({ code: "RATE_LIMITED", message: "Too many failed sign-in attempts. Try again later." })
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(800)
    expect(retryAfter).toBeLessThanOrEqual(900)
    expect(limited.headers.get("ratelimit-limit")).toBe("5")
    expect(limited.headers.get("ratelimit-remaining")).toBe("0")
    expect(limited.headers.get("ratelimit-reset")).toBe(String(retryAfter))
    expect(limited.headers.get("set-cookie")).toBeNull()

    const owner = await signIn({ email, password: PASSWORD }, "198.51.100.23")
    expect(owner.status).toBe(200)
    expect(owner.headers.get("set-cookie")).toContain("core.session_token=")
    expect((await signIn({ email, password: PASSWORD }, stranger)).status).toBe(429)
  })

  it("parallel wrong attempts from one address get no more than the limit: 5 answered 401, the rest 429", async () => {
    const { email } = await signUp(h)
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => signIn({ email, password: "wrong password!" }, "192.0.2.77"))
    )
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429])
  })

  it("a right password gives the attempt back: a user who signs in often from one address is never refused", async () => {
    const { email } = await signUp(h)
    for (let attempt = 0; attempt < 25; attempt++) {
      expect((await signIn({ email, password: PASSWORD }, "192.0.2.88")).status).toBe(200)
    }
  })

  it("refuses an address spraying many accounts after 20 failures a minute, whatever the account", async () => {
    const ip = "192.0.2.99"
    for (let attempt = 0; attempt < 20; attempt++) {
      expect((await signIn({ email: freshEmail("spray"), password: "wrong password!" }, ip)).status).toBe(401)
    }
    const { email } = await signUp(h)
    const limited = await signIn({ email, password: PASSWORD }, ip)
    expect(limited.status).toBe(429)
    expect(limited.headers.get("ratelimit-limit")).toBe("20")
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60)
    expect((await signIn({ email, password: PASSWORD }, "192.0.2.100")).status).toBe(200)
  })
})

describe("the sign-in delay", () => {
  it("is nothing for the first failures, then 250 ms doubling, at most a second", () => {
    const delays = [0, 1, 2, 3, 4, 5, 30].map((failures) =>
      Duration.toMillis(delayOf(DEFAULT_LIMITS.delay, failures, DEFAULT_LIMITS.delay.afterAccountAndAddress)))
    expect(delays).toEqual([0, 0, 250, 500, 1000, 1000, 1000])
  })

  it.effect("holds the third attempt of an account from one address 250 ms, the fourth 500 ms, before its password is checked", () =>
    Effect.gen(function*() {
      const limiter = yield* make()
      const attempt = () => limiter.admit("ada@example.com", "192.0.2.1")
      yield* attempt()
      yield* attempt()
      const third = yield* Effect.fork(attempt())
      yield* TestClock.adjust(Duration.millis(249))
      expect(third.unsafePoll()).toBeNull()
      yield* TestClock.adjust(Duration.millis(1))
      expect(Duration.toMillis((yield* Fiber.join(third)).delay)).toBe(250)
      const fourth = yield* Effect.fork(attempt())
      yield* TestClock.adjust(Duration.millis(500))
      expect(Duration.toMillis((yield* Fiber.join(fourth)).delay)).toBe(500)
      const fromElsewhere = yield* limiter.admit("ada@example.com", "198.51.100.1")
      expect(Duration.toMillis(fromElsewhere.delay)).toBe(0)
    }).pipe(Effect.provide(SharedState.memory)))

  it.effect("slows an account down past 10 failures from every address, but never refuses it", () =>
    Effect.gen(function*() {
      const limiter = yield* make()
      for (let i = 0; i < 10; i++) yield* limiter.admit("bob@example.com", `192.0.2.${i}`)
      const eleventh = yield* Effect.fork(limiter.admit("bob@example.com", "192.0.2.200"))
      yield* TestClock.adjust(Duration.millis(250))
      expect(Either.isRight(yield* Effect.either(Fiber.join(eleventh)))).toBe(true)
      const many = yield* Effect.fork(Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
        Effect.either(limiter.admit("bob@example.com", `203.0.113.${i}`))))
      yield* TestClock.adjust(Duration.seconds(30))
      const outcomes = yield* Fiber.join(many)
      expect(outcomes.every(Either.isRight)).toBe(true)
    }).pipe(Effect.provide(SharedState.memory)))
})
