import { Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The key that created a key (`parent_key_id`; `created_by` names it too), so that revoking a key
 * revokes what it created, transitively (docs/decisions/0560-api-keys-revoked-with-their-creator.md).
 * Keys created by a key before this migration were recorded as `created_by = 'service'`; the audit
 * log's `apikey.create` entry (actor type `apikey`) tells which key made each, and fills both in.
 * A key whose creator (or an ancestor of it) was revoked already is revoked now, and audited as
 * revoked by the system with its ancestor.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE iam.api_keys ADD COLUMN parent_key_id text REFERENCES iam.api_keys (id) ON DELETE CASCADE`
  yield* sql`CREATE INDEX api_keys_parent_idx ON iam.api_keys (parent_key_id) WHERE parent_key_id IS NOT NULL`
  yield* sql`UPDATE iam.api_keys k SET parent_key_id = a.actor_id, created_by = a.actor_id
    FROM iam.audit_log a
    WHERE a.action = 'apikey.create' AND a.actor_type = 'apikey' AND a.target_id = k.id
      AND a.actor_id <> k.id AND EXISTS (SELECT 1 FROM iam.api_keys p WHERE p.id = a.actor_id)`
  const orphans = yield* sql<{ id: string; organizationId: string; name: string | null; start: string; ancestorId: string }>`
    WITH RECURSIVE tree (id, ancestor_id) AS (
      SELECT k.id, p.id FROM iam.api_keys k JOIN iam.api_keys p ON p.id = k.parent_key_id WHERE p.revoked_at IS NOT NULL
      UNION
      SELECT k.id, t.ancestor_id FROM iam.api_keys k JOIN tree t ON k.parent_key_id = t.id
    )
    SELECT DISTINCT ON (k.id) k.id AS "id", k.organization_id AS "organizationId", k.name AS "name", k.start AS "start",
      t.ancestor_id AS "ancestorId"
    FROM tree t JOIN iam.api_keys k ON k.id = t.id
    WHERE k.revoked_at IS NULL
    ORDER BY k.id, t.ancestor_id`
  if (orphans.length === 0) return
  const ids = yield* Ids.makeLive
  for (const key of orphans) {
    yield* sql`UPDATE iam.api_keys SET revoked_at = now() WHERE id = ${key.id} AND revoked_at IS NULL`
    yield* sql`INSERT INTO iam.audit_log (id, action, actor_type, organization_id, target_type, target_id, metadata)
      VALUES (${yield* ids.make("aud")}, 'apikey.revoke', 'system', ${key.organizationId}, 'apikey', ${key.id},
        ${JSON.stringify({ name: key.name, start: key.start, revokedWith: key.ancestorId })}::jsonb)`
  }
})
