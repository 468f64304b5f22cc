import { Gateway } from "@core/gateway"
import { type Configuration, CoreConfig, Database } from "@core/kernel"
import { Effect } from "effect"
import * as Banner from "./Banner.js"
import { type CommandFailed, failed } from "./Failure.js"
import * as Health from "./Health.js"
import * as Listener from "./Listener.js"
import * as Migrations from "./Migrations.js"
import * as Services from "./Services.js"
import * as Storage from "./Storage.js"
import { version } from "./Version.js"

/**
 * `core-server start`: open the database, run every domain's migrations, serve the gateway (with
 * `/health` and `/ready` beside it) on `PORT`, print the first screen, and run until interrupted
 * (SIGTERM/SIGINT); then stop accepting, finish requests in flight, close the database and
 * release the data directory.
 */
export const start = (config: Configuration): Effect.Effect<void, CommandFailed> =>
  Effect.scoped(
    Effect.gen(function*() {
      const database = yield* Storage.open(config)
      yield* Migrations.runAll.pipe(Effect.provide(database))
      const upstreams = yield* Services.upstreams.pipe(
        Effect.provide(database),
        Effect.provideService(CoreConfig, config)
      )
      const checks: ReadonlyArray<Health.ReadinessCheck> = [
        { name: "database", check: Database.ping.pipe(Effect.provide(database)) }
      ]
      const app = Gateway.make({ upstreams, fallback: Health.routes(checks) })
      const port = yield* Listener.listen(app, { port: config.port }).pipe(
        Effect.mapError((error) => failed(error.message))
      )
      yield* Effect.sync(() =>
        process.stderr.write(Banner.firstScreen({ port, config, storage: Storage.describeStorage(config), version }))
      )
      yield* Effect.logInfo("listening").pipe(Effect.annotateLogs({ port, version }))
      return yield* Effect.never.pipe(Effect.onInterrupt(() => Effect.logInfo("shutting down")))
    })
  ).pipe(Effect.onInterrupt(() => Effect.logInfo("stopped")))
