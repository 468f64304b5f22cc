import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** What a job-creating request stores under its `Idempotency-Key`. */
export interface StoredKey {
  readonly scope: string
  readonly key: string
  readonly requestHash: string
  readonly jobId: string
  readonly response: Record<string, unknown>
}

/** The SQL of `provisioning.idempotency_keys`: a job-creating request's key, its request's hash and its answer. */
export const makeIdempotencyKeysRepo = (sql: SqlClient.SqlClient) => ({
  /** The key's stored request hash and answer, if it was stored after `since`. */
  live: (scope: string, key: string, since: Date) =>
    sql<{ requestHash: string; response: unknown }>`SELECT request_hash AS "requestHash", response
        FROM provisioning.idempotency_keys
        WHERE scope = ${scope} AND key = ${key} AND created_at > ${since}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0])),
      Effect.orDie,
      Effect.withSpan("IdempotencyKeysRepo.live")
    ),
  /**
   * Store the key (one stored at or before `cutoff` has expired and is replaced), in the caller's
   * transaction; `false` when another request stored it first.
   */
  store: (stored: StoredKey, now: Date, cutoff: Date) =>
    sql`INSERT INTO provisioning.idempotency_keys (scope, key, request_hash, job_id, response, created_at)
        VALUES (${stored.scope}, ${stored.key}, ${stored.requestHash}, ${stored.jobId}, ${JSON.stringify(stored.response)}::jsonb, ${now})
        ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, job_id = EXCLUDED.job_id,
          response = EXCLUDED.response, created_at = EXCLUDED.created_at
        WHERE provisioning.idempotency_keys.created_at <= ${cutoff}
        RETURNING key`.pipe(Effect.map((rows) => rows.length > 0))
})
