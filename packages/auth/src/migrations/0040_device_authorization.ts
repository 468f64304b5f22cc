import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Device authorization (RFC 8628) and rotating refresh tokens. Device codes and refresh tokens are
 * stored as SHA-256 hashes; user codes in their normalized form (eight letters, no dash), unique
 * while the row exists (rows are purged a day after they expire).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE iam.device_codes (
    id text PRIMARY KEY,
    device_code_hash text NOT NULL UNIQUE,
    user_code text NOT NULL UNIQUE,
    client_id text NOT NULL,
    scope text,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
    user_id text REFERENCES iam.users (id) ON DELETE CASCADE,
    session_id text,
    interval_seconds integer NOT NULL CHECK (interval_seconds > 0),
    last_polled_at timestamptz,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    approved_at timestamptz,
    denied_at timestamptz
  )`
  yield* sql`CREATE INDEX device_codes_expires_idx ON iam.device_codes (expires_at)`

  yield* sql`CREATE TABLE iam.refresh_tokens (
    id text PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    family_id text NOT NULL,
    session_id text NOT NULL,
    user_id text NOT NULL REFERENCES iam.users (id) ON DELETE CASCADE,
    client_id text NOT NULL,
    scope text,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'used', 'revoked')),
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    used_at timestamptz,
    revoked_at timestamptz
  )`
  yield* sql`CREATE INDEX refresh_tokens_family_idx ON iam.refresh_tokens (family_id)`
  yield* sql`CREATE INDEX sessions_refresh_family_idx ON iam.sessions (refresh_family_id)
    WHERE refresh_family_id IS NOT NULL`
})
