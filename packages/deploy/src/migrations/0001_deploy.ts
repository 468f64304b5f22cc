import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The command-line backend's tables: each platform's source repository, its deployments (the
 * manifest of each: path → SHA-256 of the content, whose bytes live in the content store), what is
 * live per branch, and the upload idempotency keys. Times are epoch milliseconds (seed 002).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE deploy.repos (
    platform_id text PRIMARY KEY,
    repo_full_name text NOT NULL,
    default_branch text NOT NULL,
    project_name text NOT NULL,
    clone_url text NOT NULL,
    created_at bigint NOT NULL
  )`

  yield* sql`CREATE TABLE deploy.deployments (
    id text PRIMARY KEY,
    platform_id text NOT NULL,
    project_name text NOT NULL,
    branch text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('production', 'preview')),
    status text NOT NULL CHECK (status IN ('queued', 'building', 'deploying', 'success', 'failure')),
    source text NOT NULL CHECK (source IN ('upload', 'repository')),
    manifest jsonb NOT NULL DEFAULT '{}'::jsonb,
    file_count integer NOT NULL DEFAULT 0,
    upload_bytes bigint NOT NULL DEFAULT 0,
    user_id text,
    edge_deployment_id text,
    url text,
    error_message text,
    job_id text,
    started_at bigint,
    completed_at bigint,
    created_at bigint NOT NULL
  )`
  yield* sql`CREATE INDEX deployments_platform_idx ON deploy.deployments (platform_id, created_at DESC, id DESC)`

  yield* sql`CREATE TABLE deploy.live (
    platform_id text NOT NULL,
    branch text NOT NULL,
    deployment_id text NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (platform_id, branch)
  )`

  yield* sql`CREATE TABLE deploy.upload_keys (
    platform_id text NOT NULL,
    idempotency_key text NOT NULL,
    body_hash text NOT NULL,
    deployment_id text NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (platform_id, idempotency_key)
  )`
})
