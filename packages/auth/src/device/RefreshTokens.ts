import { Crypto, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Option } from "effect"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import { OAuthError } from "./OAuthErrors.js"
import { type RefreshTokenRecord, RefreshTokensRepo } from "./RefreshTokensRepo.js"
import { SessionCache } from "../accounts/SessionCache.js"
import { Sessions } from "../accounts/Sessions.js"

/** How long the access token of a device login lives: a one-hour session that never slides. */
export const ACCESS_TOKEN_TTL = Duration.hours(1)
/** How long each refresh token lives; every refresh issues a new one. */
export const REFRESH_TOKEN_TTL = Duration.days(30)

/** Tokens just issued: shown once, to the client that asked. */
export interface TokenGrant {
  /** The session token, used as a bearer. */
  readonly accessToken: string
  readonly refreshToken: string
  /** Seconds the access token lives. */
  readonly expiresIn: number
  readonly scope: string | null
  readonly sessionId: string
  readonly familyId: string
  readonly userId: string
}

/** What a grant is issued for. */
export interface GrantFor {
  readonly userId: string
  readonly clientId: string
  readonly scope: string | null
  /** The family the tokens join; a new one when absent. */
  readonly familyId?: string
}

type Rotation = { readonly _tag: "Rotated"; readonly grant: TokenGrant } | { readonly _tag: "Reused" }
const reused: Rotation = { _tag: "Reused" }

/**
 * Rotating refresh tokens (RFC 9700 §4.14.2). Each device login opens a family; each refresh spends
 * its token, ends the session it came with and issues a new session and token in the same family.
 * A spent token presented again — or one whose session its user ended — revokes the whole family.
 */
export class RefreshTokens extends Effect.Service<RefreshTokens>()("@core/auth/RefreshTokens", {
  effect: Effect.gen(function*() {
    const repo = yield* RefreshTokensRepo
    const sessions = yield* Sessions
    const ids = yield* Ids.Ids
    const audit = yield* AuditLog
    const sql = yield* SqlClient.SqlClient
    const cache = yield* SessionCache
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** A one-hour device session and a 30-day refresh token for a user (run inside the caller's transaction). */
    const issue = Effect.fn("RefreshTokens.issue")(
      function*(grant: GrantFor, facts: AuditRequestFacts) {
        const at = yield* now
        const familyId = grant.familyId ?? (yield* ids.make("fam"))
        const opened = yield* sessions.create(grant.userId, { device: { refreshFamilyId: familyId, ttl: ACCESS_TOKEN_TTL }, facts })
        const refreshToken = Crypto.randomToken(32)
        yield* repo.insert({
          id: yield* ids.make("rft"),
          tokenHash: Crypto.sha256Hex(refreshToken),
          familyId,
          sessionId: opened.session.id,
          userId: grant.userId,
          clientId: grant.clientId,
          scope: grant.scope,
          expiresAt: new Date(at.getTime() + Duration.toMillis(REFRESH_TOKEN_TTL)),
          now: at
        })
        return {
          accessToken: opened.token,
          refreshToken,
          expiresIn: Math.round(Duration.toSeconds(ACCESS_TOKEN_TTL)),
          scope: grant.scope,
          sessionId: opened.session.id,
          familyId,
          userId: grant.userId
        } satisfies TokenGrant
      }
    )

    /** Revoke every token and session of a family, and record why. */
    const revokeFamily = Effect.fn("RefreshTokens.revokeFamily")(
      function*(token: RefreshTokenRecord, reason: "reuse" | "session_ended", facts: AuditRequestFacts) {
        const ended = yield* repo.revokeFamily(token.familyId, yield* now)
        yield* audit.record({
          action: "oauth.refresh_family.revoke",
          actorType: "system",
          targetType: "refresh_family",
          targetId: token.familyId,
          metadata: { reason, userId: token.userId, refreshTokenId: token.id, sessionIds: ended }
        }, facts)
      },
      sql.withTransaction,
      Effect.orDie,
      Effect.zipLeft(cache.clear)
    )

    const rotate = (token: RefreshTokenRecord, facts: AuditRequestFacts) =>
      Effect.gen(function*() {
        if (!(yield* repo.markUsed(token.id, yield* now))) return reused
        yield* repo.endSession(token.sessionId, yield* now)
        const grant = yield* issue({ userId: token.userId, clientId: token.clientId, scope: token.scope, familyId: token.familyId }, facts)
        yield* audit.record({
          action: "oauth.refresh",
          actorId: token.userId,
          actorType: "user",
          targetType: "session",
          targetId: grant.sessionId,
          metadata: { clientId: token.clientId, familyId: token.familyId, previousSessionId: token.sessionId }
        }, facts)
        return { _tag: "Rotated", grant } satisfies Rotation as Rotation
      }).pipe(sql.withTransaction, Effect.orDie, Effect.zipLeft(cache.clear))

    /**
     * The refresh grant: spend the token and issue the next pair. Unknown, expired, revoked or
     * foreign tokens answer `invalid_grant`; a spent one (reuse) or one whose session was ended
     * revokes its family first.
     */
    const refresh = Effect.fn("RefreshTokens.refresh")(
      function*(input: { readonly refreshToken: string; readonly clientId: string }, facts: AuditRequestFacts) {
        const found = yield* repo.findByHash(Crypto.sha256Hex(input.refreshToken))
        if (Option.isNone(found)) return yield* OAuthError.invalidGrant("Unknown refresh token")
        const token = found.value
        if (token.clientId !== input.clientId) return yield* OAuthError.invalidGrant("The refresh token belongs to another client")
        if (token.status === "revoked") return yield* OAuthError.invalidGrant("The refresh token was revoked")
        if (token.status === "used") {
          yield* revokeFamily(token, "reuse", facts)
          return yield* OAuthError.invalidGrant("The refresh token was already used; every session of its login is revoked")
        }
        if (token.expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) {
          return yield* OAuthError.invalidGrant("The refresh token has expired")
        }
        if (token.sessionRevoked) {
          yield* revokeFamily(token, "session_ended", facts)
          return yield* OAuthError.invalidGrant("The session of this refresh token was ended")
        }
        const rotation = yield* rotate(token, facts)
        if (rotation._tag === "Rotated") return rotation.grant
        yield* revokeFamily(token, "reuse", facts)
        return yield* OAuthError.invalidGrant("The refresh token was already used; every session of its login is revoked")
      }
    )

    return { issue, refresh } as const
  }),
  dependencies: [RefreshTokensRepo.Default, SessionCache.Default]
}) {}
