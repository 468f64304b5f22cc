import { PGlite } from "@electric-sql/pglite"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { createHmac, randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { promisify } from "node:util"
import * as Zlib from "node:zlib"
import { pgDataDir } from "./Database.js"
import * as DataDirLock from "./DataDirLock.js"
import * as Tar from "./internal/tarArchive.js"

/**
 * A backup or restore failed: no database to back up, an unreadable file, a bad tarball, or a
 * backup written under another `CORE_SECRET` (its data would be unreadable).
 */
export class BackupError extends Data.TaggedError("BackupError")<{
  readonly reason: "NoDatabase" | "Io" | "InvalidBackup" | "SecretMismatch"
  readonly message: string
  readonly cause?: unknown
}> {}

const io = (message: string) => (cause: unknown) =>
  new BackupError({ reason: "Io", message: `${message}: ${(cause as Error)?.message ?? String(cause)}`, cause })

const unique = () => `${process.pid}-${randomBytes(4).toString("hex")}`

const gzip = promisify(Zlib.gzip)
const gunzip = promisify(Zlib.gunzip)

/** The member of an archive that describes it; never part of the database. */
export const MANIFEST = "core-backup.json"

/** What `core-backup.json` says: the format, when, and a fingerprint of the secret in use. */
export interface Manifest {
  readonly format: 1
  readonly createdAt: string
  /** `secretCheck` of the `CORE_SECRET` the data was written with (not the secret). */
  readonly secretCheck?: string
}

/**
 * A fingerprint of a secret that tells whether two secrets are the same without revealing either
 * (HMAC-SHA-256 of a fixed label, 16 hex digits).
 */
export const secretCheck = (secret: string): string =>
  createHmac("sha256", secret).update("core backup secret check").digest("hex").slice(0, 16)

/** Member names relative to the database folder; refuses a name that climbs out of it. */
const relativeMembers = (members: ReadonlyArray<Tar.Member>): Array<Tar.Member> =>
  members.flatMap((member) => {
    const name = member.name.replace(/^\/+/, "")
    if (name.split("/").includes("..")) throw new Error(`member ${JSON.stringify(member.name)} leaves the database folder`)
    return name === "" ? [] : [name === member.name ? member : Tar.rename(member, name)]
  })

const exists = (path: string) =>
  Effect.promise(() => Fs.stat(path).then(() => true, () => false))

const openPglite = (options: { dataDir: string; loadDataDir?: Blob }, message: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => PGlite.create(options), catch: io(message) }),
    (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
  )

/**
 * Writes the embedded database of `dataDir` to `file` as a gzip tarball (`PGlite.dumpDataDir`),
 * members named relative to the database folder, with `core-backup.json` (the `secretCheck` of
 * `options.secret`). The database must be closed: the data directory is locked for the duration,
 * so this fails with `DataDirLockError` while a server runs on it. The file is written atomically,
 * readable by its owner only (0600): it holds every account's data.
 */
export const backup = (
  dataDir: string,
  file: string,
  options: { readonly secret?: string } = {}
): Effect.Effect<void, BackupError | DataDirLock.DataDirLockError> =>
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
    const tarball = yield* Effect.tryPromise({ try: () => db.dumpDataDir("none"), catch: io("Cannot dump the database") })
    const manifest: Manifest = {
      format: 1,
      createdAt: new Date().toISOString(),
      ...(options.secret === undefined ? {} : { secretCheck: secretCheck(options.secret) })
    }
    const archive = yield* Effect.tryPromise({
      try: async () => {
        const members = relativeMembers(Tar.read(new Uint8Array(await tarball.arrayBuffer())))
        members.push(Tar.file(MANIFEST, new TextEncoder().encode(JSON.stringify(manifest))))
        return gzip(Tar.write(members))
      },
      catch: io("Cannot dump the database")
    })
    const target = Path.resolve(file)
    const staging = `${target}.${unique()}.partial`
    yield* Effect.tryPromise({
      try: async () => {
        await Fs.mkdir(Path.dirname(target), { recursive: true })
        await Fs.writeFile(staging, archive, { mode: 0o600 })
        await Fs.chmod(staging, 0o600)
        await Fs.rename(staging, target)
      },
      catch: io(`Cannot write ${target}`)
    }).pipe(Effect.onError(() => Effect.promise(() => Fs.rm(staging, { force: true }))))
  }).pipe(Effect.scoped, Effect.withSpan("Backup.backup"))

