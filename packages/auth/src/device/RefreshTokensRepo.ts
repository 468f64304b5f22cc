import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** Where a refresh token stands: `used` once rotated (presenting it again is reuse), `revoked` with its family. */
export type RefreshTokenStatus = "active" | "used" | "revoked"

/** A refresh token row without its hash, with whether the session it was issued with was revoked. */
export interface RefreshTokenRecord {
  readonly id: string
  readonly familyId: string
  readonly sessionId: string
  readonly userId: string
  readonly clientId: string
  readonly scope: string | null
  readonly status: RefreshTokenStatus
  readonly expiresAt: Date
  /** The session was ended by its user (sign-out, revocation), not merely expired. */
  readonly sessionRevoked: boolean
}

/** What is stored for a new refresh token. */
export interface NewRefreshToken {
  readonly id: string
  readonly tokenHash: string
  readonly familyId: string
  readonly sessionId: string
  readonly userId: string
  readonly clientId: string
  readonly scope: string | null
  readonly expiresAt: Date
  readonly now: Date
}

interface Row {
  readonly id: string
  readonly family_id: string
  readonly session_id: string
  readonly user_id: string
  readonly client_id: string
  readonly scope: string | null
  readonly status: RefreshTokenStatus
  readonly expires_at: unknown
  readonly session_revoked: boolean | null
}

const toRecord = (row: Row): RefreshTokenRecord => ({
  id: row.id,
  familyId: row.family_id,
  sessionId: row.session_id,
  userId: row.user_id,
  clientId: row.client_id,
  scope: row.scope,
  status: row.status,
  expiresAt: Rows.toDate(row.expires_at),
  sessionRevoked: row.session_revoked === true
})

/**
 * The SQL of `iam.refresh_tokens`, and of the device sessions of a refresh family in
 * `iam.sessions` (`refresh_family_id`). Tokens are found by their hash only.
 */
export class RefreshTokensRepo extends Effect.Service<RefreshTokensRepo>()("@core/auth/RefreshTokensRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Store a new refresh token. */
    const insert = (token: NewRefreshToken) =>
      sql`INSERT INTO iam.refresh_tokens (id, token_hash, family_id, session_id, user_id, client_id, scope,
          expires_at, created_at)
        VALUES (${token.id}, ${token.tokenHash}, ${token.familyId}, ${token.sessionId}, ${token.userId},
          ${token.clientId}, ${token.scope}, ${token.expiresAt}, ${token.now})`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("RefreshTokensRepo.insert")
      )

    /** The token holding this hash, with the state of its session. */
    const findByHash = (hash: string) =>
      sql<Row>`SELECT t.id, t.family_id, t.session_id, t.user_id, t.client_id, t.scope, t.status, t.expires_at,
          s.revoked_at IS NOT NULL AS session_revoked
        FROM iam.refresh_tokens t LEFT JOIN iam.sessions s ON s.id = t.session_id
        WHERE t.token_hash = ${hash}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRecord)),
        Effect.orDie,
        Effect.withSpan("RefreshTokensRepo.findByHash")
      )

    /** Spend an active token; `false` when it was spent (or revoked) meanwhile. */
    const markUsed = (id: string, now: Date) =>
      sql<{ readonly id: string }>`UPDATE iam.refresh_tokens SET status = 'used', used_at = ${now}
        WHERE id = ${id} AND status = 'active'
        RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie, Effect.withSpan("RefreshTokensRepo.markUsed"))

    /** End one session (the one a rotation replaces). */
    const endSession = (sessionId: string, now: Date) =>
      sql`UPDATE iam.sessions SET revoked_at = ${now}, updated_at = ${now}
        WHERE id = ${sessionId} AND revoked_at IS NULL`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("RefreshTokensRepo.endSession")
      )

    /**
     * Revoke a whole family: every token not yet revoked, and every session still open. Answers the
     * ids of the sessions it ended.
     */
    const revokeFamily = (familyId: string, now: Date) =>
      Effect.gen(function*() {
        yield* sql`UPDATE iam.refresh_tokens SET status = 'revoked', revoked_at = ${now}
          WHERE family_id = ${familyId} AND status <> 'revoked'`
        const sessions = yield* sql<{ readonly id: string }>`UPDATE iam.sessions SET revoked_at = ${now}, updated_at = ${now}
          WHERE refresh_family_id = ${familyId} AND revoked_at IS NULL
          RETURNING id`
        return sessions.map((row) => row.id)
      }).pipe(Effect.orDie, Effect.withSpan("RefreshTokensRepo.revokeFamily"))

    return { insert, findByHash, markUsed, endSession, revokeFamily } as const
  })
}) {}
