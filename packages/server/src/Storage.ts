import type { SqlClient } from "@effect/sql"
import { type Configuration, Database, Logging } from "@core/kernel"
import { type Context, Effect, Layer, type Scope } from "effect"
import type { Storage as BannerStorage } from "./Banner.js"
import { type CommandFailed, failed } from "./Failure.js"
import { initDataDir } from "./internal/initDataDir.js"

/** The open database of a command. */
export type Open = Context.Context<SqlClient.SqlClient | Database.Info>

const target = (config: Configuration): string => {
  if (config.databaseUrl === undefined) return config.dataDir === undefined ? "in memory" : `in ${config.dataDir}`
  try {
    const url = new URL(config.databaseUrl)
    return `at ${url.host}${url.pathname} (DATABASE_URL)`
  } catch {
    return "at DATABASE_URL"
  }
}

const describe = (config: Configuration, error: { readonly _tag: string; readonly message?: string }): string =>
  error._tag === "DataDirLockError"
    ? error.message ?? "The data directory is locked"
    : `Cannot open the database ${target(config)}: ${Logging.redactText(error.message ?? error._tag)}`

/**
 * Open the configured database until the scope closes: PostgreSQL when `DATABASE_URL` is set,
 * else embedded PGlite under `CORE_DATA_DIR` (locked against a second process; a fresh one is
 * created in a worker thread first) or in memory — PGlite runs in a worker thread of its own, so
 * its WebAssembly never stalls the event loop (docs/decisions/0210).
 */
export const open = (config: Configuration): Effect.Effect<Open, CommandFailed, Scope.Scope> =>
  Effect.zipRight(
    config.databaseUrl === undefined && config.dataDir !== undefined ? initDataDir(config.dataDir) : Effect.void,
    Layer.build(Database.layer({ url: config.databaseUrl, dataDir: config.dataDir, thread: true })).pipe(
      Effect.mapError((error) => failed(describe(config, error)))
    )
  )

/** How the first screen names the storage. */
export const describeStorage = (config: Configuration): BannerStorage =>
  config.databaseUrl === undefined ? { _tag: "Embedded", dataDir: config.dataDir } : { _tag: "PostgreSQL" }
