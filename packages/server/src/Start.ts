import { HttpRouter } from "@effect/platform"
import { Assemble, Gateway, Metrics, RedisConnection } from "@core/gateway"
import { type Configuration, CoreConfig, Database, DataDirLock } from "@core/kernel"
import { Effect } from "effect"
import * as Banner from "./Banner.js"
import { type CommandFailed, failed } from "./Failure.js"
import * as Health from "./Health.js"
import * as Listener from "./Listener.js"
import * as Migrations from "./Migrations.js"
import * as Services from "./Services.js"
import type { DomainSettings } from "./Settings.js"
import * as Storage from "./Storage.js"
import { version } from "./Version.js"
import * as WebPages from "./WebPages.js"

/**
 * What the server answers while the database opens and migrates: `/health` and `/ready` from
 * `Health.startingRoutes`; the API has no upstreams yet, so it answers 502 envelopes.
 */
const starting = Gateway.listener({ fallback: Health.startingRoutes })

/** Refuse early, before taking the port, when another process holds the embedded data directory. */
const ensureDataDirFree = (config: Configuration): Effect.Effect<void, CommandFailed> =>
  config.databaseUrl !== undefined || config.dataDir === undefined
    ? Effect.void
    : DataDirLock.ensureFree(config.dataDir).pipe(Effect.mapError((error) => failed(error.message)))

/**
 * `core-server start`: listen on `PORT` at once (liveness answers while the database boots), open
 * the database, run every domain's migrations, then serve the gateway (with `/health` and `/ready`
 * beside it) and print the first screen; run until interrupted (SIGTERM/SIGINT), then stop
 * accepting, finish requests in flight, close the database and release the data directory.
 */
export const start = (config: Configuration): Effect.Effect<void, CommandFailed, DomainSettings> =>
  Effect.scoped(
    Effect.gen(function*() {
      yield* ensureDataDirFree(config)
      let current: Gateway.NodeListener = yield* starting
      const port = yield* Listener.listenNode((request, response) => current(request, response), { port: config.port }).pipe(
        Effect.mapError((error) => failed(error.message))
      )
      const database = yield* Storage.open(config)
      yield* Migrations.runAll.pipe(Effect.provide(database))
      const metrics = Metrics.make()
      const upstreams = yield* Services.upstreams(metrics.upstreamError).pipe(
        Effect.provide(database),
        Effect.provideService(CoreConfig, config)
      )
      const redis = config.redisUrl === undefined ? undefined : yield* RedisConnection.connect(config.redisUrl)
      const checks: ReadonlyArray<Health.ReadinessCheck> = [
        { name: "database", check: Database.ping.pipe(Effect.provide(database)) },
        ...(redis === undefined ? [] : [{ name: "redis", check: RedisConnection.ping(redis) }])
      ]
      yield* Assemble.warnIfBypass(config)
      current = yield* Assemble.listener({
        config,
        upstreams,
        metrics,
        ...(redis === undefined ? {} : { redis }),
        fallback: HttpRouter.concatAll(Health.routes(checks), Metrics.route(metrics), WebPages.routes(upstreams))
      })
      yield* Effect.sync(() =>
        process.stderr.write(Banner.firstScreen({ port, config, storage: Storage.describeStorage(config), version }))
      )
      yield* Effect.logInfo("listening").pipe(Effect.annotateLogs({ port, version }))
      return yield* Effect.never.pipe(Effect.onInterrupt(() => Effect.logInfo("shutting down")))
    })
  ).pipe(Effect.onInterrupt(() => Effect.logInfo("stopped")))
