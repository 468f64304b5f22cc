import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What the resource jobs make (decisions 0292–0297).
 *
 * - `edge_resources`: what the local edge provider made, one row per `(resource_type, edge_name)`
 *   (its listing; a worker's bundle is kept in `script`). The resource's data lives apart: a
 *   schema `edge_<name>` (`sql_db`), a directory (`object_store`, `pages`), a table in
 *   `provisioning_edge` (`kv`, `queue`).
 * - `edge_hostnames`: the local edge's custom hostnames (`pending → active`).
 * - `stack_instances`: a stack version activated for an entity in an environment (`stackInstanceId`).
 * - `domains`: the custom domains the `domain.add` job adds, with their verification status.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE SCHEMA IF NOT EXISTS provisioning_edge`
  yield* sql`CREATE TABLE provisioning.edge_resources (
    resource_type text NOT NULL CHECK (resource_type IN ('worker', 'pages', 'sql_db', 'object_store', 'kv', 'queue')),
    edge_name text NOT NULL,
    platform_id text NOT NULL,
    environment text NOT NULL,
    edge_id text NOT NULL,
    edge_url text,
    config jsonb NOT NULL DEFAULT '{}'::jsonb,
    script text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (resource_type, edge_name)
  )`
  yield* sql`CREATE INDEX edge_resources_platform_idx ON provisioning.edge_resources (platform_id)`
  yield* sql`CREATE TABLE provisioning.edge_hostnames (
    id text PRIMARY KEY,
    platform_id text NOT NULL,
    hostname text NOT NULL UNIQUE,
    target text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'active')),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE TABLE provisioning.stack_instances (
    id text PRIMARY KEY,
    platform_id text NOT NULL,
    stack_id text NOT NULL,
    stack_version text NOT NULL,
    entity_id text NOT NULL,
    environment text NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'deleted')),
    resource_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX stack_instances_platform_idx ON provisioning.stack_instances (platform_id)`
  yield* sql`CREATE TABLE provisioning.domains (
    id text PRIMARY KEY,
    platform_id text NOT NULL,
    organization_id text,
    hostname text NOT NULL,
    target_dns_record_id text NOT NULL,
    target text,
    edge_id text,
    status text NOT NULL CHECK (status IN ('pending', 'active', 'failed', 'deleted')),
    verification_status text NOT NULL CHECK (verification_status IN ('pending', 'verified', 'failed')),
    job_id text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted_at timestamptz
  )`
  yield* sql`CREATE UNIQUE INDEX domains_live_hostname_idx ON provisioning.domains (hostname) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX domains_platform_idx ON provisioning.domains (platform_id, created_at, id)`
})
