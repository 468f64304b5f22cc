import { Database, DataDirLock, Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, ConfigProvider, Deferred, Effect, Exit, Fiber, Layer, Queue, Schedule, Stream } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const sample: Migrations.Domain = {
  schema: "sample",
  migrations: {
    "0001_tables": Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`
        CREATE TABLE sample.items (id text PRIMARY KEY, name text NOT NULL);
        CREATE TABLE sample.kinds (
          id int8 PRIMARY KEY,
          amount numeric(20, 4) NOT NULL,
          at timestamptz NOT NULL,
          local timestamp NOT NULL,
          day date NOT NULL,
          doc jsonb NOT NULL,
          flag boolean NOT NULL,
          ratio float8 NOT NULL,
          tags text[] NOT NULL,
          counts int8[] NOT NULL
        )
      `)
  }
}

for (const driver of TestDatabase.drivers) {
  describe(`Database on ${driver}`, () => {
    layer(TestDatabase.layer([sample], { driver }), { excludeTestServices: true })((it) => {
      it.effect("describes the driver and answers ping", () =>
        Effect.gen(function*() {
          const info = yield* Database.Info
          expect(info.driver).toBe(driver)
          expect(info.dataDir).toBeUndefined()
          yield* Database.ping
          const sql = yield* SqlClient.SqlClient
          expect(yield* sql`SHOW TimeZone`).toEqual([{ TimeZone: "UTC" }])
        }))

      it.effect("delivers notifications to listeners", () =>
        Effect.gen(function*() {
          const received = yield* Database.listen("core_events").pipe(Stream.take(2), Stream.runCollect, Effect.fork)
          while ((yield* Fiber.poll(received))._tag === "None") {
            yield* Database.notify("core_events", "hello")
            yield* Effect.sleep("20 millis")
          }
          expect(Chunk.toArray(yield* Fiber.join(received))).toEqual(["hello", "hello"])
        }))

      if (driver === "pg") {
        it.effect("listens again after its connection is lost, and says so (decision 0331)", () =>
          Effect.gen(function*() {
            const channel = "core_events_reconnect"
            const events = yield* Queue.unbounded<Database.ListenEvent>()
            const listener = yield* Database.subscribe(channel).pipe(Stream.runForEach((event) => Queue.offer(events, event)), Effect.fork)
            const next = Queue.take(events).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "no event within 10 s" }))
            expect(yield* next).toEqual({ _tag: "listening", reconnected: false })
            const sql = yield* SqlClient.SqlClient
            const killed = yield* sql<{ readonly pid: number }>`SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity
              WHERE application_name = 'core-listen' AND query = ${`LISTEN "${channel}"`}`
            expect(killed.length).toBe(1)
            expect(yield* next).toEqual({ _tag: "listening", reconnected: true })
            yield* Database.notify(channel, "after")
            expect(yield* next).toEqual({ _tag: "payload", payload: "after" })
            yield* Fiber.interrupt(listener)
            // Closed with the stream: its connection leaves the server (the backend's exit takes a moment).
            const left = yield* sql`SELECT pid FROM pg_stat_activity WHERE application_name = 'core-listen' AND query = ${`LISTEN "${channel}"`}`.pipe(
              Effect.filterOrFail((rows) => rows.length === 0, () => "still listening"),
              Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 40 }),
              Effect.orElseSucceed(() => "still listening")
            )
            expect(left).toEqual([])
          }))
      }

      it.effect("reads int8, numeric, timestamps, date, jsonb, boolean and arrays alike", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const at = new Date("2024-05-06T07:08:09.123Z")
          yield* sql`INSERT INTO sample.kinds ${
            sql.insert({
              id: 9007199254740991,
              amount: "12345.6789",
              at,
              local: "2024-05-06 07:08:09.5",
              day: "2024-05-06",
              doc: JSON.stringify({ a: [1, "two", null], b: { c: true } }),
              flag: true,
              ratio: 0.25,
              tags: ["x", "y,z", "\"q\""],
              counts: [1, 2, 3]
            })
          }`
          const rows = yield* sql`SELECT * FROM sample.kinds`
          expect(rows).toEqual([{
            id: 9007199254740991,
            amount: "12345.6789",
            at,
            local: new Date("2024-05-06T07:08:09.500Z"),
            day: "2024-05-06",
            doc: { a: [1, "two", null], b: { c: true } },
            flag: true,
            ratio: 0.25,
            tags: ["x", "y,z", "\"q\""],
            counts: [1, 2, 3]
          }])
          const [computed] = yield* sql<Record<string, unknown>>`
            SELECT count(*) AS count, sum(amount) AS total, 9007199254740993::int8 AS big,
              '2024-01-01 00:00:00+05:30'::timestamptz AS offset_at, NULL::int8 AS nothing,
              date_trunc('day', '2024-01-01 23:30:00+00'::timestamptz)::text AS day_start
            FROM sample.kinds`
          expect(computed).toEqual({
            count: 1,
            total: "12345.6789",
            big: 9007199254740993n,
            offset_at: new Date("2023-12-31T18:30:00.000Z"),
            nothing: null,
            day_start: "2024-01-01 00:00:00+00"
          })
        }))

      it.effect("compiles interpolations, sql.in, identifiers and multi-statement SQL the same way", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO ${sql("sample.items")} ${sql.insert([{ id: "a", name: "A" }, { id: "b", name: "B" }])}`
          const rows = yield* sql<{ id: string }>`SELECT id FROM sample.items WHERE ${sql.in("id", ["a", "b", "c"])} ORDER BY id`
          expect(rows).toEqual([{ id: "a" }, { id: "b" }])
          const values = yield* sql`SELECT id, name FROM sample.items WHERE id = ${"a"}`.values
          expect(values).toEqual([["a", "A"]])
          const many = yield* sql`SELECT 1 AS one; SELECT 2 AS two`
          expect(many).toEqual([[{ one: 1 }], [{ two: 2 }]])
          yield* sql`DELETE FROM sample.items`
        }))

      it.effect("rolls back a failed transaction and a failed savepoint", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const failed = yield* sql.withTransaction(
            Effect.zipRight(sql`INSERT INTO sample.items VALUES ('t1', 'one')`, Effect.fail("boom" as const))
          ).pipe(Effect.exit)
          expect(failed).toEqual(Exit.fail("boom"))
          yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO sample.items VALUES ('t2', 'two')`
            const inner = yield* sql.withTransaction(
              Effect.zipRight(sql`INSERT INTO sample.items VALUES ('t3', 'three')`, Effect.fail("inner" as const))
            ).pipe(Effect.exit)
            expect(Exit.isFailure(inner)).toBe(true)
          }))
          const duplicate = yield* sql.withTransaction(sql`INSERT INTO sample.items VALUES ('t2', 'again')`).pipe(
            Effect.flip
          )
          expect(duplicate._tag).toBe("SqlError")
          expect((duplicate.cause as { code?: string }).code).toBe("23505")
          const rows = yield* sql`SELECT id FROM sample.items ORDER BY id`
          expect(rows).toEqual([{ id: "t2" }])
          yield* sql`DELETE FROM sample.items`
        }))

      it.effect("lets queries run beside an open transaction without deadlock", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const inserted = yield* Deferred.make<void>()
          const finish = yield* Deferred.make<void>()
          const transaction = yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO sample.items VALUES ('u1', 'uncommitted')`
            const seen = yield* sql`SELECT id FROM sample.items WHERE id = 'u1'`
            const [nested] = yield* Effect.all([sql`SELECT count(*) AS n FROM sample.items`, sql`SELECT 1 AS one`], {
              concurrency: 2
            })
            yield* Deferred.succeed(inserted, undefined)
            yield* Deferred.await(finish)
            return { seen, nested }
          })).pipe(Effect.fork)
          yield* Deferred.await(inserted)
          const outside = yield* sql<{ id: string }>`SELECT id FROM sample.items`.pipe(Effect.fork)
          yield* Effect.sleep("100 millis")
          const early = yield* Fiber.poll(outside)
          yield* Deferred.succeed(finish, undefined)
          const inside = yield* Fiber.join(transaction)
          const after = yield* Fiber.join(outside)
          expect(inside).toEqual({ seen: [{ id: "u1" }], nested: [{ n: 1 }] })
          if (driver === "pglite") {
            expect(early._tag).toBe("None")
            expect(after).toEqual([{ id: "u1" }])
          } else {
            expect(early._tag).toBe("Some")
            expect(after).toEqual([])
          }
          yield* sql`DELETE FROM sample.items`
        }))

      it.effect("serializes many concurrent transactions and queries", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
            i % 2 === 0
              ? sql.withTransaction(Effect.gen(function*() {
                yield* sql`INSERT INTO sample.items VALUES (${`c${i}`}, 'x')`
                yield* sql`UPDATE sample.items SET name = 'y' WHERE id = ${`c${i}`}`
              }))
              : sql`SELECT count(*) FROM sample.items`, { concurrency: "unbounded", discard: true })
          const [{ n }] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM sample.items WHERE name = 'y'`
          expect(n).toBe(10)
          yield* sql`DELETE FROM sample.items`
        }))
    })
  })
}

describe("Database.layerConfig", () => {
  it.scopedLive("reads DATABASE_URL and CORE_DATA_DIR", () =>
    Effect.gen(function*() {
      const open = (env: Record<string, string>) =>
        Layer.build(Database.layerConfig).pipe(
          Effect.flatMap((context) => Effect.provide(Database.Info, context)),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
        )
      const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "core-database-config-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dataDir, { recursive: true, force: true })))
      yield* DataDirLock.acquire(dataDir)
      const locked = yield* Effect.flip(open({ CORE_DATA_DIR: dataDir, DATABASE_URL: "" }))
      expect(locked).toMatchObject({ _tag: "DataDirLockError", directory: dataDir })
      if (TestDatabase.url !== undefined) {
        expect(yield* open({ DATABASE_URL: TestDatabase.url })).toEqual({ driver: "pg", dataDir: undefined })
      }
    }))
})
