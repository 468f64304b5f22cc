import * as Reactivity from "@effect/experimental/Reactivity"
import type { MigrationError } from "@effect/sql/Migrator"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { createHash, randomBytes } from "node:crypto"
import * as FsSync from "node:fs"
import * as Fs from "node:fs/promises"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Database from "../Database.js"
import type { DataDirLockError } from "../DataDirLock.js"
import * as Migrations from "../Migrations.js"
import * as PgliteClient from "../PgliteClient.js"

/**
 * The PostgreSQL server tests run against (`CORE_TEST_DATABASE_URL`, e.g.
 * `postgres://postgres@127.0.0.1:5432/test`); `undefined` means PGlite.
 */
export const url: string | undefined = process.env.CORE_TEST_DATABASE_URL || undefined

/** The driver tests run on: `"pg"` when `CORE_TEST_DATABASE_URL` is set, else `"pglite"`. */
export const driver: Database.Driver = url === undefined ? "pglite" : "pg"

const pgliteVersion = (): string => {
  const require = createRequire(import.meta.url)
  const entry = require.resolve("@electric-sql/pglite")
  return (require(Path.join(Path.dirname(entry), "..", "package.json")) as { version: string }).version
}

let initdbTarball: Promise<Blob> | undefined

/**
 * A freshly initialised PGlite cluster as a tarball, cached in the temporary directory per PGlite
 * version: `initdb` is most of a PGlite boot, and every test file runs in its own process.
 */
