import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A platform's DNS records, kept in the registry and applied through the edge provider (decision
 * 0244). The same type, name (case-insensitive) and content once per platform.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE registry.dns_records (
    id text PRIMARY KEY,
    platform_id text NOT NULL REFERENCES registry.platforms (id) ON DELETE CASCADE,
    type text NOT NULL CHECK (type IN ('A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS', 'SRV', 'CAA')),
    name text NOT NULL,
    content text NOT NULL,
    ttl integer NOT NULL CHECK (ttl = 1 OR (ttl >= 60 AND ttl <= 86400)),
    proxied boolean NOT NULL DEFAULT false,
    priority integer,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE UNIQUE INDEX dns_records_unique_idx ON registry.dns_records (platform_id, type, (lower(name)), content)`
  yield* sql`CREATE INDEX dns_records_platform_created_idx ON registry.dns_records (platform_id, created_at, id)`
})
