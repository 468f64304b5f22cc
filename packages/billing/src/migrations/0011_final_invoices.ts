import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The final invoice of a subscription cancelled at once and its collection (decisions 0585, 0586):
 * billing's own final invoice (kind `final`, one per subscription and period), and the retries of a
 * declined final invoice — billing's or one mirrored from Stripe — on a schedule until it is paid or
 * uncollectible. Numbered after `0010`: the migrator skips ids below the newest applied.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE billing.invoices DROP CONSTRAINT IF EXISTS invoices_kind_check`
  yield* sql`ALTER TABLE billing.invoices ADD CONSTRAINT invoices_kind_check CHECK (kind IN ('period', 'proration', 'upgrade', 'manual', 'final'))`
  yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS invoices_final_key ON billing.invoices (subscription_id, period_start) WHERE kind = 'final'`
  yield* sql`CREATE TABLE billing.invoice_collections (
    invoice_id text PRIMARY KEY REFERENCES billing.invoices (id),
    subscription_id text NOT NULL,
    platform_id text,
    state text NOT NULL CHECK (state IN ('retrying', 'paid', 'uncollectible')),
    failed_attempts integer NOT NULL,
    first_failed_at timestamptz NOT NULL,
    next_attempt_at timestamptz,
    last_failure text,
    suspended boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL
  )`
  // The log's entries in the order they were written, also within one millisecond (a collection's steps).
  yield* sql`ALTER TABLE billing.operator_log ADD COLUMN IF NOT EXISTS seq bigserial`
  yield* sql`CREATE INDEX invoice_collections_due_idx ON billing.invoice_collections (next_attempt_at) WHERE state = 'retrying'`
})
