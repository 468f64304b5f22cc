import { describe, expect } from "vitest"
import { Clock, Duration, Effect, TestClock } from "effect"
import { ApiKeys } from "../src/authorization/ApiKeys.js"
import { DeviceAuthorization } from "../src/device/DeviceAuthorization.js"
import { Sessions } from "../src/accounts/Sessions.js"
import { CLIENT_ID, facts, newUser, seedOrganization, send, STATIC_KEY, useHarness } from "./OAuthHttpSupport.js"

const whoami = (headers: Record<string, string> = {}) => send("/api/v1/cli/whoami", { method: "POST", headers })

const unauthorized = (message: string) => ({ error: { code: "UNAUTHORIZED", message, requestId: expect.any(String) } })

/** A member of a new organization, with a session opened after joining (so it is their active tenant). */
const member = (role: "owner" | "admin" | "member") =>
  Effect.gen(function*() {
    const user = yield* newUser("whoami")
    const org = yield* seedOrganization({ userId: user.id, role })
    const opened = yield* Effect.flatMap(Sessions, (s) => s.create(user.id, { facts }))
    return { ...user, org, token: opened.token, expiresAt: opened.session.expiresAt.toISOString() }
  })

describe("POST /api/v1/cli/whoami", () => {
  const it = useHarness()

  describe("a session token", () => {
    it.effect("answers the email, the tenant's platform, the role there and the session's expiry", () =>
      Effect.gen(function*() {
        const owner = yield* member("owner")
        const answer = yield* whoami({ authorization: `Bearer ${owner.token}` })
        expect([answer.status, answer.body]).toEqual([200, {
          email: owner.email,
          platformId: owner.org.platformId,
          role: "owner",
          expiresAt: owner.expiresAt
        }])
        expect(answer.headers.get("cache-control")).toBe("no-store")
        const plain = yield* member("member")
        expect((yield* whoami({ authorization: `Bearer ${plain.token}` })).body.role).toBe("member")
      }))

    it.effect("a user without an organization: no platform, role user", () =>
      Effect.gen(function*() {
        const user = yield* newUser("lonely")
        const answer = yield* whoami({ authorization: `Bearer ${user.token}` })
        expect(answer.body).toEqual({ email: user.email, platformId: null, role: "user", expiresAt: expect.any(String) })
      }))

    it.effect("the access token of a device login answers its one-hour expiry, and nothing once it ends", () =>
      Effect.gen(function*() {
        const owner = yield* member("admin")
        const service = yield* DeviceAuthorization
        const { deviceCode, userCode } = yield* service.start({ clientId: CLIENT_ID, scope: null })
        yield* service.approve({ kind: "user", userId: owner.id, sessionId: "ses", email: owner.email, organizationId: null, via: "bearer" }, userCode, facts)
        const grant = yield* service.poll({ deviceCode, clientId: CLIENT_ID }, facts)
        const answer = yield* whoami({ authorization: `Bearer ${grant.accessToken}` })
        expect(answer.body).toEqual({
          email: owner.email,
          platformId: owner.org.platformId,
          role: "admin",
          expiresAt: new Date((yield* Clock.currentTimeMillis) + 3_600_000).toISOString()
        })
        yield* TestClock.adjust(Duration.hours(1))
        const ended = yield* whoami({ authorization: `Bearer ${grant.accessToken}` })
        expect([ended.status, ended.body]).toEqual([401, unauthorized("Invalid or expired credentials")])
      }))
  })

  describe("an API key", () => {
    it.effect("as x-api-key or as the bearer: its creator's email, its platform, role apikey, its expiry", () =>
      Effect.gen(function*() {
        const owner = yield* member("owner")
        const keys = yield* ApiKeys
        const caller = { kind: "user" as const, userId: owner.id, sessionId: "ses", email: owner.email, organizationId: owner.org.id, via: "bearer" as const }
        const created = yield* keys.create(caller, { organizationId: owner.org.id, name: "ci" })
        const expected = { email: owner.email, platformId: owner.org.platformId, role: "apikey", expiresAt: null }
        expect((yield* whoami({ "x-api-key": created.key })).body).toEqual(expected)
        expect((yield* whoami({ authorization: `Bearer ${created.key}` })).body).toEqual(expected)

        const dated = yield* keys.create(caller, { organizationId: owner.org.id, expiresAt: "2999-01-01T00:00:00.000Z" })
        expect((yield* whoami({ "x-api-key": dated.key })).body.expiresAt).toBe("2999-01-01T00:00:00.000Z")

        const byService = yield* keys.create({ kind: "service" }, { organizationId: owner.org.id, name: "deploy-bot" })
        expect((yield* whoami({ "x-api-key": byService.key })).body.email).toBe("deploy-bot")

        yield* keys.revoke(caller, created.id)
        const revoked = yield* whoami({ "x-api-key": created.key })
        expect([revoked.status, revoked.body]).toEqual([401, unauthorized("Invalid or expired credentials")])
      }))
  })

  describe("failures", () => {
    it.effect("answer the envelope without details: no credentials, unknown tokens and keys, the static key", () =>
      Effect.gen(function*() {
        const none = yield* whoami()
        expect([none.status, none.body]).toEqual([401, unauthorized("Authentication required")])
        expect(Object.keys(none.body.error)).toEqual(["code", "message", "requestId"])
        expect(none.headers.get("x-request-id")).toBe(none.body.error.requestId)
        const refused: Array<Record<string, string>> = [
          { authorization: "Bearer not-a-token" },
          { authorization: `Bearer core_${"A".repeat(43)}` },
          { "x-api-key": "core_short" },
          { "x-api-key": "not-a-key" },
          { authorization: `Bearer ${STATIC_KEY}` }
        ]
        for (const headers of refused) {
          const answer = yield* whoami(headers)
          expect([answer.status, answer.body]).toEqual([401, unauthorized("Invalid or expired credentials")])
        }
        const traced = yield* whoami({ "x-request-id": "req-whoami-1" })
        expect(traced.body.error.requestId).toBe("req-whoami-1")
      }))
  })
})
