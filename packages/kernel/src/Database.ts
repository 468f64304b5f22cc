import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Path from "node:path"
import * as DataDirLock from "./DataDirLock.js"
import * as DatabaseFailure from "./internal/databaseFailure.js"
import { type ListenEvent, listenWithReconnect } from "./internal/pgListener.js"
import { pgTypes } from "./internal/pgTypes.js"
import * as PgliteClient from "./PgliteClient.js"

/** The database driver in use: PostgreSQL over the network, or embedded PGlite. */
export type Driver = "pg" | "pglite"

/** Which driver serves the `SqlClient`, and where PGlite keeps its data. */
export class Info extends Context.Tag("@core/kernel/Database/Info")<Info, {
  readonly driver: Driver
  /** The data directory of PGlite; `undefined` for PostgreSQL or an in-memory PGlite. */
  readonly dataDir: string | undefined
}>() {}

/** How to reach the database. */
export interface Options {
  /** A PostgreSQL connection URL (`postgres://…`); when absent, PGlite is used. */
  readonly url?: string | Redacted.Redacted<string> | undefined
  /**
   * The data directory of the embedded database (PGlite keeps PostgreSQL's files in its
   * `pgdata` folder and the directory holds `core.lock` while open). `memory://` or omitted: a
   * database in memory that disappears with the process.
   */
  readonly dataDir?: string | undefined
  /**
   * Run embedded PGlite in a worker thread, off the event loop (docs/decisions/0210): the server
   * does, so that opening the database and the migrations never stall its requests. Ignored with
   * `url`. @default false
   */
  readonly thread?: boolean | undefined
}

/** The default data directory (`CORE_DATA_DIR`). */
export const defaultDataDir = "./.core/data"

/** The folder of a data directory where PGlite keeps PostgreSQL's files. */
export const pgDataDir = (dataDir: string): string => Path.join(Path.resolve(dataDir), "pgdata")

const isMemory = (dataDir: string | undefined): dataDir is undefined | "memory://" =>
  dataDir === undefined || dataDir === "memory://"

/**
 * Adds `-c TimeZone=UTC` to the connection's startup options, so that PostgreSQL sessions compute
 * dates in UTC as PGlite does.
 */
const withUtcSessions = (url: string): string => {
  try {
    const parsed = new URL(url)
    const options = parsed.searchParams.get("options") ?? ""
    if (/TimeZone=/i.test(options)) return url
    parsed.searchParams.set("options", `${options} -c TimeZone=UTC`.trim())
    return parsed.toString()
  } catch {
    return url
  }
}

/** Where the PostgreSQL driver connects: `listen` opens its own connection there. */
class PgAddress extends Context.Tag("@core/kernel/Database/PgAddress")<PgAddress, Redacted.Redacted<string>>() {}

const pgLayer = (url: Redacted.Redacted<string>) =>
  PgClient.layer({
    url: Redacted.make(withUtcSessions(Redacted.value(url))),
    types: pgTypes,
    applicationName: "core"
  }).pipe(Layer.map((context) => Context.add(Context.add(context, Info, { driver: "pg", dataDir: undefined }), PgAddress, url)))

const pgliteLayer = (dataDir: string | undefined, thread: boolean | undefined) =>
  isMemory(dataDir)
    ? PgliteClient.layer({ dataDir: "memory://", thread }).pipe(
      Layer.map(Context.add(Info, { driver: "pglite", dataDir: undefined }))
    )
    : Layer.unwrapScoped(
      Effect.as(
        DataDirLock.acquire(dataDir),
        PgliteClient.layer({ dataDir: pgDataDir(dataDir), thread }).pipe(
          Layer.map(Context.add(Info, { driver: "pglite", dataDir: Path.resolve(dataDir) }))
        )
      )
    )

/**
 * The database: `@effect/sql-pg` when `url` is given, otherwise embedded PGlite under `dataDir`
 * (locked against a second process), in a worker thread with `thread`. Both read values alike (decision 0010) and compile SQL
 * with the PostgreSQL dialect.
 *
 * @example
 * Database.layer({ url: process.env.DATABASE_URL, dataDir: "./.core/data" })
 */
export const layer = (
  options: Options
): Layer.Layer<SqlClient.SqlClient | Info, SqlError | DataDirLock.DataDirLockError> => {
  const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
  return url === undefined || url === "" ? pgliteLayer(options.dataDir, options.thread) : pgLayer(Redacted.make(url))
}

