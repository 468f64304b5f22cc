import { CoreConfig, Crypto, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Option } from "effect"
import { createHmac } from "node:crypto"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import { OAuthError } from "./OAuthErrors.js"
import { type RefreshTokenRecord, RefreshTokensRepo } from "./RefreshTokensRepo.js"
import { SessionCache } from "../accounts/SessionCache.js"
import { Sessions } from "../accounts/Sessions.js"

/** How long the access token of a device login lives: a one-hour session that never slides. */
export const ACCESS_TOKEN_TTL = Duration.hours(1)
/** How long each refresh token lives; every refresh issues a new one. */
export const REFRESH_TOKEN_TTL = Duration.days(30)
/**
 * How long after a rotation the spent token may be presented again and answer the same new tokens
 * (a client that refreshed from several processes at once, or retried a lost answer), provided the
 * new refresh token is still unspent: 10 seconds. Later, or once the new token was itself spent, a
 * spent token is reuse and revokes its family (docs/decisions/0196-refresh-reuse-grace.md).
 */
export const REFRESH_REUSE_GRACE = Duration.seconds(10)

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
  /** The tokens to issue (a rotation's, derived); random ones when absent. */
  readonly tokens?: SuccessorTokens
}

/** The access and refresh token a rotation issues. */
interface SuccessorTokens {
  readonly accessToken: string
  readonly refreshToken: string
}

type Rotation = { readonly _tag: "Rotated"; readonly grant: TokenGrant } | { readonly _tag: "Reused" }
const reused: Rotation = { _tag: "Reused" }

/**
 * Rotating refresh tokens (RFC 9700 §4.14.2). Each device login opens a family; each refresh spends
 * its token, ends the session it came with and issues a new session and token in the same family.
 * A spent token presented again — or one whose session its user ended — revokes the whole family,
 * except within {@link REFRESH_REUSE_GRACE} of its rotation while the new token is unspent: then it
 * answers the same new tokens, derived from the spent token (HMAC with a key of `CORE_SECRET` and
 * the row's random salt), so concurrent refreshes of one client do not sign it out.
 */
