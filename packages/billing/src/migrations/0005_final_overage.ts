import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The one-off invoice that took a subscription's last-period overage (decision 0449): a Stripe
 * subscription cancelled at period end gets no renewal, so billing invoices the items itself, once.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE billing.provider_usage_items ADD COLUMN IF NOT EXISTS provider_invoice_id text`
})
