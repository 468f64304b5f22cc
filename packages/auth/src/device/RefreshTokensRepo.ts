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
  /** When it was spent (rotated); `null` while active. */
  readonly usedAt: Date | null
  /** The session was ended by its user (sign-out, revocation), not merely expired. */
  readonly sessionRevoked: boolean
  /** When the session it was issued with ends (`null` when that session is gone). */
  readonly sessionExpiresAt: Date | null
  /** The random salt the tokens of its rotation are derived with (never shown). */
  readonly rotationSalt: string
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
  readonly used_at: unknown
  readonly session_revoked: boolean | null
  readonly session_expires_at: unknown
  readonly rotation_salt: string
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
  usedAt: Rows.toDateOrNull(row.used_at),
  sessionRevoked: row.session_revoked === true,
  sessionExpiresAt: Rows.toDateOrNull(row.session_expires_at),
  rotationSalt: row.rotation_salt
})

/**
 * The SQL of `iam.refresh_tokens`, and of the device sessions of a refresh family in
 * `iam.sessions` (`refresh_family_id`). Tokens are found by their hash only.
 */
export class RefreshTokensRepo extends Effect.Service<RefreshTokensRepo>()("@core/auth/RefreshTokensRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Store a new refresh token. */
    const insert = Effect.fn("RefreshTokensRepo.insert")(function*(token: NewRefreshToken) {
      yield* sql`INSERT INTO iam.refresh_tokens (id, token_hash, family_id, session_id, user_id, client_id, scope,
          expires_at, created_at)
        VALUES (${token.id}, ${token.tokenHash}, ${token.familyId}, ${token.sessionId}, ${token.userId},
          ${token.clientId}, ${token.scope}, ${token.expiresAt}, ${token.now})`
    }, Effect.orDie)

    /** The token holding this hash, with the state of its session. */
    const findByHash = Effect.fn("RefreshTokensRepo.findByHash")(function*(hash: string) {
      const rows = yield* sql<Row>`SELECT t.id, t.family_id, t.session_id, t.user_id, t.client_id, t.scope, t.status, t.expires_at,
          t.used_at, t.rotation_salt, s.revoked_at IS NOT NULL AS session_revoked, s.expires_at AS session_expires_at
        FROM iam.refresh_tokens t LEFT JOIN iam.sessions s ON s.id = t.session_id
        WHERE t.token_hash = ${hash}`
      return Option.map(Option.fromNullable(rows[0]), toRecord)
    }, Effect.orDie)

    /** Spend an active token; `false` when it was spent (or revoked) meanwhile. */
    const markUsed = Effect.fn("RefreshTokensRepo.markUsed")(function*(id: string, now: Date) {
      const rows = yield* sql<{ readonly id: string }>`UPDATE iam.refresh_tokens SET status = 'used', used_at = ${now}
        WHERE id = ${id} AND status = 'active'
        RETURNING id`
      return rows.length === 1
    }, Effect.orDie)

    /** End one session (the one a rotation replaces). */
    const endSession = Effect.fn("RefreshTokensRepo.endSession")(function*(sessionId: string, now: Date) {
      yield* sql`UPDATE iam.sessions SET revoked_at = ${now}, updated_at = ${now}
        WHERE id = ${sessionId} AND revoked_at IS NULL`
    }, Effect.orDie)

    /**
     * Revoke a whole family: every token not yet revoked, and every session still open. Answers the
     * ids of the sessions it ended.
     */
    const revokeFamily = Effect.fn("RefreshTokensRepo.revokeFamily")(function*(familyId: string, now: Date) {
      yield* sql`UPDATE iam.refresh_tokens SET status = 'revoked', revoked_at = ${now}
        WHERE family_id = ${familyId} AND status <> 'revoked'`
      const sessions = yield* sql<{ readonly id: string }>`UPDATE iam.sessions SET revoked_at = ${now}, updated_at = ${now}
        WHERE refresh_family_id = ${familyId} AND revoked_at IS NULL
        RETURNING id`
      return sessions.map((row) => row.id)
    }, Effect.orDie)

    return { insert, findByHash, markUsed, endSession, revokeFamily } as const
  })
}) {}
