import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { PGlite, type Results } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as PgliteThread from "./internal/pgliteThread.js"
import { elementParsers, prepareParam } from "./internal/pgTypes.js"

/**
 * An `@effect/sql` client over an in-process PGlite database: the same compiler, transactions,
 * savepoints and value types as the `pg` client (see `Database`).
 *
 * PGlite is one connection. Every query outside a transaction waits for a single permit; a
 * transaction (or `sql.reserve`) holds that permit until it ends, so a query from another fiber
 * waits for the transaction instead of interleaving with it, and queries of the transaction's own
 * fiber (which carries its connection) run on the held connection.
 *
 * With `thread: true` PGlite runs in a worker thread (docs/decisions/0210): the same client, whose
 * statements travel by messages, so PostgreSQL's WebAssembly never stalls this thread's event loop.
 */
export interface PgliteClient extends SqlClient.SqlClient {
  /**
   * The PGlite instance, for driver-specific operations; `undefined` when it runs in a worker
   * thread. Queries must go through the client.
   */
  readonly pglite: PGlite | undefined
  /** The data directory as a gzip tarball, taken while no other query runs. */
  readonly dump: Effect.Effect<Blob, SqlError>
  /** Payloads sent to `channel` with `NOTIFY`, as `PgClient.listen` gives them. */
  readonly listen: (channel: string) => Stream.Stream<string, SqlError>
  /** `NOTIFY channel, payload`. */
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>
}

/** The PGlite client, beside `SqlClient.SqlClient` in a layer built by {@link layer}. */
export const PgliteClient = Context.GenericTag<PgliteClient>("@core/kernel/PgliteClient")

/** Where and how PGlite stores its database. */
export interface PgliteClientConfig {
  /**
   * The PostgreSQL data directory (`PGDATA`) on disk; `memory://` or omitted for a database that
   * lives in memory only.
   */
  readonly dataDir?: string | undefined
  /** A tarball from `dumpDataDir` to start from (a clone); the data directory must be empty. */
  readonly loadDataDir?: Blob | undefined
  /**
   * Run PGlite in a worker thread (docs/decisions/0210): opening the database and every statement
   * run there, off this thread's event loop, at the cost of a message each way per statement.
   * @default false
   */
  readonly thread?: boolean | undefined
}

/**
 * The worker's script beside this module: `internal/pgliteWorker.ts` in the source,
 * `internal/pgliteWorker.js` in the build (tsup emits it as an entry of its own).
 */
const workerUrl = (): URL =>
  new URL(`./internal/pgliteWorker.${import.meta.url.endsWith(".ts") ? "ts" : "js"}`, import.meta.url)

