import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Billing's own records (DESIGN §7): one subscription per platform (its plan is the platform's
 * tier), the invoices with their lines, the operator log, and the upgrade's idempotency keys.
 * Money is integer minor units (`bigint`) everywhere. The payment provider's objects live in
 * `0002_local_provider`; metering's tables are `0010`–`0019`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE billing.subscriptions (
    id text PRIMARY KEY,
    platform_id text NOT NULL UNIQUE,
    organization_id text,
    customer_id text NOT NULL,
    plan_id text NOT NULL CHECK (plan_id IN ('free', 'starter', 'growth', 'scale')),
    status text NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'cancelled')),
    current_period_start timestamptz NOT NULL,
    current_period_end timestamptz NOT NULL,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    cancelled_at timestamptz,
    trial_end timestamptz,
    past_due_since timestamptz,
    overridden boolean NOT NULL DEFAULT false,
    payment_method_id text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX subscriptions_period_end_idx ON billing.subscriptions (current_period_end) WHERE status <> 'cancelled'`
  yield* sql`CREATE INDEX subscriptions_customer_idx ON billing.subscriptions (customer_id)`
  yield* sql`CREATE TABLE billing.invoices (
    id text PRIMARY KEY,
    platform_id text,
    customer_id text NOT NULL,
    subscription_id text,
    kind text NOT NULL CHECK (kind IN ('period', 'proration', 'upgrade', 'manual')),
    status text NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
    currency text NOT NULL,
    description text,
    period_start timestamptz NOT NULL,
    period_end timestamptz NOT NULL,
    subtotal_minor bigint NOT NULL,
    total_minor bigint NOT NULL,
    amount_due_minor bigint NOT NULL,
    amount_paid_minor bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    finalized_at timestamptz,
    paid_at timestamptz
  )`
  yield* sql`CREATE INDEX invoices_platform_idx ON billing.invoices (platform_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX invoices_customer_idx ON billing.invoices (customer_id, created_at DESC, id DESC)`
  // One period-end invoice per subscription and period: the scheduled job may run twice.
  yield* sql`CREATE UNIQUE INDEX invoices_period_key ON billing.invoices (subscription_id, period_start)
    WHERE kind = 'period'`
  yield* sql`CREATE TABLE billing.invoice_lines (
    invoice_id text NOT NULL REFERENCES billing.invoices (id),
    position integer NOT NULL,
    kind text NOT NULL CHECK (kind IN ('base', 'overage', 'credit', 'proration')),
    description text NOT NULL,
    meter text,
    quantity bigint NOT NULL,
    unit_amount_minor bigint NOT NULL,
    amount_minor bigint NOT NULL,
    PRIMARY KEY (invoice_id, position)
  )`
  yield* sql`CREATE TABLE billing.operator_log (
    id text PRIMARY KEY,
    actor text NOT NULL,
    action text NOT NULL,
    target text NOT NULL,
    reason text,
    before jsonb,
    after jsonb,
    at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX operator_log_target_idx ON billing.operator_log (target, at)`
  yield* sql`CREATE TABLE billing.idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    status integer,
    body jsonb,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
  )`
  yield* sql`CREATE INDEX idempotency_keys_expiry_idx ON billing.idempotency_keys (expires_at)`
})
