import { Crypto, Ids } from "@core/kernel"
import { Clock, Duration, Effect, Option } from "effect"
import type { AuditRequestFacts } from "../audit/AuditLog.js"
import { AuditLog } from "../audit/AuditLog.js"
import { SessionCache } from "./SessionCache.js"
import { type SessionContextRow, type SessionRecord, SessionsRepo, type SessionWithUser } from "./SessionsRepo.js"

/** How long a session lives, and how far each refresh pushes a sliding one. */
export const SESSION_TTL = Duration.days(7)
/** A sliding session is pushed forward at most once per this age (better-auth's `updateAge`). */
export const SESSION_UPDATE_AGE = Duration.days(1)
/** The life of a session opened with `rememberMe: false`: a day, never extended. */
export const SHORT_SESSION_TTL = Duration.days(1)

/** A session just opened: the token is shown once, to the client that signed in. */
export interface IssuedSession {
  readonly token: string
  readonly session: SessionRecord
}

/** A resolved session; `refreshed` when this lookup pushed its expiry forward (the cookie is re-sent). */
export interface ResolvedSession extends SessionWithUser {
  readonly refreshed: boolean
}

/** A resolved session with its tenant. */
export interface ResolvedSessionContext extends SessionContextRow {
  readonly refreshed: boolean
}

/** A device session (device authorization): it never slides, lives `ttl` and belongs to a refresh family. */
export interface DeviceSessionOptions {
  readonly refreshFamilyId: string
  readonly ttl: Duration.DurationInput
  /**
   * The token to open it with, instead of a random one: a refresh rotation derives it, so that a
   * duplicate refresh in the grace window answers the same (docs/decisions/0196-refresh-reuse-grace.md).
   */
  readonly token?: string
}

/** Options of a new session. */
export interface SessionOptions {
  /** `false` opens a one-day session that never slides (and a cookie without `Max-Age`). @default true */
  readonly rememberMe?: boolean
  /** Open a device session instead of a web one (`rememberMe` is then ignored). */
  readonly device?: DeviceSessionOptions
  readonly facts: AuditRequestFacts
}

/**
 * Sessions: random 32-byte tokens stored as SHA-256 hashes, 7 days, sliding once a day.
 * A lookup is one statement on the token hash's unique index (plus, once a day, the extension).
 */