const openSession = async (config: PgliteClientConfig): Promise<{ pglite?: PGlite; session: PgliteThread.PgliteSession }> => {
  const dataDir = config.dataDir ?? "memory://"
  if (config.thread === true) {
    return { session: await PgliteThread.open(workerUrl(), { dataDir, loadDataDir: config.loadDataDir }) }
  }
  const pglite = await PGlite.create({ dataDir, loadDataDir: config.loadDataDir, parsers: elementParsers })
  return { pglite, session: PgliteThread.sessionOf(pglite) }
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`

const fail = (message: string) => (cause: unknown) => new SqlError({ cause, message })

/**
 * Opens PGlite and builds the client; the database is closed when the scope closes.
 *
 * @example
 * const sql = yield* PgliteClient.make({ dataDir: "memory://" })
 */
export const make = (
  config: PgliteClientConfig
): Effect.Effect<PgliteClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const { pglite, session } = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => openSession(config),
        catch: fail("PgliteClient: failed to open the database")
      }),
      ({ session }) => Effect.promise(() => session.close()).pipe(Effect.ignore)
    )
    yield* Effect.tryPromise({
      try: () => session.exec("SET TimeZone TO 'UTC'", "object"),
      catch: fail("PgliteClient: failed to set the session time zone")
    })
    const permit = yield* Effect.makeSemaphore(1)

    const run = <A>(query: () => Promise<A>, message = "Failed to execute statement") =>
      Effect.tryPromise({ try: query, catch: fail(message) })

    const rowsOf = (results: ReadonlyArray<Results<unknown>>) =>
      results.length === 1 ? results[0].rows : results.map((result) => result.rows)

    const raw = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      params.length === 0
        ? run(() => session.exec(sql, rowMode))
        : Effect.map(run(() => session.query(sql, params.map(prepareParam), rowMode)), (result) => [result])

    const makeConnection = (exclusive: boolean): Connection => {
      const guard = <A, E>(effect: Effect.Effect<A, E>) => exclusive ? permit.withPermits(1)(effect) : effect
      const execute = (
        sql: string,
        params: ReadonlyArray<unknown>,
        transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
      ) =>
        guard(Effect.map(raw(sql, params, "object"), (results) => {
          const rows = rowsOf(results) as ReadonlyArray<any>
          return transformRows ? transformRows(rows) : rows
        }))
      return {
        execute,
        executeRaw: (sql, params) =>
          guard(Effect.map(raw(sql, params, "object"), (results) => results.length === 1 ? results[0] : results)),
        executeValues: (sql, params) =>
          guard(Effect.map(raw(sql, params, "array"), (results) => rowsOf(results) as ReadonlyArray<any>)),
        executeUnprepared: execute,
        executeStream: (sql, params, transformRows) =>
          Stream.fromIterableEffect(execute(sql, params, transformRows))
      }
    }

    const pooled = makeConnection(true)
    const held = makeConnection(false)
    const reserve: Effect.Effect<Connection, never, Scope.Scope> = Effect.flatMap(
      Effect.serviceOption(SqlClient.TransactionConnection),
      Option.match({
        onSome: ([connection]) => Effect.succeed(connection),
        onNone: () => Effect.as(Effect.acquireRelease(permit.take(1), () => permit.release(1)), held)
      })
    )

    const listening = new Map<string, number>()
    const stop = (channel: string, off: () => void): boolean => {
      off()
      const listeners = (listening.get(channel) ?? 1) - 1
      if (listeners === 0) listening.delete(channel)
      else listening.set(channel, listeners)
      return listeners === 0
    }

    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(pooled),
      transactionAcquirer: reserve,
      compiler: PgClient.makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", "pglite"]]
    })

    return Object.assign(client, {
      pglite,
      dump: permit.withPermits(1)(run(() => session.dumpDataDir("gzip"), "PgliteClient: failed to dump the database")),
      listen: (channel: string) =>
        Stream.asyncPush<string, SqlError>((emit) =>
          Effect.acquireRelease(
            Effect.suspend(() => {
              const off = session.onNotification((name, payload) => name === channel && payload && emit.single(payload))
              const listeners = listening.get(channel) ?? 0
              listening.set(channel, listeners + 1)
              const start = listeners === 0 ? client.unsafe(`LISTEN ${quote(channel)}`) : Effect.void
              return start.pipe(Effect.as(off), Effect.onError(() => Effect.sync(() => stop(channel, off))))
            }),
            (off) =>
              stop(channel, off) ? client.unsafe(`UNLISTEN ${quote(channel)}`).pipe(Effect.ignore) : Effect.void
          )
        ),
      notify: (channel: string, payload: string) =>
        client`SELECT pg_notify(${channel}, ${payload})`.pipe(Effect.asVoid)
    })
  })

/**
 * A layer of the PGlite client as both {@link PgliteClient} and `SqlClient.SqlClient`.
 *
 * @example
 * Layer.provide(MyRepo.Default, PgliteClient.layer({ dataDir: "memory://" }))
 */
export const layer = (config: PgliteClientConfig): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) => Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client)))
  ).pipe(Layer.provide(Reactivity.layer))
