import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** What a one-time token proves: a magic-link sign-in, a password reset or an email address. */
export type VerificationPurpose = "magic_link" | "password_reset" | "email_verification"

/** A one-time token's row, without its hash. */
export interface VerificationRecord {
  readonly id: string
  readonly purpose: VerificationPurpose
  readonly email: string
  readonly userId: string | null
  readonly callbackUrl: string | null
  readonly payload: Record<string, unknown> | null
  readonly expiresAt: Date
  readonly createdAt: Date
}

interface VerificationRow {
  readonly id: string
  readonly purpose: VerificationPurpose
  readonly email: string
  readonly user_id: string | null
  readonly callback_url: string | null
  readonly payload: unknown
  readonly expires_at: unknown
  readonly created_at: unknown
}

const toVerification = (row: VerificationRow): VerificationRecord => ({
  id: row.id,
  purpose: row.purpose,
  email: row.email,
  userId: row.user_id,
  callbackUrl: row.callback_url,
  payload: Rows.jsonObject(row.payload),
  expiresAt: Rows.toDate(row.expires_at),
  createdAt: Rows.toDate(row.created_at)
})

/** The SQL of `iam.verifications`: one-time tokens stored as SHA-256 hashes. */
export class VerificationsRepo extends Effect.Service<VerificationsRepo>()("@core/auth/VerificationsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (input: {
      readonly id: string
      readonly purpose: VerificationPurpose
      readonly tokenHash: string
      readonly email: string
      readonly userId: string | null
      readonly callbackUrl: string | null
      readonly payload: Record<string, unknown> | null
      readonly expiresAt: Date
      readonly now: Date
    }) =>
      sql`INSERT INTO iam.verifications (id, purpose, token_hash, email, user_id, callback_url, payload, expires_at, created_at)
        VALUES (${input.id}, ${input.purpose}, ${input.tokenHash}, ${input.email.toLowerCase()}, ${input.userId},
          ${input.callbackUrl}, ${input.payload === null ? null : JSON.stringify(input.payload)}::jsonb,
          ${input.expiresAt}, ${input.now})`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("VerificationsRepo.insert"))

    /**
     * Spend a token: marks it used and answers its row, or `None` when it is unknown, used, expired
     * or for another purpose. One statement, so two concurrent uses cannot both succeed.
     */
    const consume = (purpose: VerificationPurpose, tokenHash: string, now: Date) =>
      sql<VerificationRow>`UPDATE iam.verifications SET used_at = ${now}
        WHERE token_hash = ${tokenHash} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > ${now}
        RETURNING id, purpose, email, user_id, callback_url, payload, expires_at, created_at`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toVerification)),
        Effect.orDie,
        Effect.withSpan("VerificationsRepo.consume")
      )

    /** A live token's record without spending it (the reset link's landing check). */
    const findLive = (purpose: VerificationPurpose, tokenHash: string, now: Date) =>
      sql<VerificationRow>`SELECT id, purpose, email, user_id, callback_url, payload, expires_at, created_at
        FROM iam.verifications
        WHERE token_hash = ${tokenHash} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > ${now}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toVerification)),
        Effect.orDie,
        Effect.withSpan("VerificationsRepo.findLive")
      )

    /** Retire the unused tokens of a purpose for an email (a newer one replaces them). */
    const retire = (purpose: VerificationPurpose, email: string, now: Date) =>
      sql`UPDATE iam.verifications SET used_at = ${now}
        WHERE email = ${email.toLowerCase()} AND purpose = ${purpose} AND used_at IS NULL`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("VerificationsRepo.retire")
      )

    return { insert, consume, findLive, retire } as const
  })
}) {}
