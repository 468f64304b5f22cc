import { describe, expect, layer } from "@effect/vitest"
import { Crypto } from "@core/kernel"
import { Duration, Effect, Either, Option, TestClock } from "effect"
import type { UserCaller } from "@core/kernel"
import { DeviceAuthorization } from "../src/device/DeviceAuthorization.js"
import { REFRESH_REUSE_GRACE, RefreshTokens } from "../src/device/RefreshTokens.js"
import { Sessions } from "../src/accounts/Sessions.js"
import { auditOf, CLIENT_ID, facts, newUser, refreshRow, rows, sessionRow, stackLayer } from "./OAuthHttpSupport.js"

/** A user who logged in on a device: the first token pair of a new family. */
const deviceLogin = Effect.gen(function*() {
  const user = yield* newUser("refresh")
  const service = yield* DeviceAuthorization
  const { deviceCode, userCode } = yield* service.start({ clientId: CLIENT_ID, scope: null })
  const caller: UserCaller = { kind: "user", userId: user.id, sessionId: "ses_web", email: user.email, organizationId: null, via: "bearer" }
  yield* service.approve(caller, userCode, facts)
  const grant = yield* service.poll({ deviceCode, clientId: CLIENT_ID }, facts)
  return { user, grant }
})

const refresh = (refreshToken: string, clientId = CLIENT_ID) =>
  Effect.flatMap(RefreshTokens, (service) => Effect.either(service.refresh({ refreshToken, clientId }, facts)))

const live = (token: string) => Effect.map(Effect.flatMap(Sessions, (s) => s.resolve(token)), Option.isSome)

const errorOf = <A, E extends { readonly error: string }>(result: Either.Either<A, E>) =>
  Either.isLeft(result) ? result.left.error : "succeeded"

const familyRows = (familyId: string) =>
  Effect.all({
    tokens: rows<{ status: string }>((sql) => sql`SELECT status FROM iam.refresh_tokens WHERE family_id = ${familyId} ORDER BY created_at, id`),
    sessions: rows<{ revoked: boolean }>((sql) =>
      sql`SELECT revoked_at IS NOT NULL AS revoked FROM iam.sessions WHERE refresh_family_id = ${familyId} ORDER BY created_at, id`)
  })

