import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Usage metering (decision 0460): the events, kept by id so that a duplicate is not counted twice;
 * the daily rollups the reads sum (per platform, day, meter, tenant and stack; `''` stands for "no
 * tenant" and "no stack" so that the key has no NULLs); the alerts, one per platform, meter,
 * threshold and period.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE billing.usage_events (
    id text PRIMARY KEY,
    platform_id text NOT NULL,
    tenant_id text,
    stack_id text,
    meter text NOT NULL CHECK (meter IN ('requests', 'resource_hours', 'builds')),
    quantity bigint NOT NULL CHECK (quantity > 0),
    occurred_at timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE TABLE billing.usage_daily (
    platform_id text NOT NULL,
    day date NOT NULL,
    meter text NOT NULL,
    tenant_id text NOT NULL DEFAULT '',
    stack_id text NOT NULL DEFAULT '',
    quantity bigint NOT NULL,
    PRIMARY KEY (platform_id, day, meter, tenant_id, stack_id)
  )`
  yield* sql`CREATE INDEX usage_daily_tenant ON billing.usage_daily (platform_id, tenant_id, day)`
  yield* sql`CREATE INDEX usage_daily_stack ON billing.usage_daily (platform_id, stack_id, day)`
  yield* sql`CREATE TABLE billing.usage_alerts (
    id text PRIMARY KEY,
    platform_id text NOT NULL,
    meter text NOT NULL,
    threshold integer NOT NULL CHECK (threshold IN (80, 100)),
    allowance bigint NOT NULL,
    used bigint NOT NULL,
    period_start timestamptz NOT NULL,
    period_end timestamptz NOT NULL,
    raised_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (platform_id, meter, threshold, period_start)
  )`
  yield* sql`CREATE INDEX usage_alerts_platform ON billing.usage_alerts (platform_id, raised_at DESC)`
})
