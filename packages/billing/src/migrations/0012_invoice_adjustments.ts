import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Refunds and credit notes of mirrored Stripe invoices (decision 0587): one row per Stripe refund or
 * credit note, rewritten from Stripe's current state whenever one of their events arrives, and the
 * invoice's totals of them.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE billing.invoices ADD COLUMN IF NOT EXISTS amount_refunded_minor bigint NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE billing.invoices ADD COLUMN IF NOT EXISTS amount_credited_minor bigint NOT NULL DEFAULT 0`
  yield* sql`CREATE TABLE billing.invoice_adjustments (
    provider_id text PRIMARY KEY,
    invoice_id text NOT NULL REFERENCES billing.invoices (id),
    kind text NOT NULL CHECK (kind IN ('refund', 'credit_note')),
    number text,
    amount_minor bigint NOT NULL,
    status text NOT NULL,
    type text,
    reason text,
    created_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX invoice_adjustments_invoice_idx ON billing.invoice_adjustments (invoice_id, created_at)`
})
