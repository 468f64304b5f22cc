import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The job queue (DESIGN §7): one table, claimed with `FOR UPDATE SKIP LOCKED`. The claim query
 * reads the queued jobs due by `run_at` and the running ones whose lease ended, each through a
 * partial index of its own; a platform's jobs are listed by `(platform_id, created_at, id)`.
 * `platform_status` is provisioning's view of whether a platform's edge resources serve
 * (`/internal/platform-status`); `local_features` is what the local edge provider deployed.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE provisioning.jobs (
    id text PRIMARY KEY,
    type text NOT NULL,
    platform_id text,
    organization_id text,
    payload jsonb NOT NULL DEFAULT '{}'::jsonb,
    status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED')),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL CHECK (max_attempts >= 1),
    run_at timestamptz NOT NULL,
    lease_until timestamptz,
    locked_by text,
    progress double precision NOT NULL DEFAULT 0,
    steps jsonb NOT NULL DEFAULT '[]'::jsonb,
    result jsonb,
    error text,
    started_at timestamptz,
    finished_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX jobs_queued_idx ON provisioning.jobs (run_at) WHERE status = 'QUEUED'`
  yield* sql`CREATE INDEX jobs_leased_idx ON provisioning.jobs (lease_until) WHERE status = 'RUNNING'`
  yield* sql`CREATE INDEX jobs_platform_idx ON provisioning.jobs (platform_id, created_at, id)`
  yield* sql`CREATE TABLE provisioning.platform_status (
    platform_id text PRIMARY KEY,
    status text NOT NULL CHECK (status IN ('active', 'suspended')),
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE TABLE provisioning.local_features (
    platform_id text NOT NULL,
    entity_id text NOT NULL,
    feature_id text NOT NULL,
    environment text NOT NULL,
    feature_version text NOT NULL,
    deployed_at timestamptz NOT NULL,
    PRIMARY KEY (platform_id, entity_id, feature_id, environment)
  )`
})