export class Sessions extends Effect.Service<Sessions>()("@core/auth/Sessions", {
  effect: Effect.gen(function*() {
    const repo = yield* SessionsRepo
    const ids = yield* Ids.Ids
    const audit = yield* AuditLog
    const cache = yield* SessionCache
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** Open a session for a user (sign-up, sign-in, magic link, password change). */
    const create = Effect.fn("Sessions.create")(
      function*(userId: string, options: SessionOptions) {
        const at = yield* now
        const { device } = options
        const token = device?.token ?? Crypto.randomToken(32)
        const remember = options.rememberMe !== false
        const ttl = device !== undefined ? device.ttl : remember ? SESSION_TTL : SHORT_SESSION_TTL
        const session = yield* repo.insert({
          id: yield* ids.make("ses"),
          tokenHash: Crypto.sha256Hex(token),
          userId,
          kind: device === undefined ? "web" : "device",
          sliding: device === undefined && remember,
          refreshFamilyId: device?.refreshFamilyId ?? null,
          ipAddress: options.facts.ip,
          userAgent: options.facts.userAgent,
          expiresAt: new Date(at.getTime() + Duration.toMillis(ttl)),
          now: at
        })
        return { token, session } satisfies IssuedSession
      }
    )

    const slide = <S extends SessionWithUser>(found: S, at: Date) =>
      Effect.gen(function*() {
        const { session } = found
        const lastRefresh = session.expiresAt.getTime() - Duration.toMillis(SESSION_TTL)
        if (!session.sliding || lastRefresh + Duration.toMillis(SESSION_UPDATE_AGE) > at.getTime()) {
          return { ...found, refreshed: false }
        }
        const expiresAt = new Date(at.getTime() + Duration.toMillis(SESSION_TTL))
        yield* repo.extend(session.id, expiresAt, at)
        return { ...found, session: { ...session, expiresAt, updatedAt: at }, refreshed: true }
      })

    /** The live session of a token, extended when due; `None` for unknown, revoked or expired tokens. */
    const resolve: (token: string) => Effect.Effect<Option.Option<ResolvedSession>> = Effect.fn("Sessions.resolve")(
      function*(token: string) {
        const at = yield* now
        const found = yield* repo.findByTokenHash(Crypto.sha256Hex(token), at)
        if (Option.isNone(found)) return Option.none()
        return Option.some(yield* slide(found.value, at))
      }
    )

    /** Like `resolve`, with the session's active organization, role there and platform status. */
    const resolveContext: (token: string) => Effect.Effect<Option.Option<ResolvedSessionContext>> = Effect.fn(
      "Sessions.resolveContext"
    )(
      function*(token: string) {
        const at = yield* now
        const found = yield* repo.findContextByTokenHash(Crypto.sha256Hex(token), at)
        if (Option.isNone(found)) return Option.none()
        return Option.some(yield* slide(found.value, at))
      }
    )

    /** The user's live sessions, newest first. */
    const list = (userId: string) => Effect.flatMap(now, (at) => repo.listActive(userId, at))

    /** One live session by id (`None` once revoked or expired). */
    const find = (sessionId: string) => Effect.flatMap(now, (at) => repo.findLive(sessionId, at))

    const recordRevocation = (userId: string, sessionId: string, facts: AuditRequestFacts, reason: string) =>
      audit.record({
        action: "session.revoke",
        actorId: userId,
        actorType: "user",
        targetType: "session",
        targetId: sessionId,
        metadata: { reason }
      }, facts)

    /** End the session making the request (sign-out). */
    const signOut = Effect.fn("Sessions.signOut")(
      function*(userId: string, sessionId: string, facts: AuditRequestFacts) {
        const at = yield* now
        const revoked = yield* repo.revokeOwned(sessionId, userId, at)
        yield* cache.clear
        yield* audit.record({
          action: "session.sign_out",
          actorId: userId,
          actorType: "user",
          targetType: "session",
          targetId: sessionId
        }, facts)
        return Option.isSome(revoked)
      }
    )

    /** Revoke one of the user's sessions by id; `None` when the user has no such live session. */
    const revoke = Effect.fn("Sessions.revoke")(
      function*(userId: string, sessionId: string, facts: AuditRequestFacts) {
        const revoked = yield* repo.revokeOwned(sessionId, userId, yield* now)
        yield* cache.clear
        if (Option.isSome(revoked)) yield* recordRevocation(userId, revoked.value, facts, "by_id")
        return revoked
      }
    )

    /** Revoke one of the user's sessions by its token; `None` when it is not one of the user's. */
    const revokeByToken = Effect.fn("Sessions.revokeByToken")(
      function*(userId: string, token: string, facts: AuditRequestFacts) {
        const revoked = yield* repo.revokeOwnedByTokenHash(Crypto.sha256Hex(token), userId, yield* now)
        yield* cache.clear
        if (Option.isSome(revoked)) yield* recordRevocation(userId, revoked.value, facts, "by_token")
        return revoked
      }
    )

    /** Revoke every session of the user except `keepId` (all of them when `null`). */
    const revokeAll = Effect.fn("Sessions.revokeAll")(
      function*(userId: string, keepId: string | null, facts: AuditRequestFacts, reason: string) {
        const revoked = yield* repo.revokeAllOf(userId, yield* now, keepId)
        yield* cache.clear
        yield* Effect.forEach(revoked, (id) => recordRevocation(userId, id, facts, reason), { discard: true })
        return revoked
      }
    )

    return { create, resolve, resolveContext, list, find, signOut, revoke, revokeByToken, revokeAll } as const
  }),
  dependencies: [SessionsRepo.Default, SessionCache.Default]
}) {}
