import { Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { RegistryMigrations } from "../src/index.js"

/** The registry schema as it was before `0003_entities`. */
const before: Migrations.Domain = {
  schema: "registry",
  migrations: Object.fromEntries(Object.entries(RegistryMigrations.migrations).filter(([id]) => id < "0003"))
}

for (const driver of TestDatabase.drivers) {
  layer(TestDatabase.layer([before], { driver }))(`migration 0003 on ${driver}, with platforms already there`, (it) => {
    describe("0003_entities", () => {
      it.effect("gives every existing platform its default tenant, and the tree's rules hold in the database", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          for (const id of ["plt_m1", "plt_m2"]) {
            yield* sql`INSERT INTO registry.platforms (id, name, slug, tier, status) VALUES (${id}, ${id}, ${id.replace("_", "-")}, 'starter', 'active')`
          }
          const applied = yield* Migrations.run([RegistryMigrations])
          expect(applied.map((migration) => migration.name)).toContain("entities")
          const rows = yield* sql<{ id: string; platformId: string; type: string; slug: string; parentId: string | null; status: string; depth: number }>`
            SELECT id, platform_id AS "platformId", type, slug, parent_id AS "parentId", status, depth FROM registry.entities ORDER BY platform_id`
          expect(rows.map(({ id: _, ...rest }) => rest)).toEqual([
            { platformId: "plt_m1", type: "tenant", slug: "default", parentId: null, status: "active", depth: 0 },
            { platformId: "plt_m2", type: "tenant", slug: "default", parentId: null, status: "active", depth: 0 }
          ])
          expect(rows.every((row) => /^ent_[0-9A-HJKMNP-TV-Z]{26}$/.test(row.id))).toBe(true)
          // A second live `default` at the root of one platform breaks the sibling index; a depth of 16 the check.
          const duplicate = yield* Effect.either(sql`INSERT INTO registry.entities (id, platform_id, type, name, slug, status, depth)
            VALUES ('ent_dup', 'plt_m1', 'tenant', 'D', 'default', 'active', 0)`)
          expect(duplicate._tag).toBe("Left")
          const tooDeep = yield* Effect.either(sql`INSERT INTO registry.entities (id, platform_id, type, name, slug, status, depth)
            VALUES ('ent_deep', 'plt_m1', 'tenant', 'D', 'deep', 'active', 16)`)
          expect(tooDeep._tag).toBe("Left")
        }))
    })
  })
}
