import { Backup, Database, Migrations } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const notes: Migrations.Domain = {
  schema: "notes",
  migrations: {
    "0001_notes": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE notes.notes (id int PRIMARY KEY, body text)`)
  }
}

const withDatabase = <A, E>(dataDir: string, effect: Effect.Effect<A, E, SqlClient.SqlClient | Database.Info>) =>
  Effect.scoped(Effect.flatMap(Layer.build(Database.layer({ dataDir })), (context) =>
    Effect.provide(effect, context)))

const bodies = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ body: string }>`SELECT body FROM notes.notes ORDER BY id`)

const insert = (id: number, body: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO notes.notes VALUES (${id}, ${body})`)

describe("Backup", () => {
  it.live("round-trips the embedded database through backup and restore, refusing while it is open", () =>
    Effect.gen(function*() {
      const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "core-backup-"))
      const dataDir = Path.join(root, "data")
      const file = Path.join(root, "backups", "core.tar.gz")

      const noDatabase = yield* Backup.backup(dataDir, file).pipe(Effect.flip)
      expect(noDatabase).toMatchObject({ _tag: "BackupError", reason: "NoDatabase" })

      const info = yield* withDatabase(dataDir, Effect.gen(function*() {
        yield* Migrations.run([notes])
        yield* insert(1, "kept")
        return yield* Database.Info
      }))
      expect(info).toEqual({ driver: "pglite", dataDir })

      yield* Backup.backup(dataDir, file)
      expect(Fs.statSync(file).size).toBeGreaterThan(0)
      expect(Fs.readdirSync(Path.dirname(file))).toEqual(["core.tar.gz"])

      const refused = yield* withDatabase(dataDir, Effect.gen(function*() {
        yield* insert(2, "after the backup")
        const whileOpen = yield* Backup.restore(file, dataDir).pipe(Effect.flip)
        const backupWhileOpen = yield* Backup.backup(dataDir, file).pipe(Effect.flip)
        return [whileOpen, backupWhileOpen]
      }))
      expect(refused.map((error) => [error._tag, error.reason])).toEqual([
        ["DataDirLockError", "Locked"],
        ["DataDirLockError", "Locked"]
      ])

      yield* Backup.restore(file, dataDir)
      expect(yield* withDatabase(dataDir, bodies)).toEqual([{ body: "kept" }])
      expect(Fs.readdirSync(dataDir).sort()).toEqual(["pgdata"])

      const garbage = Path.join(root, "garbage.tar.gz")
      Fs.writeFileSync(garbage, "not a tarball")
      const invalid = yield* Backup.restore(garbage, dataDir).pipe(Effect.flip)
      expect(invalid).toMatchObject({ _tag: "BackupError", reason: "InvalidBackup" })
      expect(yield* withDatabase(dataDir, bodies)).toEqual([{ body: "kept" }])
      expect(Fs.readdirSync(dataDir).sort()).toEqual(["pgdata"])
      Fs.rmSync(root, { recursive: true, force: true })
    }), 180_000)
})
