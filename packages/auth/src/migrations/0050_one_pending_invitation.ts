import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * At most one pending invitation per organization and email, whatever the email's case
 * (docs/decisions/0195-one-pending-invitation.md): parallel invitations of one address made one
 * pending row each. Rows already past their expiry are stored as `expired`; of pending duplicates
 * left by the race, the newest stays pending and the others are `canceled`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE iam.invitations SET status = 'expired' WHERE status = 'pending' AND expires_at <= now()`
  yield* sql`UPDATE iam.invitations SET status = 'canceled'
    WHERE status = 'pending' AND id IN (
      SELECT id FROM (
        SELECT id, row_number() OVER (
          PARTITION BY organization_id, lower(email) ORDER BY created_at DESC, id DESC
        ) AS rank
        FROM iam.invitations WHERE status = 'pending'
      ) AS ranked WHERE rank > 1
    )`
  yield* sql`CREATE UNIQUE INDEX invitations_one_pending ON iam.invitations (organization_id, lower(email))
    WHERE status = 'pending'`
})
