import { describe, expect, it, layer } from "@effect/vitest"
import { Crypto } from "@core/kernel"
import { Duration, Effect, Either, Option, TestClock } from "effect"
import type { UserCaller } from "@core/kernel"
import { DeviceAuthorization, formatUserCode, normalizeUserCode } from "../src/device/DeviceAuthorization.js"
import type { OAuthError } from "../src/device/OAuthErrors.js"
import { statusOf } from "../src/device/OAuthProtocol.js"
import { Sessions } from "../src/accounts/Sessions.js"
import { auditOf, CLIENT_ID, deviceRow, facts, newUser, refreshRow, sessionRow, stackLayer } from "./OAuthHttpSupport.js"

const device = Effect.flatMap(DeviceAuthorization, (service) => service.start({ clientId: CLIENT_ID, scope: null }))

const poll = (deviceCode: string, clientId = CLIENT_ID) =>
  Effect.flatMap(DeviceAuthorization, (service) => Effect.either(service.poll({ deviceCode, clientId }, facts)))

const errorOf = <A>(result: Either.Either<A, OAuthError>) =>
  Either.isLeft(result) ? { error: result.left.error, status: statusOf(result.left) } : "succeeded"

const callerOf = (user: { readonly id: string; readonly email: string }, sessionId = "ses_web"): UserCaller => ({
  kind: "user",
  userId: user.id,
  sessionId,
  email: user.email,
  organizationId: null,
  via: "bearer"
})

const approve = (
  user: { readonly id: string; readonly email: string },
  userCode: string,
  ip: string | null = facts.ip,
  sessionId = "ses_web"
) => Effect.flatMap(DeviceAuthorization, (service) => Effect.either(service.approve(callerOf(user, sessionId), userCode, { ...facts, ip })))

const lookup = (userCode: string, who: { readonly ip: string | null; readonly sessionId: string | null }) =>
  Effect.flatMap(DeviceAuthorization, (service) => Effect.either(service.lookup(userCode, who)))

const deny = (user: { readonly id: string; readonly email: string }, userCode: string) =>
  Effect.flatMap(DeviceAuthorization, (service) => Effect.either(service.deny(callerOf(user), userCode, facts)))

describe("user codes", () => {
  it("normalize case, dashes and spaces; anything outside the base-20 alphabet or of another length is refused", () => {
    expect(normalizeUserCode("bcdf-ghjk")).toBe("BCDFGHJK")
    expect(normalizeUserCode(" BCDF ghjk ")).toBe("BCDFGHJK")
    expect(normalizeUserCode("BC-DF-GH-JK")).toBe("BCDFGHJK")
    expect(normalizeUserCode("BCDF-GHJA")).toBeUndefined()
    expect(normalizeUserCode("BCDF-GHJ")).toBeUndefined()
    expect(normalizeUserCode("BCDF-GHJKL")).toBeUndefined()
    expect(normalizeUserCode("")).toBeUndefined()
    expect(formatUserCode("BCDFGHJK")).toBe("BCDF-GHJK")
  })
})

