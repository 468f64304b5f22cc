import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What billing keeps of a subscription held at Stripe (decision 0449): the Stripe invoice an
 * invoice mirrors (`provider_invoice_id`, one row per Stripe invoice; a mirrored renewal is not a
 * period-end invoice of billing's own, so the one-per-period key leaves it out), the proration
 * quotes a preview pins for the change that follows it, and the overage already sent to Stripe as
 * invoice items (one per subscription, period and meter).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE billing.invoices ADD COLUMN IF NOT EXISTS provider_invoice_id text`
  yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS invoices_provider_invoice_key ON billing.invoices (provider_invoice_id)
    WHERE provider_invoice_id IS NOT NULL`
  yield* sql`DROP INDEX IF EXISTS billing.invoices_period_key`
  yield* sql`CREATE UNIQUE INDEX invoices_period_key ON billing.invoices (subscription_id, period_start)
    WHERE kind = 'period' AND provider_invoice_id IS NULL`
  yield* sql`CREATE TABLE billing.proration_quotes (
    subscription_id text NOT NULL,
    tier text NOT NULL,
    from_tier text NOT NULL,
    period_start timestamptz NOT NULL,
    proration_date timestamptz NOT NULL,
    amount_minor bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (subscription_id, tier)
  )`
  yield* sql`CREATE TABLE billing.provider_usage_items (
    subscription_id text NOT NULL,
    period_start timestamptz NOT NULL,
    meter text NOT NULL,
    provider_item_id text NOT NULL,
    amount_minor bigint NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (subscription_id, period_start, meter)
  )`
})
