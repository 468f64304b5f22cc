import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The registry's platform table, small for now: every tenant organization gets one platform at setup
 * (identity's `PlatformSetup`); the registry issue adds lifecycle events, entities and resources.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE registry.platforms (
    id text PRIMARY KEY,
    organization_id text,
    owner_user_id text,
    name text NOT NULL,
    slug text NOT NULL,
    tier text NOT NULL DEFAULT 'starter' CHECK (tier IN ('free', 'starter', 'growth', 'scale')),
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'cancelled', 'deleted')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
  )`
  yield* sql`CREATE UNIQUE INDEX platforms_slug_key ON registry.platforms (slug)`
  yield* sql`CREATE UNIQUE INDEX platforms_organization_key ON registry.platforms (organization_id)
    WHERE organization_id IS NOT NULL`
})
