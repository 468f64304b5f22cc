import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A resource's secret records (seed 002, SecretRecord). `ciphertext` is the value under AES-256-GCM
 * (the kernel's `Crypto.encrypt`, a key derived from `CORE_SECRET`, bound to the resource and name);
 * `NULL` once the secret is removed. One record per resource and name (decision 0245).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE registry.secrets (
    id text PRIMARY KEY,
    resource_id text NOT NULL REFERENCES registry.resources (id) ON DELETE CASCADE,
    secret_name text NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'deleted')),
    ciphertext text,
    last_set_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'active') = (ciphertext IS NOT NULL))
  )`
  yield* sql`CREATE UNIQUE INDEX secrets_resource_name_idx ON registry.secrets (resource_id, secret_name)`
  yield* sql`CREATE INDEX secrets_resource_created_idx ON registry.secrets (resource_id, created_at, id)`
})