export class RefreshTokens extends Effect.Service<RefreshTokens>()("@core/auth/RefreshTokens", {
  effect: Effect.gen(function*() {
    const repo = yield* RefreshTokensRepo
    const sessions = yield* Sessions
    const ids = yield* Ids.Ids
    const audit = yield* AuditLog
    const sql = yield* SqlClient.SqlClient
    const cache = yield* SessionCache
    const config = yield* CoreConfig
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const rotationKey = Crypto.deriveKey(config.secret, "refresh-rotation")

    /** The tokens the rotation of `presented` issues: the same for every duplicate of it. */
    const successorOf = (presented: string, token: RefreshTokenRecord): SuccessorTokens => {
      const derive = (purpose: string) =>
        createHmac("sha256", rotationKey).update(`${purpose}\n${token.id}\n${token.rotationSalt}\n${presented}`).digest("base64url")
      return { accessToken: derive("access"), refreshToken: derive("refresh") }
    }

    /** A one-hour device session and a 30-day refresh token for a user (run inside the caller's transaction). */
    const issue = Effect.fn("RefreshTokens.issue")(
      function*(grant: GrantFor, facts: AuditRequestFacts) {
        const at = yield* now
        const familyId = grant.familyId ?? (yield* ids.make("fam"))
        const opened = yield* sessions.create(grant.userId, {
          device: { refreshFamilyId: familyId, ttl: ACCESS_TOKEN_TTL, ...(grant.tokens === undefined ? {} : { token: grant.tokens.accessToken }) },
          facts
        })
        const refreshToken = grant.tokens?.refreshToken ?? Crypto.randomToken(32)
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

    const rotate = (token: RefreshTokenRecord, presented: string, facts: AuditRequestFacts) =>
      Effect.gen(function*() {
        if (!(yield* repo.markUsed(token.id, yield* now))) return reused
        yield* repo.endSession(token.sessionId, yield* now)
        const grant = yield* issue({
          userId: token.userId,
          clientId: token.clientId,
          scope: token.scope,
          familyId: token.familyId,
          tokens: successorOf(presented, token)
        }, facts)
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
     * The tokens a spent token's rotation issued, when it is presented again within the grace window
     * and the new refresh token is unspent with a live session; `None` otherwise (reuse).
     */
    const replay = Effect.fn("RefreshTokens.replay")(
      function*(token: RefreshTokenRecord, presented: string, facts: AuditRequestFacts) {
        const at = yield* Clock.currentTimeMillis
        if (token.usedAt === null || at - token.usedAt.getTime() > Duration.toMillis(REFRESH_REUSE_GRACE)) return Option.none()
        const tokens = successorOf(presented, token)
        const found = yield* repo.findByHash(Crypto.sha256Hex(tokens.refreshToken))
        if (Option.isNone(found)) return Option.none()
        const next = found.value
        if (
          next.familyId !== token.familyId || next.status !== "active" || next.sessionRevoked ||
          next.sessionExpiresAt === null || next.sessionExpiresAt.getTime() <= at
        ) return Option.none()
        yield* audit.record({
          action: "oauth.refresh.replay",
          actorId: token.userId,
          actorType: "user",
          targetType: "session",
          targetId: next.sessionId,
          metadata: { clientId: token.clientId, familyId: token.familyId, refreshTokenId: token.id }
        }, facts)
        return Option.some<TokenGrant>({
          ...tokens,
          expiresIn: Math.round((next.sessionExpiresAt.getTime() - at) / 1000),
          scope: next.scope,
          sessionId: next.sessionId,
          familyId: next.familyId,
          userId: next.userId
        })
      }
    )

    /** A spent token presented again: the same new tokens within the grace window, else the family revoked. */
    const spent = (token: RefreshTokenRecord, presented: string, facts: AuditRequestFacts) =>
      Effect.flatMap(replay(token, presented, facts), Option.match({
        onSome: (grant) => Effect.succeed(grant),
        onNone: () =>
          Effect.zipRight(
            revokeFamily(token, "reuse", facts),
            OAuthError.invalidGrant("The refresh token was already used; every session of its login is revoked")
          )
      }))

    /**
     * The refresh grant: spend the token and issue the next pair. Unknown, expired, revoked or
     * foreign tokens answer `invalid_grant`; a spent one answers the same new tokens within the grace
     * window and otherwise (reuse), like one whose session was ended, revokes its family first.
     */
    const refresh = Effect.fn("RefreshTokens.refresh")(
      function*(input: { readonly refreshToken: string; readonly clientId: string }, facts: AuditRequestFacts) {
        const hash = Crypto.sha256Hex(input.refreshToken)
        const found = yield* repo.findByHash(hash)
        if (Option.isNone(found)) return yield* OAuthError.invalidGrant("Unknown refresh token")
        const token = found.value
        if (token.clientId !== input.clientId) return yield* OAuthError.invalidGrant("The refresh token belongs to another client")
        if (token.status === "revoked") return yield* OAuthError.invalidGrant("The refresh token was revoked")
        if (token.status === "used") return yield* spent(token, input.refreshToken, facts)
        if (token.expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) {
          return yield* OAuthError.invalidGrant("The refresh token has expired")
        }
        if (token.sessionRevoked) {
          yield* revokeFamily(token, "session_ended", facts)
          return yield* OAuthError.invalidGrant("The session of this refresh token was ended")
        }
        const rotation = yield* rotate(token, input.refreshToken, facts)
        if (rotation._tag === "Rotated") return rotation.grant
        // A concurrent refresh of the same token spent it first (its transaction has committed).
        const now = yield* repo.findByHash(hash)
        if (Option.isSome(now) && now.value.status === "used") return yield* spent(now.value, input.refreshToken, facts)
        return yield* OAuthError.invalidGrant("The refresh token was revoked")
      }
    )

    return { issue, refresh } as const
  }),
  dependencies: [RefreshTokensRepo.Default, SessionCache.Default]
}) {}
