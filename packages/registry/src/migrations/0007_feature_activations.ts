import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An entity's feature activations (seed 002). One live activation (`pending`, `active` or
 * `deactivating`) per entity, feature and environment, by a partial unique index; `failed` and
 * `deactivated` ones stay as history. `config` may name the manifest's `package` and `serviceUrl`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE registry.feature_activations (
    id text PRIMARY KEY,
    platform_id text NOT NULL REFERENCES registry.platforms (id) ON DELETE CASCADE,
    entity_id text NOT NULL REFERENCES registry.entities (id) ON DELETE CASCADE,
    feature_id text NOT NULL,
    feature_version text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('dev', 'stg', 'prod')),
    status text NOT NULL CHECK (status IN ('pending', 'active', 'failed', 'deactivating', 'deactivated')),
    config jsonb NOT NULL DEFAULT '{}'::jsonb,
    provision_job_id text,
    activated_at timestamptz,
    deactivated_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE UNIQUE INDEX feature_activations_live_idx ON registry.feature_activations (entity_id, feature_id, environment)
    WHERE status IN ('pending', 'active', 'deactivating')`
  yield* sql`CREATE INDEX feature_activations_entity_idx ON registry.feature_activations (entity_id, created_at, id)`
})