layer(stackLayer())("refresh tokens", (it) => {
  describe("rotation", () => {
    it.effect("each refresh makes a new one-hour session and a new 30-day token in the family, and ends the previous session", () =>
      Effect.gen(function*() {
        const { user, grant } = yield* deviceLogin
        yield* TestClock.adjust(Duration.minutes(30))
        const next = Either.getOrThrow(yield* refresh(grant.refreshToken))
        expect(next).toMatchObject({ familyId: grant.familyId, userId: user.id, expiresIn: 3600, scope: null })
        expect(next.accessToken).not.toBe(grant.accessToken)
        expect(next.refreshToken).not.toBe(grant.refreshToken)
        expect(next.sessionId).not.toBe(grant.sessionId)

        expect(yield* live(grant.accessToken)).toBe(false)
        expect(yield* live(next.accessToken)).toBe(true)
        const session = yield* sessionRow(next.accessToken)
        expect(session).toMatchObject({ kind: "device", sliding: false, refresh_family_id: grant.familyId, revoked_at: null })
        expect(new Date(session.expires_at).getTime() - new Date(session.created_at).getTime()).toBe(3_600_000)
        expect(yield* refreshRow(grant.refreshToken)).toMatchObject({ status: "used", used_at: expect.anything() })
        const token = yield* refreshRow(next.refreshToken)
        expect(token).toMatchObject({ status: "active", family_id: grant.familyId, session_id: next.sessionId })
        expect(new Date(token.expires_at).getTime() - new Date(token.created_at).getTime()).toBe(Duration.toMillis(Duration.days(30)))

        expect(yield* auditOf("oauth.refresh", next.sessionId)).toEqual([expect.objectContaining({
          actorId: user.id,
          actorType: "user",
          outcome: "success",
          metadata: { clientId: CLIENT_ID, familyId: grant.familyId, previousSessionId: grant.sessionId }
        })])
      }))

    it.effect("the access token lasts one hour and never slides; an expired one is renewed by its refresh token", () =>
      Effect.gen(function*() {
        const { grant } = yield* deviceLogin
        yield* TestClock.adjust(Duration.minutes(59))
        expect(yield* live(grant.accessToken)).toBe(true)
        yield* TestClock.adjust(Duration.minutes(1))
        expect(yield* live(grant.accessToken)).toBe(false)
        const next = Either.getOrThrow(yield* refresh(grant.refreshToken))
        expect(yield* live(next.accessToken)).toBe(true)
      }))
  })

  describe("reuse (RFC 9700)", () => {
    it.effect("a used refresh token revokes the whole family: old and new sessions and every token", () =>
      Effect.gen(function*() {
        const { user, grant } = yield* deviceLogin
        const second = Either.getOrThrow(yield* refresh(grant.refreshToken))
        const third = Either.getOrThrow(yield* refresh(second.refreshToken))
        expect(yield* live(third.accessToken)).toBe(true)

        expect(errorOf(yield* refresh(grant.refreshToken))).toBe("invalid_grant")
        expect(yield* live(third.accessToken)).toBe(false)
        expect(yield* familyRows(grant.familyId)).toEqual({
          tokens: [{ status: "revoked" }, { status: "revoked" }, { status: "revoked" }],
          sessions: [{ revoked: true }, { revoked: true }, { revoked: true }]
        })
        expect(errorOf(yield* refresh(third.refreshToken))).toBe("invalid_grant")
        const revoked = yield* auditOf("oauth.refresh_family.revoke", grant.familyId)
        expect(revoked).toEqual([expect.objectContaining({
          actorType: "system",
          targetType: "refresh_family",
          metadata: expect.objectContaining({ reason: "reuse", userId: user.id, sessionIds: [third.sessionId] })
        })])
        expect(JSON.stringify(revoked)).not.toContain(grant.refreshToken)
      }))

    it.effect("within the grace window a spent token answers the same new tokens while they are unspent; then it is reuse", () =>
      Effect.gen(function*() {
        const { user, grant } = yield* deviceLogin
        const next = Either.getOrThrow(yield* refresh(grant.refreshToken))
        yield* TestClock.adjust(REFRESH_REUSE_GRACE)
        const again = Either.getOrThrow(yield* refresh(grant.refreshToken))
        expect(again).toEqual({ ...next, expiresIn: 3600 - Duration.toSeconds(REFRESH_REUSE_GRACE) })
        expect(yield* live(next.accessToken)).toBe(true)
        expect(yield* familyRows(grant.familyId)).toEqual({
          tokens: [{ status: "used" }, { status: "active" }],
          sessions: [{ revoked: true }, { revoked: false }]
        })
        expect(yield* auditOf("oauth.refresh.replay", next.sessionId)).toEqual([expect.objectContaining({
          actorId: user.id,
          metadata: { clientId: CLIENT_ID, familyId: grant.familyId, refreshTokenId: expect.stringMatching(/^rft_/) }
        })])

        yield* TestClock.adjust(Duration.millis(1))
        expect(errorOf(yield* refresh(grant.refreshToken))).toBe("invalid_grant")
        expect(yield* live(next.accessToken)).toBe(false)
        expect((yield* familyRows(grant.familyId)).tokens).toEqual([{ status: "revoked" }, { status: "revoked" }])
      }))

    it.effect("signing the device session out ends its refresh token and family", () =>
      Effect.gen(function*() {
        const { user, grant } = yield* deviceLogin
        yield* Effect.flatMap(Sessions, (s) => s.signOut(user.id, grant.sessionId, facts))
        expect(errorOf(yield* refresh(grant.refreshToken))).toBe("invalid_grant")
        expect((yield* refreshRow(grant.refreshToken)).status).toBe("revoked")
        expect((yield* auditOf("oauth.refresh_family.revoke", grant.familyId))[0].metadata.reason).toBe("session_ended")
      }))
  })

  describe("refusals", () => {
    it.effect("unknown, tampered, expired and foreign-client tokens answer invalid_grant and change nothing", () =>
      Effect.gen(function*() {
        const { grant } = yield* deviceLogin
        expect(errorOf(yield* refresh(Crypto.randomToken(32)))).toBe("invalid_grant")
        expect(errorOf(yield* refresh(`${grant.refreshToken.slice(0, -2)}AA`))).toBe("invalid_grant")
        expect(errorOf(yield* refresh(grant.refreshToken, "another-client"))).toBe("invalid_grant")
        expect((yield* refreshRow(grant.refreshToken)).status).toBe("active")

        yield* TestClock.adjust(Duration.days(30))
        expect(errorOf(yield* refresh(grant.refreshToken))).toBe("invalid_grant")
        expect((yield* refreshRow(grant.refreshToken)).status).toBe("active")
      }))

    it.effect("a token just short of 30 days still rotates", () =>
      Effect.gen(function*() {
        const { grant } = yield* deviceLogin
        yield* TestClock.adjust(Duration.days(30).pipe(Duration.subtract(Duration.seconds(1))))
        expect(Either.isRight(yield* refresh(grant.refreshToken))).toBe(true)
      }))
  })
})
