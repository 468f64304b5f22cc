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

/** How {@link run} runs. */
export interface RunOptions {
  /**
   * Apply a migration that was never applied although one numbered above it was (a branch merged
   * late), instead of refusing to start (`CORE_MIGRATIONS_OUT_OF_ORDER`, Flyway's `outOfOrder`).
   * @default false
   */
  readonly outOfOrder?: boolean
  /** Told after each migration is applied, with the count of the whole run (a progress line). */
  readonly onProgress?: (progress: Progress) => void
}

/** Where a run is: `done` of `total` migrations applied, the last one `schema`/`migration`. */
export interface Progress {
  readonly done: number
  readonly total: number
  readonly schema: string
  readonly migration: string
}

interface Step {
  readonly id: number
  readonly name: string
  readonly effect: Migration
}

/** A domain's migrations to apply: `late` are numbered below the newest one applied. */
interface Plan {
  readonly domain: Domain
  readonly pending: ReadonlyArray<Step>
  readonly late: ReadonlyArray<Step>
  readonly newest: { readonly id: number; readonly name: string } | undefined
}

const label = (id: number, name: string) => `${String(id).padStart(4, "0")}_${name}`

const stepsOf = (domain: Domain): ReadonlyArray<Step> =>
  Object.entries(domain.migrations)
    .flatMap(([key, effect]) => {
      const found = /^(\d+)_(.+)$/.exec(key)
      return found === null ? [] : [{ id: Number(found[1]), name: found[2], effect }]
    })
    .sort((a, b) => a.id - b.id)

/** What a domain has applied, from its table (none when the table does not exist yet). */
const planOf = (sql: SqlClient.SqlClient, domain: Domain) =>
  Effect.gen(function*() {
    const [{ present }] = yield* sql<{ present: boolean }>`SELECT to_regclass(${table(domain.schema)}) IS NOT NULL AS present`
    const rows = present
      ? yield* sql<{ migration_id: number; name: string }>`SELECT migration_id, name FROM ${sql(table(domain.schema))} ORDER BY migration_id`
        .withoutTransform
      : []
    const applied = new Set(rows.map((row) => Number(row.migration_id)))
    const newestRow = rows.at(-1)
    const newest = newestRow === undefined ? undefined : { id: Number(newestRow.migration_id), name: newestRow.name }
    const pending = stepsOf(domain).filter((step) => !applied.has(step.id))
    return { domain, pending, late: pending.filter((step) => newest !== undefined && step.id < newest.id), newest } satisfies Plan
  })

const refuseLate = (plans: ReadonlyArray<Plan>) => {
  const late = plans.flatMap((plan) =>
    plan.late.map((step) =>
      `${plan.domain.schema}/${label(step.id, step.name)} (below ${plan.domain.schema}/${label(plan.newest!.id, plan.newest!.name)})`
    )
  )
  return late.length === 0 ? Effect.void : Effect.fail(
    new Migrator.MigrationError({
      reason: "bad-state",
      message: `${late.length === 1 ? "A migration was" : "Migrations were"} never applied although a later one was: ` +
        `${late.join(", ")}. Renumber ${late.length === 1 ? "it" : "them"} after the newest applied, ` +
        "or set CORE_MIGRATIONS_OUT_OF_ORDER=true to apply them out of order"
    })
  )
}

/** Apply the late migrations of a domain ourselves (the Migrator skips ids below its newest): in one transaction. */
const applyLate = (sql: SqlClient.SqlClient, plan: Plan, wrap: (step: Step) => Migration) =>
  plan.late.length === 0 ? Effect.void : sql.withTransaction(
    Effect.forEach(plan.late, (step) =>
      wrap(step).pipe(
        Effect.mapError((cause) =>
          new Migrator.MigrationError({ cause, reason: "failed", message: `Migration "${step.id}_${step.name}" failed` })
        ),
        Effect.zipRight(
          sql`INSERT INTO ${sql(table(plan.domain.schema))} ${sql.insert({ migration_id: step.id, name: step.name })}`.withoutTransform
        )
      ), { discard: true })
  )

const migrateDomain = (sql: SqlClient.SqlClient, plan: Plan, wrap: (step: Step) => Migration) =>
  Effect.gen(function*() {
    const { domain } = plan
    yield* applyLate(sql, plan, wrap)
    const late = new Set(plan.late.map((step) => step.id))
    const rest = Object.fromEntries(
      stepsOf(domain).filter((step) => !late.has(step.id)).map((step) => [`${step.id}_${step.name}`, wrap(step)])
    )
    const applied = [
      ...plan.late.map((step) => [step.id, step.name] as const),
      ...yield* Migrator.make({})({ loader: Migrator.fromRecord(rest), table: table(domain.schema) })
    ]
    yield* Effect.forEach(applied, ([id, name]) =>
      Effect.logInfo("migration applied").pipe(
        Effect.annotateLogs({ schema: domain.schema, migration: label(id, name) })
      ), { discard: true })
    return applied.map(([id, name]): Applied => ({ schema: domain.schema, id, name }))
  }).pipe(
    Effect.provideService(SqlClient.SqlClient, sql),
    Effect.withSpan("Migrations.domain", { attributes: { schema: plan.domain.schema } })
  )

/**
 * Brings every domain's schema up to date, in order: creates the schema when absent and runs its
 * pending migrations, recording them in `<schema>.migrations`. The whole run holds a PostgreSQL
 * advisory lock on one reserved connection, so instances that start together migrate one after
 * the other and each migration is applied exactly once. Same code path on PGlite and PostgreSQL.
 *
 * A migration numbered below one already applied in its domain (the Migrator alone would skip it
 * for good) stops the run before anything is applied, with a message naming it — unless
 * `outOfOrder` is set, which applies it first (docs/decisions/0584).
 */
export const run = (
  domains: ReadonlyArray<Domain>,
  options: RunOptions = {}
): Effect.Effect<ReadonlyArray<Applied>, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    yield* checkSchemas(domains)
    const pool = yield* SqlClient.SqlClient
    const connection = yield* pool.reserve
    const sql = yield* onConnection(connection)
    const unlock = sql`SELECT pg_advisory_unlock(${lockKey})`.pipe(Effect.ignore)
    const migrate = Effect.gen(function*() {
      const plans = yield* Effect.forEach(domains, (domain) =>
        sql`CREATE SCHEMA IF NOT EXISTS ${sql(domain.schema)}`.pipe(Effect.zipRight(planOf(sql, domain))))
      if (options.outOfOrder !== true) yield* refuseLate(plans)
      const total = plans.reduce((sum, plan) => sum + plan.pending.length, 0)
      let done = 0
      const wrap = (schema: string) => (step: Step): Migration =>
        options.onProgress === undefined ? step.effect : Effect.tap(step.effect, () =>
          Effect.sync(() => options.onProgress!({ done: ++done, total, schema, migration: label(step.id, step.name) })))
      return yield* Effect.forEach(plans, (plan) => migrateDomain(sql, plan, wrap(plan.domain.schema)))
    })
    return yield* sql`SELECT pg_advisory_lock(${lockKey})`.pipe(
      Effect.zipRight(migrate),
      Effect.map((applied) => applied.flat()),
      Effect.ensuring(unlock)
    )
  }).pipe(Effect.scoped, Effect.withSpan("Migrations.run"))

/** A layer that runs {@link run} when it is built (at start-up). */
export const layer = (
  domains: ReadonlyArray<Domain>,
  options: RunOptions = {}
): Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient.SqlClient> => Layer.effectDiscard(run(domains, options))
