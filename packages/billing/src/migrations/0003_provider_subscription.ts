import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A platform's subscription kept at the payment provider (decision 0448): the Stripe subscription
 * the upgrade made, `NULL` with the local provider or on `free`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE billing.subscriptions ADD COLUMN IF NOT EXISTS provider_subscription_id text`
})
