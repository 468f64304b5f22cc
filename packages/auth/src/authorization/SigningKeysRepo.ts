import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A signing key as stored: the public JWK in clear, the private JWK encrypted (kernel `Crypto`). */
export interface SigningKeyRow {
  readonly kid: string
  readonly alg: string
  readonly publicJwk: Record<string, unknown>
  readonly privateJwkEncrypted: string
}

interface Row extends Omit<SigningKeyRow, "publicJwk"> {
  readonly publicJwk: unknown
}

const toKey = (row: Row): SigningKeyRow => ({ ...row, publicJwk: Rows.jsonObject(row.publicJwk) ?? {} })

/** The SQL of `iam.signing_keys`. */
export class SigningKeysRepo extends Effect.Service<SigningKeysRepo>()("@core/auth/SigningKeysRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      `kid AS "kid", alg AS "alg", public_jwk AS "publicJwk", private_jwk_encrypted AS "privateJwkEncrypted"`
    )

    /** The newest key that is not retired, if any. */
    const current = sql<Row>`SELECT ${columns} FROM iam.signing_keys WHERE retired_at IS NULL
      ORDER BY created_at DESC, kid DESC LIMIT 1`.pipe(
      Effect.map((rows) => (rows[0] === undefined ? null : toKey(rows[0]))),
      Effect.orDie,
      Effect.withSpan("SigningKeysRepo.current")
    )

    /** Every key that is not retired, newest first (the JWKS). */
    const published = sql<Row>`SELECT ${columns} FROM iam.signing_keys WHERE retired_at IS NULL
      ORDER BY created_at DESC, kid DESC`.pipe(
      Effect.map((rows) => rows.map(toKey)),
      Effect.orDie,
      Effect.withSpan("SigningKeysRepo.published")
    )

    const insert = (key: SigningKeyRow, at: Date) =>
      sql`INSERT INTO iam.signing_keys (kid, alg, public_jwk, private_jwk_encrypted, created_at)
        VALUES (${key.kid}, ${key.alg}, ${JSON.stringify(key.publicJwk)}::jsonb, ${key.privateJwkEncrypted},
          ${at.toISOString()}::timestamptz)
        ON CONFLICT (kid) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("SigningKeysRepo.insert"))

    return { current, published, insert } as const
  })
}) {}
