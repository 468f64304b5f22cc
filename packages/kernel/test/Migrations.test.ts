import { Database, Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"

const statement = (text: string): Migrations.Migration => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text))

const iam: Migrations.Domain = {
  schema: "iam",
  migrations: {
    "0001_users": statement("CREATE TABLE iam.users (id text PRIMARY KEY, email text NOT NULL UNIQUE)"),
    "0002_sessions": statement("CREATE TABLE iam.sessions (id text PRIMARY KEY, user_id text NOT NULL REFERENCES iam.users (id))")
  }
}

const registry: Migrations.Domain = {
  schema: "registry",
  migrations: {
    "0001_platforms": statement("CREATE TABLE registry.platforms (id text PRIMARY KEY)")
  }
}

const recorded = (schema: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ migration_id: number; name: string }>`SELECT migration_id, name FROM ${sql(`${schema}.migrations`)} ORDER BY migration_id`)

const tablesOf = (schema: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} ORDER BY table_name`)

for (const driver of TestDatabase.drivers) {
  describe(`Migrations on ${driver}`, () => {
    layer(TestDatabase.layer([], { driver }), { excludeTestServices: true })((it) => {
      it.effect("creates each domain's schema, tables and own migrations table", () =>
        Effect.gen(function*() {
          const applied = yield* Migrations.run([iam, registry])
          expect(applied).toEqual([
            { schema: "iam", id: 1, name: "users" },
            { schema: "iam", id: 2, name: "sessions" },
            { schema: "registry", id: 1, name: "platforms" }
          ])
          expect(yield* tablesOf("iam")).toEqual([
            { table_name: "migrations" },
            { table_name: "sessions" },
            { table_name: "users" }
          ])
          expect(yield* recorded("iam")).toEqual([{ migration_id: 1, name: "users" }, { migration_id: 2, name: "sessions" }])
          expect(yield* recorded("registry")).toEqual([{ migration_id: 1, name: "platforms" }])
        }))

      it.effect("applies only new migrations on the next run, per domain", () =>
        Effect.gen(function*() {
          expect(yield* Migrations.run([iam, registry])).toEqual([])
          const grown: Migrations.Domain = {
            schema: "registry",
            migrations: { ...registry.migrations, "0002_tenants": statement("CREATE TABLE registry.tenants (id text)") }
          }
          expect(yield* Migrations.run([iam, grown])).toEqual([{ schema: "registry", id: 2, name: "tenants" }])
          expect(yield* recorded("iam")).toHaveLength(2)
        }))

      it.effect("rolls back and does not record a failing migration", () =>
        Effect.gen(function*() {
          const broken: Migrations.Domain = {
            schema: "broken",
            migrations: {
              "0001_half": statement("CREATE TABLE broken.half (id text)"),
              "0002_bad": statement("CREATE TABLE broken.nope (id no_such_type)")
            }
          }
          const exit = yield* Migrations.run([broken]).pipe(Effect.exit)
          expect(exit._tag).toBe("Failure")
          expect(yield* tablesOf("broken")).toEqual([{ table_name: "migrations" }])
          expect(yield* recorded("broken")).toEqual([])
          yield* Database.ping
        }))

      it.effect("refuses a schema name that is not a plain identifier", () =>
        Effect.gen(function*() {
          const error = yield* Migrations.run([{ schema: "Bad-Name", migrations: {} }]).pipe(Effect.flip)
          expect(error._tag).toBe("MigrationError")
          expect(error.message).toBe("Invalid schema name \"Bad-Name\": use lower-case letters, digits and underscores")
        }))

      it.effect("refuses a migration numbered below one already applied, naming it, and applies nothing", () =>
        Effect.gen(function*() {
          const first: Migrations.Domain = {
            schema: "late",
            migrations: {
              "0001_base": statement("CREATE TABLE late.base (id int)"),
              "0003_third": statement("CREATE TABLE late.third (id int)")
            }
          }
          expect(yield* Migrations.run([first])).toHaveLength(2)
          const merged: Migrations.Domain = {
            schema: "late",
            migrations: {
              ...first.migrations,
              "0002_merged_late": statement("CREATE TABLE late.merged (id int)"),
              "0004_next": statement("CREATE TABLE late.next (id int)")
            }
          }
          const error = yield* Migrations.run([iam, merged]).pipe(Effect.flip)
          expect([error._tag, error.message]).toEqual([
            "MigrationError",
            "A migration was never applied although a later one was: late/0002_merged_late (below late/0003_third). " +
            "Renumber it after the newest applied, or set CORE_MIGRATIONS_OUT_OF_ORDER=true to apply them out of order"
          ])
          expect(yield* recorded("late")).toEqual([{ migration_id: 1, name: "base" }, { migration_id: 3, name: "third" }])
          expect((yield* tablesOf("late")).map((row) => row.table_name)).toEqual(["base", "migrations", "third"])
        }))

      it.effect("applies a late migration first when outOfOrder is set, then the newer ones, reporting progress", () =>
        Effect.gen(function*() {
          const merged: Migrations.Domain = {
            schema: "late",
            migrations: {
              "0001_base": statement("CREATE TABLE late.base (id int)"),
              "0002_merged_late": statement("CREATE TABLE late.merged (id int)"),
              "0003_third": statement("CREATE TABLE late.third (id int)"),
              "0004_next": statement("CREATE TABLE late.next (id int)")
            }
          }
          const progress: Array<Migrations.Progress> = []
          const applied = yield* Migrations.run([merged], { outOfOrder: true, onProgress: (step) => progress.push(step) })
          expect(applied).toEqual([{ schema: "late", id: 2, name: "merged_late" }, { schema: "late", id: 4, name: "next" }])
          expect(progress).toEqual([
            { done: 1, total: 2, schema: "late", migration: "0002_merged_late" },
            { done: 2, total: 2, schema: "late", migration: "0004_next" }
          ])
          expect((yield* recorded("late")).map((row) => row.migration_id)).toEqual([1, 2, 3, 4])
          expect(yield* Migrations.run([merged])).toEqual([])
        }))

      it.effect("serializes runs that start together on one client", () =>
        Effect.gen(function*() {
          const counted: Migrations.Domain = {
            schema: "together",
            migrations: {
              "0001_log": statement("CREATE TABLE together.log (n int)"),
              "0002_entry": statement("SELECT pg_sleep(0.2); INSERT INTO together.log VALUES (1)")
            }
          }
          const results = yield* Effect.all([Migrations.run([counted]), Migrations.run([counted])], {
            concurrency: "unbounded"
          })
          expect(results.map((applied) => applied.length).sort()).toEqual([0, 2])
          const sql = yield* SqlClient.SqlClient
          expect(yield* sql`SELECT count(*) AS n FROM together.log`).toEqual([{ n: 1 }])
        }))
    })
  })
}

describe.runIf(TestDatabase.driver === "pg")("Migrations on two PostgreSQL pools", () => {
  it.scopedLive("apply each migration once when two instances start at once", () =>
    Effect.gen(function*() {
      const target = yield* Effect.map(SqlClient.SqlClient, (sql) => sql)
      const [{ url }] = yield* target<{ url: string }>`SELECT current_database() AS url`
      const instance = Database.layer({ url: withDatabase(TestDatabase.url!, url) })
      const domain: Migrations.Domain = {
        schema: "race",
        migrations: {
          "0001_log": statement("CREATE TABLE race.log (n int)"),
          "0002_slow": statement("SELECT pg_sleep(0.3); INSERT INTO race.log VALUES (1)"),
          "0003_more": statement("INSERT INTO race.log VALUES (2)")
        }
      }
      const [first, second] = yield* Effect.all([Layer.build(instance), Layer.build(instance)])
      const results = yield* Effect.all(
        [Migrations.run([domain]).pipe(Effect.provide(first)), Migrations.run([domain]).pipe(Effect.provide(second))],
        { concurrency: "unbounded" }
      )
      expect(results.map((applied) => applied.length).sort()).toEqual([0, 3])
      expect(yield* target`SELECT n FROM race.log ORDER BY n`).toEqual([{ n: 1 }, { n: 2 }])
      expect(yield* target`SELECT migration_id FROM race.migrations ORDER BY migration_id`).toEqual([
        { migration_id: 1 },
        { migration_id: 2 },
        { migration_id: 3 }
      ])
    }).pipe(Effect.provide(Layer.orDie(TestDatabase.layer([])))))
})

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}
