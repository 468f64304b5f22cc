import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A random salt per refresh token, never shown: the tokens a rotation issues are derived from the
 * presented token, this salt and a key of `CORE_SECRET`, so a concurrent duplicate refresh inside
 * the grace window answers the same new tokens (docs/decisions/0196-refresh-reuse-grace.md).
 * Existing rows get one from `gen_random_uuid()` (a cryptographically strong random source).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE iam.refresh_tokens ADD COLUMN rotation_salt text NOT NULL DEFAULT gen_random_uuid()::text`
})
