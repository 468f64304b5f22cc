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
import * as Schedule from "effect/Schedule"
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
 * What names a database migrated with `domains` (and `salt`): the content of every migration file
 * and the domains' migration names; `undefined` when a domain has a migration that is not one of
 * the repository's files (a test's own), which is migrated as usual instead.
 */
const templateKey = (domains: ReadonlyArray<Migrations.Domain>, salt: string): string | undefined => {
  const sources = migrationSources()
  const cacheable = sources !== undefined && domains.length > 0 &&
    domains.every((domain) => Object.keys(domain.migrations).every((name) => sources.names.has(name)))
  if (!cacheable) return undefined
  return createHash("sha256").update(sources.hash).update(salt)
    .update(domains.map((domain) => `${domain.schema}:${Object.keys(domain.migrations).join(",")}`).join(";"))
    .digest("hex").slice(0, 16)
}

/**
 * The initialised cluster with `domains` already migrated, as a tarball cached in the temporary
 * directory by the content of every migration file: each test file runs in its own process and
 * would otherwise migrate its domains again (seconds of PGlite each, decision 0023). Only domains
 * whose every migration is one of the repository's files are cached (a test's own domain is
 * migrated as usual); if building fails, the plain cluster is answered and the layer's own
 * migration reports the error.
 */
const clusterFor = (domains: ReadonlyArray<Migrations.Domain>): Promise<Blob> => {
  const key = templateKey(domains, pgliteVersion())
  if (key === undefined) return initdb()
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

/** PostgreSQL's "database is being accessed by other users": a connection just closed is still leaving. */
const accessedByOthers = (error: SqlError): boolean => /being accessed by other users/.test(String(error.cause))

const templates = new Map<string, Promise<string | undefined>>()

/**
 * The name of a database on the server of `admin` migrated with `domains`, made once per migration
 * content (`core_template_<key>`, kept for the next test file and the next run; a new migration
 * makes a new key): migrating every domain takes a second or more on PostgreSQL, copying a template
 * a fraction of it. Made under a staging name and renamed, so that concurrent test files never copy
 * a half-migrated one; the loser of a race drops its copy. `undefined` when `domains` cannot be
 * cached or the template could not be made (the caller migrates an empty database instead, and the
 * migration reports any error).
 */
const pgTemplate = (admin: string, domains: ReadonlyArray<Migrations.Domain>): Promise<string | undefined> => {
  const key = templateKey(domains, "pg")
  if (key === undefined) return Promise.resolve(undefined)
  let pending = templates.get(`${admin}\0${key}`)
  if (pending === undefined) {
    const name = `core_template_${key}`
    pending = Effect.runPromise(Effect.gen(function*() {
      const found = yield* adminQuery(admin, `SELECT 1 FROM pg_database WHERE datname = '${name}'`)
      if (found.length > 0) return name
      const staging = `core_staging_${key}_${randomBytes(4).toString("hex")}`
      yield* adminQuery(admin, `CREATE DATABASE "${staging}"`)
      const made = yield* Effect.scoped(Layer.build(Database.layer({ url: withDatabase(admin, staging) }).pipe(
        Layer.tap((context) => Migrations.run(domains).pipe(Effect.provide(context), Logger.withMinimumLogLevel(LogLevel.Warning)))
      ))).pipe(
        Effect.zipRight(adminQuery(admin, `ALTER DATABASE "${staging}" RENAME TO "${name}"`).pipe(
          Effect.retry({ while: accessedByOthers, schedule: Schedule.spaced("100 millis"), times: 50 })
        )),
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      if (!made) yield* adminQuery(admin, `DROP DATABASE IF EXISTS "${staging}" WITH (FORCE)`)
      const settled = yield* adminQuery(admin, `SELECT 1 FROM pg_database WHERE datname = '${name}'`)
      return settled.length > 0 ? name : undefined
    }).pipe(Effect.catchAll(() => Effect.succeed(undefined))))
    templates.set(`${admin}\0${key}`, pending)
  }
  return pending
}

/**
 * A new PostgreSQL database `core_test_<random>` on the server of `admin` (a URL that may create
 * databases), dropped when the scope closes; answers its URL. Empty, or with `options.domains`
 * already migrated (a copy of their template, when they can be cached). For tests that start other
 * processes on a database of their own.
 */
export const scratchDatabase = (
  admin: string,
  options: { readonly domains?: ReadonlyArray<Migrations.Domain> } = {}
): Effect.Effect<string, SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const name = `core_test_${randomBytes(6).toString("hex")}`
    const template = options.domains === undefined ? undefined : yield* Effect.promise(() => pgTemplate(admin, options.domains!))
    yield* Effect.acquireRelease(
      template === undefined
        ? adminQuery(admin, `CREATE DATABASE "${name}"`)
        : adminQuery(admin, `CREATE DATABASE "${name}" TEMPLATE "${template}"`).pipe(
          Effect.retry({ while: accessedByOthers, schedule: Schedule.spaced("100 millis"), times: 50 })
        ),
      () => adminQuery(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).pipe(Effect.orDie)
    )
    return withDatabase(admin, name)
  })

const pgLayer = (
  admin: string,
  domains: ReadonlyArray<Migrations.Domain>
): Layer.Layer<SqlClient.SqlClient | Database.Info, SqlError | DataDirLockError> =>
  Layer.unwrapScoped(Effect.map(scratchDatabase(admin, { domains }), (url) => Database.layer({ url })))

/**
 * A database of its own for a test file, migrated with `domains`: on PGlite, an in-memory
 * database started from a cached initialised cluster; on PostgreSQL (`CORE_TEST_DATABASE_URL`), a
 * new database `core_test_<random>` created from that URL (a copy of the domains' template) and
 * dropped when the layer is released.
 * `options.driver` picks the driver instead of the environment (see {@link drivers}).
 *
 * @example
 * layer(TestDatabase.layer([IamMigrations]))((it) => { it.effect("…", () => …) })
 */
export const layer = (
  domains: ReadonlyArray<Migrations.Domain>,
  options: { readonly driver?: Database.Driver } = {}
): Layer.Layer<SqlClient.SqlClient | Database.Info, SqlError | MigrationError | DataDirLockError> => {
  const database = (options.driver ?? driver) === "pglite" ? pgliteLayer(domains) : pgLayer(requireUrl(), domains)
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
