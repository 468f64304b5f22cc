import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A platform's edge resources (seed 002, ResourceRecord), each of one entity. An `edge_name` is
 * unique among the live resources: the partial unique index decides a race (one 201, one 409;
 * decision 0241). `version` is the resource's `ETag`; `config` is JSON text.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE registry.resources (
    id text PRIMARY KEY,
    platform_id text NOT NULL REFERENCES registry.platforms (id) ON DELETE CASCADE,
    entity_id text NOT NULL REFERENCES registry.entities (id) ON DELETE CASCADE,
    stack_id text NOT NULL,
    resource_type text NOT NULL CHECK (resource_type IN ('worker', 'pages', 'sql_db', 'object_store', 'kv', 'queue')),
    service_name text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('dev', 'stg', 'prod')),
    edge_name text NOT NULL,
    edge_id text,
    edge_url text,
    status text NOT NULL CHECK (status IN ('pending', 'provisioning', 'active', 'failed', 'deleted')),
    provision_job_id text,
    config text NOT NULL DEFAULT '{}',
    version integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
  )`
  yield* sql`CREATE UNIQUE INDEX resources_live_edge_name_idx ON registry.resources (edge_name) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX resources_platform_created_idx ON registry.resources (platform_id, created_at, id)`
  yield* sql`CREATE INDEX resources_entity_created_idx ON registry.resources (entity_id, created_at, id)`
})
