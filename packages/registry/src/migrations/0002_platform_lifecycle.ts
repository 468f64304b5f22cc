import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every PlatformRecord field, the lifecycle events (one per status change, written in the change's
 * transaction), and the indexes of the platform list's keyset paging: `(created_at, id)` alone and
 * behind each filter (decision 0225).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE registry.platforms
    ADD COLUMN edge_account_id text,
    ADD COLUMN repo_name text,
    ADD COLUMN payment_customer_id text,
    ADD COLUMN cancelled_at timestamptz,
    ADD COLUMN cancellation_reason text,
    ADD COLUMN suspended_at timestamptz,
    ADD COLUMN suspension_reason text,
    ADD COLUMN trial_ends_at timestamptz,
    ADD COLUMN version integer NOT NULL DEFAULT 1`
  yield* sql`CREATE INDEX platforms_created_idx ON registry.platforms (created_at, id)`
  yield* sql`CREATE INDEX platforms_status_created_idx ON registry.platforms (status, created_at, id)`
  yield* sql`CREATE INDEX platforms_tier_created_idx ON registry.platforms (tier, created_at, id)`
  yield* sql`CREATE INDEX platforms_organization_created_idx ON registry.platforms (organization_id, created_at, id)`

  yield* sql`CREATE TABLE registry.lifecycle_events (
    id text PRIMARY KEY,
    platform_id text NOT NULL REFERENCES registry.platforms (id) ON DELETE CASCADE,
    from_status text,
    to_status text NOT NULL,
    triggered_by text NOT NULL,
    trigger_type text NOT NULL CHECK (trigger_type IN ('user', 'operator', 'service', 'system')),
    reason text,
    metadata text NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX lifecycle_events_platform_idx ON registry.lifecycle_events (platform_id, created_at, id)`
})
