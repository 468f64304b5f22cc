import { Duration, Effect, TestClock } from "effect"
import { describe, expect } from "vitest"
import { REFRESH_REUSE_GRACE } from "../src/device/RefreshTokens.js"
import { auditOf, CLIENT_ID, DEVICE_GRANT, newUser, oauthError, refreshRow, rows, send, useHarness } from "./OAuthHttpSupport.js"

/** A device login over HTTP: the first token response of a new family. */
const deviceLogin = Effect.gen(function*() {
  const user = yield* newUser("concurrent")
  const code = (yield* send("/oauth/device/code", { form: { client_id: CLIENT_ID } })).body
  yield* send("/oauth/device/authorize", { token: user.token, json: { user_code: code.user_code } })
  yield* TestClock.adjust(Duration.seconds(5))
  const granted = yield* send("/oauth/device/token", { form: { grant_type: DEVICE_GRANT, device_code: code.device_code, client_id: CLIENT_ID } })
  expect(granted.status).toBe(200)
  return { user, tokens: granted.body as { access_token: string; refresh_token: string } }
})

const refresh = (refreshToken: string) =>
  send("/oauth/token", { form: { grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID } })

const familyOf = (refreshToken: string) =>
  Effect.flatMap(refreshRow(refreshToken), (row) =>
    rows<{ status: string }>((sql) => sql`SELECT status FROM iam.refresh_tokens WHERE family_id = ${row.family_id} ORDER BY created_at, id`))

describe("refresh tokens under concurrency (on PostgreSQL when CORE_TEST_DATABASE_URL is set)", () => {
  const it = useHarness()

  it.effect("ten concurrent refreshes with one token all answer the same new tokens; the user stays signed in", () =>
    Effect.gen(function*() {
      const { user, tokens } = yield* deviceLogin
      const answers = yield* Effect.all(Array.from({ length: 10 }, () => refresh(tokens.refresh_token)), { concurrency: "unbounded" })
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200))
      const [first] = answers
      for (const answer of answers) {
        expect(answer.body).toEqual({
          access_token: first.body.access_token,
          token_type: "bearer",
          expires_in: 3600,
          refresh_token: first.body.refresh_token
        })
      }
      expect(first.body.access_token).not.toBe(tokens.access_token)
      const session = yield* send("/api/core/session", { token: first.body.access_token })
      expect([session.status, session.body.user.id]).toEqual([200, user.id])
      expect(yield* familyOf(tokens.refresh_token)).toEqual([{ status: "used" }, { status: "active" }])
      expect(yield* auditOf("oauth.refresh_family.revoke")).not.toContainEqual(expect.objectContaining({ metadata: expect.objectContaining({ userId: user.id }) }))

      const next = yield* refresh(first.body.refresh_token)
      expect(next.status).toBe(200)
      expect((yield* send("/api/core/session", { token: next.body.access_token })).status).toBe(200)
    }))

  it.effect("the old token presented after the grace window revokes the family: the new tokens stop working", () =>
    Effect.gen(function*() {
      const { tokens } = yield* deviceLogin
      const rotated = yield* refresh(tokens.refresh_token)
      expect(rotated.status).toBe(200)
      yield* TestClock.adjust(Duration.sum(REFRESH_REUSE_GRACE, Duration.millis(1)))
      const late = yield* refresh(tokens.refresh_token)
      expect([late.status, late.body]).toEqual([400, oauthError("invalid_grant", "The refresh token was already used; every session of its login is revoked")])
      expect((yield* send("/api/core/session", { token: rotated.body.access_token })).status).toBe(401)
      expect(yield* familyOf(tokens.refresh_token)).toEqual([{ status: "revoked" }, { status: "revoked" }])
      expect((yield* refresh(rotated.body.refresh_token)).status).toBe(400)
    }))
})
