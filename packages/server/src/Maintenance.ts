import { Backup, type Configuration } from "@core/kernel"
import { Effect } from "effect"
import * as Path from "node:path"
import { type CommandFailed, failed } from "./Failure.js"
import * as Migrations from "./Migrations.js"
import * as Storage from "./Storage.js"

/** `core-server migrate`: run every domain's migrations against the configured database, then exit. */
export const migrate = (config: Configuration): Effect.Effect<void, CommandFailed> =>
  Effect.scoped(
    Effect.gen(function*() {
      const database = yield* Storage.open(config)
      const applied = yield* Migrations.runAll.pipe(Effect.provide(database))
      yield* Effect.logInfo("migrations done").pipe(Effect.annotateLogs({ applied: applied.length }))
    })
  )

const embeddedDataDir = (config: Configuration, command: "backup" | "restore"): Effect.Effect<string, CommandFailed> => {
  if (config.databaseUrl !== undefined) {
    const tool = command === "backup" ? "pg_dump" : "pg_restore"
    return Effect.fail(
      failed(`${command} works on the embedded database only, and DATABASE_URL is set; use ${tool} for PostgreSQL`)
    )
  }
  if (config.dataDir === undefined) {
    return Effect.fail(failed(`${command} needs a data directory on disk; CORE_DATA_DIR is :memory:`))
  }
  return Effect.succeed(config.dataDir)
}

/** `core-server backup <file>`: write the embedded database to a gzip tarball. The server must be stopped. */
export const backup = (config: Configuration, file: string): Effect.Effect<void, CommandFailed> =>
  Effect.flatMap(embeddedDataDir(config, "backup"), (dataDir) =>
    Backup.backup(dataDir, file).pipe(
      Effect.mapError((error) => failed(error.message)),
      Effect.zipRight(Effect.logInfo("backup written").pipe(Effect.annotateLogs({ file: Path.resolve(file), dataDir })))
    ))

/** `core-server restore <file>`: replace the embedded database with a backup. The server must be stopped. */
export const restore = (config: Configuration, file: string, _options: { readonly yes: boolean } = { yes: false }): Effect.Effect<void, CommandFailed> =>
  Effect.flatMap(embeddedDataDir(config, "restore"), (dataDir) =>
    Backup.restore(file, dataDir).pipe(
      Effect.mapError((error) => failed(error.message)),
      Effect.zipRight(Effect.logInfo("backup restored").pipe(Effect.annotateLogs({ file: Path.resolve(file), dataDir })))
    ))
