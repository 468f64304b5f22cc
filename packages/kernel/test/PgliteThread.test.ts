import { Backup, Database, DataDirLock, Migrations, PgliteClient } from "@core/kernel"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, type Context, Deferred, Effect, Exit, Fiber, Layer, Stream } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as PgliteThread from "../src/internal/pgliteThread.js"

const items: Migrations.Domain = {
  schema: "items",
  migrations: {
    "0001_items": Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`
        CREATE TABLE items.items (
          id int8 PRIMARY KEY,
          name text NOT NULL CONSTRAINT items_name_key UNIQUE,
          amount numeric(20, 4) NOT NULL,
          at timestamptz NOT NULL,
          doc jsonb NOT NULL,
          tags text[] NOT NULL,
          bytes bytea NOT NULL
        )
      `)
  }
}

const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "core-pglite-thread-"))

const withDatabase = <A, E>(
  dataDir: string,
  effect: Effect.Effect<A, E, SqlClient.SqlClient | Database.Info | PgliteClient.PgliteClient>
) =>
  Effect.scoped(Effect.flatMap(Layer.build(Database.layer({ dataDir, thread: true })), (context) =>
    Effect.provide(effect, context as Context.Context<SqlClient.SqlClient | Database.Info | PgliteClient.PgliteClient>)))

