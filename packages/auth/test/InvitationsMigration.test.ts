import { Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { IamMigrations } from "../src/migrations/index.js"

/** The identity schema as it was before `0050_one_pending_invitation`. */
const before: Migrations.Domain = {
  schema: "iam",
  migrations: Object.fromEntries(Object.entries(IamMigrations.migrations).filter(([id]) => id < "0050"))
}

const invite = (id: string, email: string, createdAt: string, expiresAt: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO iam.invitations (id, organization_id, email, role, status, inviter_id, expires_at, created_at)
      VALUES (${id}, 'org_m', ${email}, 'member', 'pending', 'usr_m', ${expiresAt}::timestamptz, ${createdAt}::timestamptz)`)

layer(TestDatabase.layer([before]))("migration 0050 on a database with duplicate pending invitations", (it) => {
  describe("0050_one_pending_invitation", () => {
    it.effect("keeps the newest pending one per organization and email, cancels the others, stores expired ones as expired", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO iam.organizations (id, name, slug, platform_id) VALUES ('org_m', 'M', 'm', 'plt_m')`
        yield* invite("inv_1", "dup@example.com", "2030-01-01T00:00:00Z", "2099-01-01T00:00:00Z")
        yield* invite("inv_2", "DUP@example.com", "2030-01-01T00:00:01Z", "2099-01-01T00:00:00Z")
        yield* invite("inv_3", "dup@example.com", "2030-01-01T00:00:02Z", "2099-01-01T00:00:00Z")
        yield* invite("inv_4", "old@example.com", "2020-01-01T00:00:00Z", "2020-01-03T00:00:00Z")
        yield* invite("inv_5", "other@example.com", "2030-01-01T00:00:00Z", "2099-01-01T00:00:00Z")

        const applied = yield* Migrations.run([IamMigrations])
        expect(applied.map((migration) => migration.name)).toContain("one_pending_invitation")
        expect(yield* sql<{ id: string; status: string }>`SELECT id, status FROM iam.invitations ORDER BY id`).toEqual([
          { id: "inv_1", status: "canceled" },
          { id: "inv_2", status: "canceled" },
          { id: "inv_3", status: "pending" },
          { id: "inv_4", status: "expired" },
          { id: "inv_5", status: "pending" }
        ])
        const again = yield* Effect.either(invite("inv_6", "Dup@Example.com", "2030-01-02T00:00:00Z", "2099-01-01T00:00:00Z"))
        expect(again._tag).toBe("Left")
      }))
  })
})
