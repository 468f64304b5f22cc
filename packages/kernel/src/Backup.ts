import { PGlite } from "@electric-sql/pglite"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { pgDataDir } from "./Database.js"
import * as DataDirLock from "./DataDirLock.js"

/** A backup or restore failed: no database to back up, an unreadable file, a bad tarball. */
export class BackupError extends Data.TaggedError("BackupError")<{
  readonly reason: "NoDatabase" | "Io" | "InvalidBackup"
  readonly message: string
  readonly cause?: unknown
}> {}

const io = (message: string) => (cause: unknown) =>
  new BackupError({ reason: "Io", message: `${message}: ${(cause as Error)?.message ?? String(cause)}`, cause })

const unique = () => `${process.pid}-${randomBytes(4).toString("hex")}`

const exists = (path: string) =>
  Effect.promise(() => Fs.stat(path).then(() => true, () => false))

const openPglite = (options: { dataDir: string; loadDataDir?: Blob }, message: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => PGlite.create(options), catch: io(message) }),
    (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
  )

/**
 * Writes the embedded database of `dataDir` to `file` as a gzip tarball (`PGlite.dumpDataDir`).
 * The database must be closed: the data directory is locked for the duration, so this fails with
 * `DataDirLockError` while a server runs on it. The file is written atomically.
 */
export const backup = (dataDir: string, file: string): Effect.Effect<void, BackupError | DataDirLock.DataDirLockError> =>
  Effect.gen(function*() {
    yield* DataDirLock.acquire(dataDir)
    const pgdata = pgDataDir(dataDir)
    if (!(yield* exists(Path.join(pgdata, "PG_VERSION")))) {
      return yield* new BackupError({
        reason: "NoDatabase",
        message: `No embedded database in ${Path.resolve(dataDir)}`
      })
    }
    const db = yield* openPglite({ dataDir: pgdata }, `Cannot open the database in ${pgdata}`)
    const tarball = yield* Effect.tryPromise({ try: () => db.dumpDataDir("gzip"), catch: io("Cannot dump the database") })
    const target = Path.resolve(file)
    const staging = `${target}.${unique()}.partial`
    yield* Effect.tryPromise({
      try: async () => {
        await Fs.mkdir(Path.dirname(target), { recursive: true })
        await Fs.writeFile(staging, new Uint8Array(await tarball.arrayBuffer()))
        await Fs.rename(staging, target)
      },
      catch: io(`Cannot write ${target}`)
    }).pipe(Effect.onError(() => Effect.promise(() => Fs.rm(staging, { force: true }))))
  }).pipe(Effect.scoped, Effect.withSpan("Backup.backup"))

/**
 * Replaces the embedded database of `dataDir` with the backup in `file`. Refuses (with
 * `DataDirLockError`) while a process holds the data directory. The backup is unpacked and opened
 * beside the current database first, so a bad file leaves it untouched; the current database is
 * then swapped out by renames and removed.
 */
export const restore = (file: string, dataDir: string): Effect.Effect<void, BackupError | DataDirLock.DataDirLockError> =>
  Effect.gen(function*() {
    yield* DataDirLock.acquire(dataDir)
    const source = Path.resolve(file)
    const content = yield* Effect.tryPromise({ try: () => Fs.readFile(source), catch: io(`Cannot read ${source}`) })
    const pgdata = pgDataDir(dataDir)
    const staging = `${pgdata}.restore-${unique()}`
    const previous = `${pgdata}.previous-${unique()}`
    yield* Effect.scoped(
      Effect.flatMap(
        openPglite({ dataDir: staging, loadDataDir: new Blob([content]) }, `Cannot restore ${source}`),
        (db) => Effect.tryPromise({ try: () => db.query("SELECT 1"), catch: io(`Cannot open the restored database`) })
      )
    ).pipe(
      Effect.mapError((error) =>
        new BackupError({ reason: "InvalidBackup", message: `${source} is not a usable backup: ${error.message}`, cause: error })
      ),
      Effect.onError(() => Effect.promise(() => Fs.rm(staging, { recursive: true, force: true })))
    )
    const hadDatabase = yield* exists(pgdata)
    yield* Effect.tryPromise({
      try: async () => {
        if (hadDatabase) await Fs.rename(pgdata, previous)
        try {
          await Fs.rename(staging, pgdata)
        } catch (error) {
          if (hadDatabase) await Fs.rename(previous, pgdata)
          throw error
        }
      },
      catch: io(`Cannot replace ${pgdata}`)
    })
    yield* Effect.promise(() => Fs.rm(previous, { recursive: true, force: true }))
  }).pipe(Effect.scoped, Effect.withSpan("Backup.restore"))
