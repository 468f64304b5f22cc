import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A migration: SQL run once, in a transaction, with the migrating connection as `SqlClient`. */
export type Migration = Effect.Effect<void, unknown, SqlClient.SqlClient>

/**
 * A domain's migrations: its PostgreSQL schema and its migrations keyed `NNNN_name` (the number
 * orders them and is recorded once applied).
 *
 * @example
 * const iam: Migrations.Domain = {
 *   schema: "iam",
 *   migrations: { "0001_users": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE iam.users (id text PRIMARY KEY)`) }
 * }
 */
export interface Domain {
  readonly schema: string
  readonly migrations: Readonly<Record<string, Migration>>
}

/** A migration applied by {@link run}. */
export interface Applied {
  readonly schema: string
  readonly id: number
  readonly name: string
}

/** The key of the session-level advisory lock held while migrating (`'core'` in ASCII). */
export const lockKey = 0x636f7265

/** The migrations table of a schema: each domain records its own, so none loses another's. */
export const table = (schema: string): string => `${schema}.migrations`

const validSchema = /^[a-z_][a-z0-9_]*$/

const checkSchemas = (domains: ReadonlyArray<Domain>) =>
  Effect.forEach(domains, ({ schema }) =>
    validSchema.test(schema)
      ? Effect.void
      : Effect.fail(
        new Migrator.MigrationError({
          reason: "bad-state",
          message: `Invalid schema name "${schema}": use lower-case letters, digits and underscores`
        })
      ), { discard: true })

const onConnection = (connection: Connection) =>
  SqlClient.make({
    acquirer: Effect.succeed(connection),
    compiler: PgClient.makeCompiler(),
    spanAttributes: [["db.system.name", "postgresql"]]
  }).pipe(Effect.provide(Reactivity.layer))

const migrateDomain = (sql: SqlClient.SqlClient, domain: Domain) =>
  Effect.gen(function*() {
    yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(domain.schema)}`
    const applied = yield* Migrator.make({})({
      loader: Migrator.fromRecord(domain.migrations),
      table: table(domain.schema)
    })
    yield* Effect.forEach(applied, ([id, name]) =>
      Effect.logInfo("migration applied").pipe(
        Effect.annotateLogs({ schema: domain.schema, migration: `${String(id).padStart(4, "0")}_${name}` })
      ), { discard: true })
    return applied.map(([id, name]): Applied => ({ schema: domain.schema, id, name }))
  }).pipe(
    Effect.provideService(SqlClient.SqlClient, sql),
    Effect.withSpan("Migrations.domain", { attributes: { schema: domain.schema } })
  )

/**
 * Brings every domain's schema up to date, in order: creates the schema when absent and runs its
 * pending migrations, recording them in `<schema>.migrations`. The whole run holds a PostgreSQL
 * advisory lock on one reserved connection, so instances that start together migrate one after
 * the other and each migration is applied exactly once. Same code path on PGlite and PostgreSQL.
 */
export const run = (
  domains: ReadonlyArray<Domain>
): Effect.Effect<ReadonlyArray<Applied>, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    yield* checkSchemas(domains)
    const pool = yield* SqlClient.SqlClient
    const connection = yield* pool.reserve
    const sql = yield* onConnection(connection)
    const unlock = sql`SELECT pg_advisory_unlock(${lockKey})`.pipe(Effect.ignore)
    return yield* sql`SELECT pg_advisory_lock(${lockKey})`.pipe(
      Effect.zipRight(Effect.forEach(domains, (domain) => migrateDomain(sql, domain))),
      Effect.map((applied) => applied.flat()),
      Effect.ensuring(unlock)
    )
  }).pipe(Effect.scoped, Effect.withSpan("Migrations.run"))

/** A layer that runs {@link run} when it is built (at start-up). */
export const layer = (
  domains: ReadonlyArray<Domain>
): Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient.SqlClient> => Layer.effectDiscard(run(domains))