const insert = (id: number | bigint, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO items.items ${
      sql.insert({
        id,
        name,
        amount: "12.5000",
        at: new Date("2024-05-06T07:08:09.123Z"),
        doc: { a: [1, { b: "c" }] },
        tags: ["x", "y"],
        bytes: new Uint8Array([1, 2, 255])
      })
    }`)

/** A test that opens an embedded database from nothing in a worker thread: seconds idle, far more on a loaded machine. */
const OPENS_A_DATABASE = 120_000

describe("PgliteClient in a worker thread", () => {
  it.live("runs the same statements, values, transactions and errors as in process, off this thread", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      yield* withDatabase(dataDir, Effect.gen(function*() {
        const client = yield* PgliteClient.PgliteClient
        expect(client.pglite).toBeUndefined()
        expect(yield* Database.Info).toEqual({ driver: "pglite", dataDir })
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SHOW TimeZone`).toEqual([{ TimeZone: "UTC" }])
        yield* Migrations.run([items])
        yield* insert(9_007_199_254_740_993n, "big")
        expect(yield* sql`SELECT id, name, amount, at, doc, tags, bytes FROM items.items`).toEqual([{
          id: 9_007_199_254_740_993n,
          name: "big",
          amount: "12.5000",
          at: new Date("2024-05-06T07:08:09.123Z"),
          doc: { a: [1, { b: "c" }] },
          tags: ["x", "y"],
          bytes: new Uint8Array([1, 2, 255])
        }])
        expect(yield* sql`SELECT 1 AS a, 'b' AS b`.values).toEqual([[1, "b"]])
        expect(yield* sql.unsafe("SELECT 1 AS one; SELECT 2 AS two")).toEqual([[{ one: 1 }], [{ two: 2 }]])

        const duplicate = yield* insert(2, "big").pipe(Effect.flip)
        expect(duplicate._tag).toBe("SqlError")
        expect(duplicate.cause).toMatchObject({
          code: "23505",
          constraint: "items_name_key",
          severity: "ERROR",
          detail: "Key (name)=(big) already exists.",
          message: `duplicate key value violates unique constraint "items_name_key"`
        })
        const exit = yield* Effect.exit(insert(3, "big"))
        expect(Exit.isFailure(exit) && Database.failureOf(exit.cause)).toBe(
          `23505 duplicate key value violates unique constraint "items_name_key"`
        )

        // PostgreSQL sleeps in the worker; this thread's timers keep firing meanwhile.
        let turns = 0
        const timer = setInterval(() => turns++, 1)
        yield* sql`SELECT pg_sleep(0.3)`
        clearInterval(timer)
        expect(turns).toBeGreaterThan(0)

        yield* sql.withTransaction(Effect.zipRight(insert(4, "rolled back"), Effect.fail("stop"))).pipe(Effect.ignore)
        expect(yield* sql`SELECT count(*)::int AS n FROM items.items`).toEqual([{ n: 1 }])

        const inside = yield* Deferred.make<void>()
        const finish = yield* Deferred.make<void>()
        const transaction = yield* sql.withTransaction(Effect.gen(function*() {
          yield* insert(5, "in a transaction")
          yield* Deferred.succeed(inside, undefined)
          yield* Deferred.await(finish)
        })).pipe(Effect.fork)
        yield* Deferred.await(inside)
        const outside = yield* sql`SELECT count(*)::int AS n FROM items.items`.pipe(Effect.fork)
        yield* Effect.sleep("50 millis")
        expect(outside.unsafePoll()).toBeNull()
        yield* Deferred.succeed(finish, undefined)
        yield* Fiber.join(transaction)
        expect(yield* Fiber.join(outside)).toEqual([{ n: 2 }])
      }))
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }), OPENS_A_DATABASE)

  it.live("delivers notifications, holds the data directory's lock, and leaves a database backup and restore read", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const dataDir = Path.join(root, "data")
      const file = Path.join(root, "core.tar.gz")
      yield* withDatabase(dataDir, Effect.gen(function*() {
        yield* Migrations.run([items])
        yield* insert(1, "kept")
        const received = yield* Database.listen("thread_events").pipe(Stream.take(2), Stream.runCollect, Effect.fork)
        while ((yield* Fiber.poll(received))._tag === "None") {
          yield* Database.notify("thread_events", "hello")
          yield* Effect.sleep("20 millis")
        }
        expect(Chunk.toArray(yield* Fiber.join(received))).toEqual(["hello", "hello"])
        const locked = yield* DataDirLock.ensureFree(dataDir).pipe(Effect.flip)
        expect(locked).toMatchObject({ _tag: "DataDirLockError", reason: "Locked" })
        const dump = yield* (yield* PgliteClient.PgliteClient).dump
        expect([...new Uint8Array(yield* Effect.promise(() => dump.arrayBuffer())).slice(0, 2)]).toEqual([0x1f, 0x8b])
      }))
      yield* Backup.backup(dataDir, file)
      yield* withDatabase(dataDir, insert(2, "after the backup"))
      yield* Backup.restore(file, dataDir)
      const names = yield* withDatabase(dataDir, Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ name: string }>`SELECT name FROM items.items ORDER BY id`))
      expect(names).toEqual([{ name: "kept" }])
      Fs.rmSync(root, { recursive: true, force: true })
    }), 120_000) // four databases opened from nothing, a dump, a backup and a restore: slow on a loaded machine

  it.live("starts from a dump (loadDataDir) in the worker", () =>
    Effect.gen(function*() {
      const dump = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* PgliteClient.make({ thread: true })
        yield* client.unsafe("CREATE TABLE t (v text); INSERT INTO t VALUES ('cloned')")
        return yield* client.dump
      })).pipe(Effect.provide(Reactivity.layer))
      const rows = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* PgliteClient.make({ thread: true, loadDataDir: dump })
        return yield* client.unsafe("SELECT v FROM t")
      })).pipe(Effect.provide(Reactivity.layer))
      expect(rows).toEqual([{ v: "cloned" }])
    }), OPENS_A_DATABASE)

  it("fails every pending and later request when the worker dies, instead of hanging", async () => {
    const session = await PgliteThread.open(new URL("./fixtures/crashingWorker.mjs", import.meta.url), {
      dataDir: "memory://"
    })
    await expect(session.exec("SELECT 1", "object")).rejects.toThrow(/worker thread failed: the worker broke/)
    await expect(session.query("SELECT 1", [], "object")).rejects.toThrow(/worker thread failed/)
    await session.close()
  })

  it.live("answers a SqlError when the worker cannot open the database", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const notADirectory = Path.join(root, "file")
      Fs.writeFileSync(notADirectory, "not a database")
      const error = yield* Effect.scoped(PgliteClient.make({ dataDir: notADirectory, thread: true })).pipe(
        Effect.provide(Reactivity.layer),
        Effect.flip
      )
      expect(error).toMatchObject({ _tag: "SqlError", message: "PgliteClient: failed to open the database" })
      Fs.rmSync(root, { recursive: true, force: true })
    }), OPENS_A_DATABASE)
})