/** What a restore did. */
export interface Restored {
  /** Where the replaced database was kept (`keepPrevious`), if there was one. */
  readonly previous: string | undefined
  /** The archive's `core-backup.json`, absent from backups written before it existed. */
  readonly manifest: Manifest | undefined
}

/** How to restore: the secret in use (checked against the archive's), and whether to keep the replaced database. */
export interface RestoreOptions {
  readonly secret?: string
  /** Keep the replaced database beside it as `pgdata.before-restore-<time>`. @default false */
  readonly keepPrevious?: boolean
}

const unpack = (content: Uint8Array): Promise<{ readonly members: Array<Tar.Member>; readonly manifest: Manifest | undefined }> =>
  (content[0] === 0x1f && content[1] === 0x8b ? gunzip(content) : Promise.resolve(content)).then((archive) => {
    const all = relativeMembers(Tar.read(new Uint8Array(archive.buffer, archive.byteOffset, archive.byteLength)))
    if (!all.some((member) => member.name === "PG_VERSION")) throw new Error("it holds no PG_VERSION")
    const found = all.find((member) => member.name === MANIFEST)
    const manifest = found === undefined ? undefined : (JSON.parse(new TextDecoder().decode(found.data)) as Manifest)
    return { members: all.filter((member) => member !== found), manifest }
  })

/**
 * Replaces the embedded database of `dataDir` with the backup in `file`. Refuses (with
 * `DataDirLockError`) while a process holds the data directory, and (`SecretMismatch`) a backup
 * written under another secret than `options.secret`. The backup is unpacked and opened beside the
 * current database first, so a bad file leaves it untouched; the current database is then swapped
 * out by renames and removed, or kept as `pgdata.before-restore-<time>` with `keepPrevious`.
 */
export const restore = (
  file: string,
  dataDir: string,
  options: RestoreOptions = {}
): Effect.Effect<Restored, BackupError | DataDirLock.DataDirLockError> =>
  Effect.gen(function*() {
    yield* DataDirLock.acquire(dataDir)
    const source = Path.resolve(file)
    const content = yield* Effect.tryPromise({ try: () => Fs.readFile(source), catch: io(`Cannot read ${source}`) })
    const { manifest, members } = yield* Effect.tryPromise({
      try: () => unpack(content),
      catch: (cause) =>
        new BackupError({ reason: "InvalidBackup", message: `${source} is not a usable backup: ${(cause as Error).message}`, cause })
    })
    if (options.secret !== undefined && manifest?.secretCheck !== undefined && manifest.secretCheck !== secretCheck(options.secret)) {
      return yield* new BackupError({
        reason: "SecretMismatch",
        message: `${source} was written under another CORE_SECRET, without which its data is unreadable: ` +
          "set CORE_SECRET to the secret in use when it was written (in development, copy that data directory's " +
          `secret file to ${Path.join(Path.resolve(dataDir), "secret")})`
      })
    }
    const pgdata = pgDataDir(dataDir)
    const staging = `${pgdata}.restore-${unique()}`
    const previous = options.keepPrevious === true
      ? `${pgdata}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`
      : `${pgdata}.previous-${unique()}`
    yield* Effect.scoped(
      Effect.flatMap(
        openPglite({ dataDir: staging, loadDataDir: new Blob([Tar.write(members)]) }, `Cannot restore ${source}`),
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
    if (options.keepPrevious !== true) yield* Effect.promise(() => Fs.rm(previous, { recursive: true, force: true }))
    return { previous: hadDatabase && options.keepPrevious === true ? previous : undefined, manifest }
  }).pipe(Effect.scoped, Effect.withSpan("Backup.restore"))
