import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The SQL of `billing.idempotency_keys` the billing cycle keeps: expired keys forgotten. */
export const makeIdempotencyKeysRepo = (sql: SqlClient.SqlClient) => ({
  /** Delete the keys expired by `now`; answers how many. */
  purgeExpired: (now: Date) =>
    sql`DELETE FROM billing.idempotency_keys WHERE expires_at <= ${now} RETURNING key`.pipe(
      Effect.map((rows) => rows.length),
      Effect.orDie,
      Effect.withSpan("IdempotencyKeysRepo.purgeExpired")
    )
})
