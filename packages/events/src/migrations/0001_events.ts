import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The events schema: the outbox (every event, written in the transaction of its change, kept for
 * the retention period), the organizations' webhook endpoints and their delivery attempts.
 * `seq` orders the outbox's rows as they were written; `dispatched_seq` is given by the relay,
 * which dispatches under one lock, so it grows in commit order: the event stream follows it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE SEQUENCE events.dispatch_seq`
  yield* sql`CREATE TABLE events.outbox (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    type text NOT NULL,
    version integer NOT NULL,
    organization_id text NOT NULL,
    platform_id text,
    data jsonb NOT NULL,
    target_endpoint_id text,
    dispatched_seq bigint UNIQUE,
    created_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX outbox_undispatched ON events.outbox (seq) WHERE dispatched_seq IS NULL`
  yield* sql`CREATE INDEX outbox_organization ON events.outbox (organization_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX outbox_created ON events.outbox (created_at)`

  yield* sql`CREATE TABLE events.endpoints (
    id text PRIMARY KEY,
    organization_id text NOT NULL,
    platform_id text,
    url text NOT NULL,
    description text NOT NULL DEFAULT '',
    event_types jsonb NOT NULL DEFAULT '[]'::jsonb,
    enabled boolean NOT NULL DEFAULT true,
    secret text NOT NULL,
    previous_secret text,
    previous_until timestamptz,
    disabled_reason text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX endpoints_organization ON events.endpoints (organization_id, created_at DESC, id DESC)`

  yield* sql`CREATE TABLE events.deliveries (
    id text PRIMARY KEY,
    endpoint_id text NOT NULL REFERENCES events.endpoints (id) ON DELETE CASCADE,
    event_id text NOT NULL,
    event_type text NOT NULL,
    attempt integer NOT NULL,
    status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
    status_code integer,
    duration_ms integer NOT NULL,
    response text NOT NULL DEFAULT '',
    error text,
    created_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX deliveries_endpoint ON events.deliveries (endpoint_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX deliveries_created ON events.deliveries (created_at)`
})
