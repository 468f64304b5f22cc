import { Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { IamMigrations } from "../src/migrations/index.js"

/** The identity schema as it was before `0052_api_key_parent`. */
const before: Migrations.Domain = {
  schema: "iam",
  migrations: Object.fromEntries(Object.entries(IamMigrations.migrations).filter(([id]) => id < "0052"))
}

/** A key as 0001 stored it, and the `apikey.create` entry that recorded who created it. */
const key = (id: string, actor: { id: string | null; type: "user" | "apikey" | "service" }, revoked = false) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`INSERT INTO iam.api_keys (id, key_hash, start, name, organization_id, platform_id, permissions, created_by, revoked_at)
        VALUES (${id}, ${`hash-${id}`}, 'core_abcdef', ${id}, 'org_k', 'plt_k', '[]'::jsonb,
          ${actor.type === "user" ? actor.id! : "service"}, ${revoked ? "2030-01-01T00:00:00Z" : null}::timestamptz)`,
      sql`INSERT INTO iam.audit_log (id, action, actor_id, actor_type, organization_id, target_type, target_id)
        VALUES (${`aud_${id}`}, 'apikey.create', ${actor.id}, ${actor.type}, 'org_k', 'apikey', ${id})`
    ))

layer(TestDatabase.layer([before]))("migration 0052 on keys created by keys before it", (it) => {
  describe("0052_api_key_parent", () => {
    it.effect("records each key's creating key from the audit log, and revokes (audited) what a revoked key created", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO iam.organizations (id, name, slug, platform_id) VALUES ('org_k', 'K', 'k', 'plt_k')`
        yield* key("key_root", { id: "usr_k", type: "user" }, true)
        yield* key("key_child", { id: "key_root", type: "apikey" })
        yield* key("key_grandchild", { id: "key_child", type: "apikey" })
        yield* key("key_live", { id: "usr_k", type: "user" })
        yield* key("key_of_live", { id: "key_live", type: "apikey" })
        yield* key("key_service", { id: null, type: "service" })

        const applied = yield* Migrations.run([IamMigrations])
        expect(applied.map((migration) => migration.name)).toContain("api_key_parent")
        const rows = yield* sql<{ id: string; createdBy: string; parentKeyId: string | null; revoked: boolean }>`
          SELECT id, created_by AS "createdBy", parent_key_id AS "parentKeyId", revoked_at IS NOT NULL AS revoked
          FROM iam.api_keys ORDER BY id`
        expect(rows).toEqual([
          { id: "key_child", createdBy: "key_root", parentKeyId: "key_root", revoked: true },
          { id: "key_grandchild", createdBy: "key_child", parentKeyId: "key_child", revoked: true },
          { id: "key_live", createdBy: "usr_k", parentKeyId: null, revoked: false },
          { id: "key_of_live", createdBy: "key_live", parentKeyId: "key_live", revoked: false },
          { id: "key_root", createdBy: "usr_k", parentKeyId: null, revoked: true },
          { id: "key_service", createdBy: "service", parentKeyId: null, revoked: false }
        ])
        const audited = yield* sql<{ targetId: string; actorType: string; metadata: unknown }>`
          SELECT target_id AS "targetId", actor_type AS "actorType", metadata FROM iam.audit_log
          WHERE action = 'apikey.revoke' ORDER BY target_id`
        expect(audited).toEqual([
          { targetId: "key_child", actorType: "system", metadata: { name: "key_child", start: "core_abcdef", revokedWith: "key_root" } },
          { targetId: "key_grandchild", actorType: "system", metadata: { name: "key_grandchild", start: "core_abcdef", revokedWith: "key_root" } }
        ])
      }))
  })
})