/**
 * {@link layer} configured from the environment: `DATABASE_URL` (PostgreSQL when set) and
 * `CORE_DATA_DIR` (default `./.core/data`).
 */
export const layerConfig: Layer.Layer<
  SqlClient.SqlClient | Info,
  SqlError | DataDirLock.DataDirLockError | ConfigError.ConfigError
> = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      url: Config.option(Config.redacted("DATABASE_URL")),
      dataDir: Config.withDefault(Config.nonEmptyString("CORE_DATA_DIR"), defaultDataDir)
    }),
    ({ dataDir, url }) => layer({ url: Option.getOrUndefined(url), dataDir })
  )
)

/**
 * The database's own message of the statements that failed in a cause, for a log line: SQLSTATE
 * and message (`22P02 invalid input syntax for type json`), quoted values elided, never the
 * statement's parameters; `undefined` when none failed. The drivers' `SqlError` says only
 * "Failed to execute statement" (decision 0187).
 */
export const failureOf = DatabaseFailure.failureOf

/**
 * Why `cause` failed because the database could not be reached (`ECONNREFUSED`, `57P01`,
 * `connection lost`) — never its address — or `undefined` when a statement failed instead.
 */
export const unreachableOf = DatabaseFailure.unreachableOf

/**
 * The log line of a background loop's failed turn (a worker, a flush, a tick): while the database
 * cannot be reached, one warning naming the reason — never the address, host or stack the driver's
 * error carries; any other failure, at `level`, with its cause and the failed statement's own message.
 */
export const logFailure = (
  message: string,
  cause: Cause.Cause<unknown>,
  level: "Warning" | "Error" = "Error"
): Effect.Effect<void> => {
  const unreachable = DatabaseFailure.unreachableOf(cause)
  if (unreachable !== undefined) {
    return Effect.logWarning(`${message}: database unavailable`).pipe(Effect.annotateLogs({ reason: unreachable }))
  }
  const database = DatabaseFailure.failureOf(cause)
  const line = level === "Error" ? Effect.logError(message, cause) : Effect.logWarning(message, cause)
  return database === undefined ? line : line.pipe(Effect.annotateLogs({ database }))
}

/** Readiness: the database answers `SELECT 1`. */
export const ping: Effect.Effect<void, SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`SELECT 1`
).pipe(Effect.asVoid, Effect.withSpan("Database.ping"))

/** What `subscribe` emits: a notification's payload, or that the listener is (again) listening. */
export type { ListenEvent }

/**
 * What is sent to `channel` (`NOTIFY` / {@link notify}) while the stream runs, on either driver: on
 * PostgreSQL a connection of its own, opened again with backoff whenever it is lost (decision
 * 0331); on PGlite the shared one. It emits `listening` once listening and again, with
 * `reconnected: true`, after each reconnection (what was sent meanwhile was not heard). Empty
 * payloads are skipped.
 */
export const subscribe = (channel: string): Stream.Stream<ListenEvent, SqlError, SqlClient.SqlClient> =>
  Stream.unwrap(Effect.gen(function*() {
    const address = yield* Effect.serviceOption(PgAddress)
    if (Option.isSome(address)) return listenWithReconnect(withUtcSessions(Redacted.value(address.value)), channel)
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    const pglite = yield* Effect.serviceOption(PgliteClient.PgliteClient)
    const payloads: Stream.Stream<string, SqlError> | undefined = Option.isSome(pg)
      ? pg.value.listen(channel)
      : Option.isSome(pglite)
      ? pglite.value.listen(channel)
      : undefined
    if (payloads === undefined) return yield* Effect.dieMessage("Database.listen needs the SqlClient of Database.layer")
    const listening: ListenEvent = { _tag: "listening", reconnected: false }
    return Stream.concat(Stream.succeed(listening), Stream.map(payloads, (payload): ListenEvent => ({ _tag: "payload", payload })))
  }))

/** The payloads sent to `channel` while the stream runs ({@link subscribe} without its `listening` events). */
export const listen = (channel: string): Stream.Stream<string, SqlError, SqlClient.SqlClient> =>
  subscribe(channel).pipe(Stream.filterMap((event) => event._tag === "payload" ? Option.some(event.payload) : Option.none()))

/** Sends `payload` to the listeners of `channel` (at commit, inside a transaction). */
export const notify = (channel: string, payload: string): Effect.Effect<void, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_notify(${channel}, ${payload})`).pipe(
    Effect.asVoid,
    Effect.withSpan("Database.notify", { attributes: { channel } })
  )