const initdb = (): Promise<Blob> => {
  initdbTarball ??= (async () => {
    const file = Path.join(Os.tmpdir(), `core-pglite-${pgliteVersion()}-initdb.tar`)
    const cached = await Fs.readFile(file).catch(() => undefined)
    if (cached !== undefined) return new Blob([cached])
    const db = await PGlite.create({ dataDir: "memory://" })
    const tarball = await db.dumpDataDir("none")
    await db.close()
    const staging = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`
    await Fs.writeFile(staging, new Uint8Array(await tarball.arrayBuffer()))
    await Fs.rename(staging, file)
    return tarball
  })()
  return initdbTarball
}

/**
 * The repository's migration files (`packages/<pkg>/src/migrations/*`) by name, with a hash of
 * them all, when this module runs from the repository's sources; `undefined` from a build.
 */
const migrationSources = (() => {
  let found: { readonly names: ReadonlySet<string>; readonly hash: string } | undefined | null = null
  return () => {
    if (found !== null) return found
    const packages = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
    const hash = createHash("sha256")
    const names = new Set<string>()
    try {
      for (const pkg of FsSync.readdirSync(packages).sort()) {
        const dir = Path.join(packages, pkg, "src", "migrations")
        if (!FsSync.existsSync(dir)) continue
        for (const file of FsSync.readdirSync(dir).sort()) {
          names.add(file.replace(/\.ts$/, ""))
          hash.update(`${pkg}/${file}\0`).update(FsSync.readFileSync(Path.join(dir, file))).update("\0")
        }
      }
      hash.update(FsSync.readFileSync(Path.join(packages, "kernel", "src", "Migrations.ts")))
    } catch {
      names.clear()
    }
    found = names.size === 0 ? undefined : { names, hash: hash.digest("hex") }
    return found
  }
})()

const migratedTarballs = new Map<string, Promise<Blob>>()

/**
 * The initialised cluster with `domains` already migrated, as a tarball cached in the temporary
 * directory by the content of every migration file: each test file runs in its own process and
 * would otherwise migrate its domains again (seconds of PGlite each, decision 0023). Only domains
 * whose every migration is one of the repository's files are cached (a test's own domain is
 * migrated as usual); if building fails, the plain cluster is answered and the layer's own
 * migration reports the error.
 */
const clusterFor = (domains: ReadonlyArray<Migrations.Domain>): Promise<Blob> => {
  const sources = migrationSources()
  const cacheable = sources !== undefined && domains.length > 0 &&
    domains.every((domain) => Object.keys(domain.migrations).every((name) => sources.names.has(name)))
  if (!cacheable) return initdb()
  const key = createHash("sha256").update(sources.hash).update(pgliteVersion())
    .update(domains.map((domain) => `${domain.schema}:${Object.keys(domain.migrations).join(",")}`).join(";"))
    .digest("hex").slice(0, 16)
  let pending = migratedTarballs.get(key)
  if (pending === undefined) {
    pending = (async () => {
      const file = Path.join(Os.tmpdir(), `core-pglite-${pgliteVersion()}-migrated-${key}.tar.gz`)
      const cached = await Fs.readFile(file).catch(() => undefined)
      if (cached !== undefined) return new Blob([cached])
      const tarball = await Effect.runPromise(
        Effect.flatMap(PgliteClient.PgliteClient, (client) => Effect.zipRight(Migrations.run(domains), client.dump)).pipe(
          Effect.provide(PgliteClient.layer({ dataDir: "memory://", loadDataDir: await initdb() })),
          Logger.withMinimumLogLevel(LogLevel.Warning)
        )
      )
      const staging = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`
      await Fs.writeFile(staging, new Uint8Array(await tarball.arrayBuffer()))
      await Fs.rename(staging, file)
      return tarball
    })().catch(() => initdb())
    migratedTarballs.set(key, pending)
  }
  return pending
}

const pgliteLayer = (domains: ReadonlyArray<Migrations.Domain>): Layer.Layer<SqlClient.SqlClient | Database.Info, SqlError> => Layer.unwrapEffect(
  Effect.map(
    Effect.promise(() => clusterFor(domains)),
    (tarball) =>
      PgliteClient.layer({ dataDir: "memory://", loadDataDir: tarball }).pipe(
        Layer.map(Context.add(Database.Info, { driver: "pglite", dataDir: undefined }))
      )
  )
)

const adminQuery = (admin: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(admin) }), (sql) => sql.unsafe(statement))
  ).pipe(Effect.provide(Reactivity.layer))

const withDatabase = (admin: string, database: string): string => {
  const parsed = new URL(admin)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/**
 * A new, empty PostgreSQL database `core_test_<random>` on the server of `admin` (a URL that may
 * create databases), dropped when the scope closes; answers its URL. For tests that start other
 * processes on a database of their own.
 */
export const scratchDatabase = (admin: string): Effect.Effect<string, SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const name = `core_test_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      adminQuery(admin, `CREATE DATABASE "${name}"`),
      () => adminQuery(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).pipe(Effect.orDie)
    )
    return withDatabase(admin, name)
  })

const pgLayer = (admin: string): Layer.Layer<SqlClient.SqlClient | Database.Info, SqlError | DataDirLockError> =>
  Layer.unwrapScoped(Effect.map(scratchDatabase(admin), (url) => Database.layer({ url })))

/**
 * A database of its own for a test file, migrated with `domains`: on PGlite, an in-memory
 * database started from a cached initialised cluster; on PostgreSQL (`CORE_TEST_DATABASE_URL`), a
 * new database `core_test_<random>` created from that URL and dropped when the layer is released.
 * `options.driver` picks the driver instead of the environment (see {@link drivers}).
 *
 * @example
 * layer(TestDatabase.layer([IamMigrations]))((it) => { it.effect("…", () => …) })
 */
export const layer = (
  domains: ReadonlyArray<Migrations.Domain>,
  options: { readonly driver?: Database.Driver } = {}
): Layer.Layer<SqlClient.SqlClient | Database.Info, SqlError | MigrationError | DataDirLockError> => {
  const database = (options.driver ?? driver) === "pglite" ? pgliteLayer(domains) : pgLayer(requireUrl())
  const migrate = Layer.effectDiscard(Migrations.run(domains).pipe(Logger.withMinimumLogLevel(LogLevel.Warning)))
  return Layer.provideMerge(migrate, database)
}

/**
 * The drivers to run a suite on: PGlite, and PostgreSQL as well when `CORE_TEST_DATABASE_URL` is
 * set — or PostgreSQL alone with `CORE_TEST_DRIVERS=pg` as well: CI's second pass, whose first pass
 * already ran every suite on PGlite (`.ci/run`).
 */
export const drivers: ReadonlyArray<Database.Driver> = url === undefined
  ? ["pglite"]
  : process.env.CORE_TEST_DRIVERS === "pg"
  ? ["pg"]
  : ["pglite", "pg"]

const requireUrl = (): string => {
  if (url === undefined) throw new Error("Set CORE_TEST_DATABASE_URL to test on PostgreSQL")
  return url
}
