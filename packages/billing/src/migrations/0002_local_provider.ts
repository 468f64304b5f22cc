import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The local payment provider's objects (DESIGN §7: the default, offline): customers with their
 * credit balance, payment methods (a test card's outcome kept as `behaviour`), setup intents,
 * provider subscriptions (the root-path `/subscriptions` routes), balance transactions (credits),
 * portal sessions (the local customer portal's pages),
 * and the Stripe webhook events already processed (by event id, for the Stripe adapter).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE billing.customers (
    id text PRIMARY KEY,
    email text NOT NULL,
    name text,
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    platform_id text UNIQUE,
    balance_minor bigint NOT NULL DEFAULT 0,
    currency text NOT NULL DEFAULT 'usd',
    default_payment_method_id text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE TABLE billing.payment_methods (
    id text PRIMARY KEY,
    customer_id text REFERENCES billing.customers (id),
    type text NOT NULL DEFAULT 'card',
    brand text NOT NULL,
    last4 text NOT NULL,
    exp_month integer NOT NULL,
    exp_year integer NOT NULL,
    behaviour text NOT NULL CHECK (behaviour IN ('succeeds', 'card_declined', 'insufficient_funds')),
    created_at timestamptz NOT NULL,
    detached_at timestamptz
  )`
  yield* sql`CREATE INDEX payment_methods_customer_idx ON billing.payment_methods (customer_id, created_at)`
  yield* sql`CREATE TABLE billing.setup_intents (
    id text PRIMARY KEY,
    customer_id text NOT NULL REFERENCES billing.customers (id),
    client_secret text NOT NULL,
    status text NOT NULL,
    payment_method_id text,
    created_at timestamptz NOT NULL
  )`
  yield* sql`CREATE TABLE billing.provider_subscriptions (
    id text PRIMARY KEY,
    customer_id text NOT NULL REFERENCES billing.customers (id),
    price_id text NOT NULL,
    quantity integer NOT NULL,
    payment_method_id text,
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    status text NOT NULL,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    current_period_start timestamptz NOT NULL,
    current_period_end timestamptz NOT NULL,
    cancelled_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX provider_subscriptions_customer_idx ON billing.provider_subscriptions (customer_id, created_at)`
  yield* sql`CREATE TABLE billing.balance_transactions (
    id text PRIMARY KEY,
    customer_id text NOT NULL REFERENCES billing.customers (id),
    amount_minor bigint NOT NULL,
    currency text NOT NULL,
    description text NOT NULL,
    invoice_id text,
    created_at timestamptz NOT NULL
  )`
  yield* sql`CREATE TABLE billing.charges (
    id text PRIMARY KEY,
    customer_id text NOT NULL,
    payment_method_id text NOT NULL,
    amount_minor bigint NOT NULL,
    currency text NOT NULL,
    status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
    failure_code text,
    invoice_id text,
    created_at timestamptz NOT NULL
  )`
  yield* sql`CREATE TABLE billing.portal_sessions (
    id text PRIMARY KEY,
    customer_id text NOT NULL REFERENCES billing.customers (id),
    platform_id text NOT NULL,
    return_url text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`
  yield* sql`CREATE TABLE billing.webhook_events (
    id text PRIMARY KEY,
    type text NOT NULL,
    object_id text,
    received_at timestamptz NOT NULL
  )`
})