layer(stackLayer())("device authorization", (it) => {
  describe("issuing", () => {
    it.effect("issues a 32-byte device code stored as its hash and an XXXX-XXXX user code, 10 minutes, 5 seconds", () =>
      Effect.gen(function*() {
        const issued = yield* device
        expect(issued).toEqual({
          deviceCode: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          userCode: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
          expiresIn: 600,
          interval: 5,
          scope: null
        })
        const row = yield* deviceRow(issued.deviceCode)
        expect(row).toMatchObject({
          id: expect.stringMatching(/^dvc_/),
          device_code_hash: Crypto.sha256Hex(issued.deviceCode),
          user_code: issued.userCode.replace("-", ""),
          client_id: CLIENT_ID,
          status: "pending",
          user_id: null,
          session_id: null,
          interval_seconds: 5,
          last_polled_at: null
        })
        expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(600_000)
      }))

    it.effect("refuses any client but core-cli with invalid_client", () =>
      Effect.gen(function*() {
        const refused = yield* Effect.either(
          Effect.flatMap(DeviceAuthorization, (service) => service.start({ clientId: "other", scope: null }))
        )
        expect(errorOf(refused)).toEqual({ error: "invalid_client", status: 401 })
      }))
  })

  describe("the state table", () => {
    it.effect("waiting: authorization_pending; too fast: slow_down and the interval grows by 5 s, stored", () =>
      Effect.gen(function*() {
        const { deviceCode } = yield* device
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "authorization_pending", status: 400 })
        yield* TestClock.adjust(Duration.seconds(4))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "slow_down", status: 400 })
        expect((yield* deviceRow(deviceCode)).interval_seconds).toBe(10)
        yield* TestClock.adjust(Duration.seconds(10))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "authorization_pending", status: 400 })
        yield* TestClock.adjust(Duration.seconds(9))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "slow_down", status: 400 })
        expect((yield* deviceRow(deviceCode)).interval_seconds).toBe(15)
        yield* TestClock.adjust(Duration.seconds(15))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "authorization_pending", status: 400 })
        expect((yield* deviceRow(deviceCode)).interval_seconds).toBe(15)
      }))

    it.effect("approve: the next poll answers a one-hour device session and a refresh token, exactly once", () =>
      Effect.gen(function*() {
        const user = yield* newUser()
        const { deviceCode, userCode } = yield* device
        expect(yield* approve(user, userCode)).toEqual(Either.right(expect.objectContaining({ clientId: CLIENT_ID, userCode })))
        const row = yield* deviceRow(deviceCode)
        expect(row).toMatchObject({ status: "approved", user_id: user.id })
        yield* TestClock.adjust(Duration.seconds(5))
        const granted = Either.getOrThrow(yield* poll(deviceCode))
        expect(granted).toMatchObject({ expiresIn: 3600, scope: null, userId: user.id })
        expect(granted.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(granted.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/)

        const session = yield* sessionRow(granted.accessToken)
        expect(session).toMatchObject({ id: granted.sessionId, user_id: user.id, kind: "device", sliding: false, refresh_family_id: granted.familyId })
        expect(new Date(session.expires_at).getTime() - new Date(session.created_at).getTime()).toBe(3_600_000)
        expect(yield* refreshRow(granted.refreshToken)).toMatchObject({
          family_id: granted.familyId,
          session_id: granted.sessionId,
          user_id: user.id,
          client_id: CLIENT_ID,
          status: "active"
        })
        expect(yield* deviceRow(deviceCode)).toMatchObject({ status: "consumed", session_id: granted.sessionId })
        expect(Option.isSome(yield* Effect.flatMap(Sessions, (s) => s.resolve(granted.accessToken)))).toBe(true)

        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "invalid_grant", status: 400 })
        yield* TestClock.adjust(Duration.minutes(20))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "invalid_grant", status: 400 })

        const issued = yield* auditOf("oauth.token", granted.sessionId)
        expect(issued).toEqual([expect.objectContaining({
          actorId: user.id,
          actorType: "user",
          outcome: "success",
          targetType: "session",
          metadata: { grantType: "urn:ietf:params:oauth:grant-type:device_code", clientId: CLIENT_ID, deviceCodeId: row.id, familyId: granted.familyId }
        })])
        const approved = yield* auditOf("device.approve", row.id)
        expect(approved).toEqual([expect.objectContaining({ actorId: user.id, outcome: "success", ip: facts.ip, metadata: { clientId: CLIENT_ID, scope: null } })])
        expect(JSON.stringify([...issued, ...approved])).not.toContain(deviceCode)
        expect(JSON.stringify([...issued, ...approved])).not.toContain(userCode.replace("-", ""))
      }))

    it.effect("expire: after 10 minutes the poll answers expired_token, and the code can no longer be approved", () =>
      Effect.gen(function*() {
        const user = yield* newUser()
        const { deviceCode, userCode } = yield* device
        yield* TestClock.adjust(Duration.minutes(10).pipe(Duration.subtract(Duration.millis(1))))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "authorization_pending", status: 400 })
        yield* TestClock.adjust(Duration.millis(1))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "expired_token", status: 400 })
        expect(errorOf(yield* approve(user, userCode))).toEqual({ error: "expired_token", status: 400 })
        expect((yield* deviceRow(deviceCode)).status).toBe("pending")
        const failed = (yield* auditOf("device.approve")).filter((row) => row.actorId === user.id)
        expect(failed).toHaveLength(1)
        expect(failed[0]).toMatchObject({ actorId: user.id, outcome: "failure", metadata: { reason: "expired_token" } })
      }))

    it.effect("an approved code not exchanged within its life answers expired_token", () =>
      Effect.gen(function*() {
        const user = yield* newUser()
        const { deviceCode, userCode } = yield* device
        yield* approve(user, userCode)
        yield* TestClock.adjust(Duration.minutes(11))
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "expired_token", status: 400 })
      }))

    it.effect("deny: the poll answers access_denied; the code can no longer be approved", () =>
      Effect.gen(function*() {
        const user = yield* newUser()
        const { deviceCode, userCode } = yield* device
        expect(Either.isRight(yield* deny(user, userCode))).toBe(true)
        expect(yield* deviceRow(deviceCode)).toMatchObject({ status: "denied", user_id: user.id })
        expect(errorOf(yield* poll(deviceCode))).toEqual({ error: "access_denied", status: 400 })
        expect(errorOf(yield* approve(user, userCode))).toEqual({ error: "invalid_grant", status: 400 })
        expect(errorOf(yield* deny(user, userCode))).toEqual({ error: "invalid_grant", status: 400 })
        const row = yield* deviceRow(deviceCode)
        expect(yield* auditOf("device.deny", row.id)).toEqual([
          expect.objectContaining({ actorId: user.id, outcome: "success", metadata: { clientId: CLIENT_ID, scope: null } })
        ])
      }))

    it.effect("an unknown device code, or one presented by another client, is refused", () =>
      Effect.gen(function*() {
        const { deviceCode } = yield* device
        expect(errorOf(yield* poll(Crypto.randomToken(32)))).toEqual({ error: "invalid_grant", status: 400 })
        expect(errorOf(yield* poll(`${deviceCode.slice(0, -1)}x`))).toEqual({ error: "invalid_grant", status: 400 })
        expect(errorOf(yield* poll(deviceCode, "another-client"))).toEqual({ error: "invalid_client", status: 401 })
      }))
  })

  describe("code entry", () => {
    it.effect("accepts the code in any case, with or without the dash or spaces", () =>
      Effect.gen(function*() {
        const user = yield* newUser()
        const { deviceCode, userCode } = yield* device
        const typed = ` ${userCode.toLowerCase().replace("-", " ")} `
        expect(Either.isRight(yield* approve(user, typed, "192.0.2.50"))).toBe(true)
        expect((yield* deviceRow(deviceCode)).status).toBe("approved")
      }))

    it.effect("after 10 wrong codes in a minute, every entry of that session answers 429 slow_down until the minute ends", () =>
      Effect.gen(function*() {
        const guesser = yield* newUser()
        const { deviceCode, userCode } = yield* device
        const ip = "198.51.100.7"
        for (let i = 0; i < 10; i++) {
          const wrong = yield* approve(guesser, i % 2 === 0 ? "BBBB-BBBB" : "not a code", ip, "ses_guesser")
          expect(errorOf(wrong)).toEqual({ error: "invalid_grant", status: 400 })
        }
        const limited = yield* approve(guesser, userCode, "203.0.113.9", "ses_guesser")
        expect(errorOf(limited)).toEqual({ error: "slow_down", status: 429 })
        expect(Either.isLeft(limited) && limited.left.retryAfterSeconds).toBe(60)
        expect((yield* deviceRow(deviceCode)).status).toBe("pending")
        yield* TestClock.adjust(Duration.minutes(1))
        expect(Either.isRight(yield* approve(guesser, userCode, ip, "ses_guesser"))).toBe(true)
      }))

    it.effect("one person's wrong codes do not stop another person's right code from the same address (decision 0191)", () =>
      Effect.gen(function*() {
        const guesser = yield* newUser()
        const owner = yield* newUser()
        const { deviceCode, userCode } = yield* device
        const ip = "198.51.100.8"
        for (let i = 0; i < 10; i++) yield* approve(guesser, "BBBB-BBBB", ip, "ses_x")
        expect(errorOf(yield* approve(guesser, "BBBB-BBBB", ip, "ses_x"))).toEqual({ error: "slow_down", status: 429 })
        expect(Either.isRight(yield* approve(owner, userCode, ip, "ses_y"))).toBe(true)
        expect((yield* deviceRow(deviceCode))).toMatchObject({ status: "approved", user_id: owner.id })
      }))

    it.effect("right codes never count: a session may look a valid code up again and again", () =>
      Effect.gen(function*() {
        const { userCode } = yield* device
        for (let i = 0; i < 25; i++) {
          expect(Either.isRight(yield* lookup(userCode, { ip: "198.51.100.9", sessionId: "ses_lookup" }))).toBe(true)
        }
      }))

    it.effect("an address is refused after 30 wrong codes a minute, whatever the session; another address is not", () =>
      Effect.gen(function*() {
        const { userCode } = yield* device
        const ip = "198.51.100.10"
        for (let i = 0; i < 30; i++) {
          const wrong = yield* lookup("BBBB-BBBB", { ip, sessionId: `ses_many_${Math.floor(i / 5)}` })
          expect(errorOf(wrong)).toEqual({ error: "invalid_grant", status: 400 })
        }
        expect(errorOf(yield* lookup(userCode, { ip, sessionId: "ses_fresh" }))).toEqual({ error: "slow_down", status: 429 })
        expect(Either.isRight(yield* lookup(userCode, { ip: "198.51.100.11", sessionId: "ses_fresh" }))).toBe(true)
      }))

    it.effect("parallel wrong codes from one session get no more than the limit", () =>
      Effect.gen(function*() {
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 15 }, (_, i) => i),
          () => lookup("BBBB-BBBB", { ip: "198.51.100.12", sessionId: "ses_parallel" }),
          { concurrency: "unbounded" }
        )
        const errors = outcomes.map((outcome) => errorOf(outcome))
        expect(errors.filter((error) => typeof error === "object" && error.error === "invalid_grant")).toHaveLength(10)
        expect(errors.filter((error) => typeof error === "object" && error.error === "slow_down")).toHaveLength(5)
      }))
  })
})
