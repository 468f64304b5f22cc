import { describe, expect, layer } from "@effect/vitest"
import { Clock, Duration, Effect, Option, TestClock } from "effect"
import { Accounts } from "../src/accounts/Accounts.js"
import { Sessions } from "../src/accounts/Sessions.js"
import { freshEmail, PASSWORD, stackLayer } from "./AccountsSupport.js"

const facts = { ip: "192.0.2.1", userAgent: "vitest", requestId: "req-1" }

const newUser = Effect.flatMap(Accounts, (accounts) =>
  accounts.signUp({ name: "Ada", email: freshEmail(), password: PASSWORD }, facts))

layer(stackLayer())("sessions over time", (it) => {
  describe("a remembered session", () => {
    it.effect("slides: used after a day it is pushed to 7 days from then; unused for 7 days it ends", () =>
      Effect.gen(function*() {
        const sessions = yield* Sessions
        const { token } = yield* newUser
        yield* TestClock.adjust(Duration.hours(12))
        const early = yield* sessions.resolve(token)
        expect(Option.map(early, (found) => found.refreshed)).toEqual(Option.some(false))

        yield* TestClock.adjust(Duration.hours(13))
        const slid = Option.getOrThrow(yield* sessions.resolve(token))
        expect(slid.refreshed).toBe(true)
        const now = yield* Clock.currentTimeMillis
        expect(slid.session.expiresAt.getTime()).toBe(now + Duration.toMillis(Duration.days(7)))

        yield* TestClock.adjust(Duration.days(6))
        expect(Option.isSome(yield* sessions.resolve(token))).toBe(true)
        yield* TestClock.adjust(Duration.days(7).pipe(Duration.sum(Duration.seconds(1))))
        expect(yield* sessions.resolve(token)).toEqual(Option.none())
      }))
  })

  describe("a session opened with rememberMe: false", () => {
    it.effect("lives one day and never slides", () =>
      Effect.gen(function*() {
        const sessions = yield* Sessions
        const { user } = yield* newUser
        const { token } = yield* sessions.create(user.id, { rememberMe: false, facts })
        yield* TestClock.adjust(Duration.hours(23))
        const found = Option.getOrThrow(yield* sessions.resolve(token))
        expect(found.refreshed).toBe(false)
        yield* TestClock.adjust(Duration.hours(2))
        expect(yield* sessions.resolve(token)).toEqual(Option.none())
      }))
  })
})
