import { Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A platform's tenants and subtenants: a tree (`parent_id`, `depth` from 0 at the root, at most 15),
 * a slug unique among the live siblings (enforced by the index, so a race gives one 409), and every
 * existing platform's default tenant (`slug` `default`, decision 0230).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const ids = yield* Ids.makeLive

  yield* sql`CREATE TABLE registry.entities (
    id text PRIMARY KEY,
    platform_id text NOT NULL REFERENCES registry.platforms (id) ON DELETE CASCADE,
    parent_id text REFERENCES registry.entities (id) ON DELETE CASCADE,
    type text NOT NULL CHECK (type IN ('tenant', 'subtenant')),
    name text NOT NULL,
    slug text NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'suspended', 'deleted')),
    depth integer NOT NULL CHECK (depth >= 0 AND depth < 16),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
  )`
  yield* sql`CREATE UNIQUE INDEX entities_sibling_slug_idx
    ON registry.entities (platform_id, (COALESCE(parent_id, '')), slug) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX entities_platform_created_idx ON registry.entities (platform_id, created_at, id)`
  yield* sql`CREATE INDEX entities_parent_idx ON registry.entities (parent_id)`

  const platforms = yield* sql<{ id: string }>`SELECT id FROM registry.platforms`
  for (const platform of platforms) {
    const id = yield* ids.make("ent")
    yield* sql`INSERT INTO registry.entities (id, platform_id, parent_id, type, name, slug, status, depth)
      VALUES (${id}, ${platform.id}, NULL, 'tenant', 'Default', 'default', 'active', 0)`
  }
})
