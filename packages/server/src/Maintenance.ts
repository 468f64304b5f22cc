import { Backup, type Configuration, Database } from "@core/kernel"
import { Effect, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Readline from "node:readline/promises"
import { type CommandFailed, failed, usage } from "./Failure.js"
import * as Migrations from "./Migrations.js"
import * as Storage from "./Storage.js"
import * as Terminal from "./Terminal.js"

/** `core-server migrate`: run every domain's migrations against the configured database, then exit. */
export const migrate = (config: Configuration): Effect.Effect<void, CommandFailed> =>
  Effect.scoped(
    Effect.gen(function*() {
      const screen = yield* Terminal.Terminal
      screen.status("Opening the database…")
      const database = yield* Storage.open(config)
      const applied = yield* Migrations.runAll(config, (step) => screen.status(`Migrating database… ${step.done}/${step.total}`)).pipe(
        Effect.provide(database),
        Effect.ensuring(Effect.sync(screen.clear))
      )
      if (screen.interactive) screen.line(applied.length === 0 ? "The database is up to date." : `Applied ${applied.length} migrations.`)
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

const secretOf = (config: Configuration): string => Redacted.value(config.secret)

const secretNote = (config: Configuration, file: string): string =>
  `core-server: ${Path.resolve(file)} does not hold CORE_SECRET (${
    config.secretSource === "env" ? "set in the environment" : `kept in ${Path.join(config.dataDir ?? "", "secret")}`
  }): keep that secret with the backup, the data is unreadable without it.\n`

/**
 * `core-server backup <file>`: write the embedded database to a gzip tarball (0600, with a
 * fingerprint of `CORE_SECRET`), and say on stderr that the secret is not in it. The server must be stopped.
 */
export const backup = (config: Configuration, file: string): Effect.Effect<void, CommandFailed> =>
  Effect.flatMap(embeddedDataDir(config, "backup"), (dataDir) =>
    Backup.backup(dataDir, file, { secret: secretOf(config) }).pipe(
      Effect.mapError((error) => failed(error.message)),
      Effect.zipRight(Effect.logInfo("backup written").pipe(Effect.annotateLogs({ file: Path.resolve(file), dataDir }))),
      Effect.zipRight(Effect.sync(() => process.stderr.write(secretNote(config, file))))
    ))

/** Ask `question` on the terminal; true for y or yes. */
const ask = (question: string): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    const prompt = Readline.createInterface({ input: process.stdin, output: process.stderr })
    try {
      return /^\s*y(es)?\s*$/i.test(await prompt.question(question))
    } finally {
      prompt.close()
    }
  })

/**
 * Replacing a database needs a yes: `--yes`, or an answer on a terminal; without a terminal the
 * command stops (exit 2) and says to pass `--yes`.
 */
const confirmReplace = (dataDir: string, file: string, yes: boolean): Effect.Effect<void, CommandFailed> =>
  Effect.gen(function*() {
    if (!Fs.existsSync(Path.resolve(file))) return yield* Effect.fail(failed(`Cannot read ${Path.resolve(file)}: no such file`))
    if (yes || !Fs.existsSync(Path.join(Database.pgDataDir(dataDir), "PG_VERSION"))) return
    const what = `restore replaces the database in ${Path.resolve(dataDir)} with ${Path.resolve(file)}`
    if (process.stdin.isTTY !== true) return yield* Effect.fail(usage(`${what}; run it again with --yes to confirm`))
    const confirmed = yield* ask(`${what} (the current one is kept beside it). Continue? [y/N] `)
    if (!confirmed) return yield* Effect.fail(failed("restore cancelled; nothing changed"))
  })

/**
 * `core-server restore <file> [--yes]`: replace the embedded database with a backup, after a yes,
 * keeping the replaced one as `pgdata.before-restore-<time>`; refuses a backup written under
 * another `CORE_SECRET`. The server must be stopped.
 */
export const restore = (
  config: Configuration,
  file: string,
  options: { readonly yes: boolean } = { yes: false }
): Effect.Effect<void, CommandFailed> =>
  Effect.gen(function*() {
    const dataDir = yield* embeddedDataDir(config, "restore")
    yield* confirmReplace(dataDir, file, options.yes)
    const restored = yield* Backup.restore(file, dataDir, { secret: secretOf(config), keepPrevious: true }).pipe(
      Effect.mapError((error) => failed(error.message))
    )
    yield* Effect.logInfo("backup restored").pipe(
      Effect.annotateLogs({ file: Path.resolve(file), dataDir, ...(restored.previous === undefined ? {} : { previous: restored.previous }) })
    )
    if (restored.previous !== undefined) {
      yield* Effect.sync(() =>
        process.stderr.write(`core-server: the database it replaced is kept in ${restored.previous}; remove it once you have checked the restore.\n`)
      )
    }
  })
