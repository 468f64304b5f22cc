import { HttpRouter } from "@effect/platform"
import { Assemble, Gateway, Metrics, RedisConnection } from "@core/gateway"
import { type Configuration, CoreConfig, Database, DataDirLock } from "@core/kernel"
import { LocalEdge, LocalPages } from "@core/provisioning"
import { VaultRenderer } from "@core/vault"
import { OAuthRenderer } from "@core/auth"
import { GATEWAY_PREFIXES } from "@core/contracts"
import { Duration, Effect } from "effect"
import * as Banner from "./Banner.js"
import { type CommandFailed, failed } from "./Failure.js"
import * as Health from "./Health.js"
import * as Listener from "./Listener.js"
import * as Migrations from "./Migrations.js"
import * as MetricsPort from "./MetricsPort.js"
import * as RequestUsageLive from "./RequestUsageLive.js"
import { ServerConfig } from "./ServerConfig.js"
import * as Services from "./Services.js"
import * as SitesForwarding from "./SitesForwarding.js"
import type { DomainSettings } from "./Settings.js"
import * as Startup from "./Startup.js"
import * as Storage from "./Storage.js"
import * as Terminal from "./Terminal.js"
import { version } from "./Version.js"
import * as WebPages from "./WebPages.js"

/**
 * What answers `/health` and `/ready` while the database opens and migrates (`Health.startingRoutes`);
 * every other request waits in the start-up gate (docs/decisions/0202).
 */
const probes = Gateway.listener({ fallback: Health.startingRoutes })

/** Refuse early, before taking the port, when another process holds the embedded data directory. */
const ensureDataDirFree = (config: Configuration): Effect.Effect<void, CommandFailed> =>
  config.databaseUrl !== undefined || config.dataDir === undefined
    ? Effect.void
    : DataDirLock.ensureFree(config.dataDir).pipe(Effect.mapError((error) => failed(error.message)))

/**
 * The configuration once the port is bound: with `PORT=0` the system chose the port, and a public
 * URL that was not configured (the default `http://localhost:<PORT>`) follows it, so mailed links,
 * redirects and origin checks name the port the server answers on, not `http://localhost:0`.
 */
export const boundConfig = (config: Configuration, port: number): Configuration =>
  config.port === port
    ? config
    : {
      ...config,
      port,
      publicUrl: config.publicUrl === `http://localhost:${config.port}` ? `http://localhost:${port}` : config.publicUrl
    }

/**
 * Once SIGTERM or SIGINT interrupts the server: stop accepting, let the requests in flight finish
 * (bounded by the grace period), and only then let the scope close what they use — the services
 * (a worker releases its job leases there), Redis, and last the database (docs/decisions/0200).
 */
const shutdown = (bound: Listener.Bound, gate: Startup.Gate, screen: Terminal.Screen) =>
  Effect.gen(function*() {
    const started = performance.now()
    const inFlight = bound.inFlight()
    screen.clear()
    if (screen.interactive) screen.line(`Stopping: answering ${inFlight === 1 ? "the request" : `the ${inFlight} requests`} in flight, then closing the database…`)
    yield* Effect.logInfo("shutting down").pipe(Effect.annotateLogs({ inFlight }))
    gate.close()
    yield* bound.close
    yield* Effect.logInfo("requests drained").pipe(
      Effect.annotateLogs({ durationMs: Math.round(performance.now() - started), cut: bound.inFlight() })
    )
  })

/**
 * `core-server start`: listen on `PORT` at once (liveness answers while the database boots, API
 * requests wait for readiness), open the database, run every domain's migrations, then serve the
 * gateway (with `/health` and `/ready` beside it) and print the first screen; run until
 * interrupted (SIGTERM/SIGINT), then stop accepting, finish requests in flight, close the services
 * and the database and release the data directory.
 */
export const start = (configured: Configuration): Effect.Effect<void, CommandFailed, DomainSettings> =>
  Effect.scoped(
    Effect.gen(function*() {
      yield* ensureDataDirFree(configured)
      const settings = yield* ServerConfig
      const screen = yield* Terminal.Terminal
      const gate = Startup.make({ probes: yield* probes, waitMs: settings.startupWaitMs })
      const bound = yield* Listener.listenNode(gate.listener, {
        port: configured.port,
        grace: Duration.millis(settings.shutdownGraceMs),
        bodyTimeout: Duration.millis(settings.bodyTimeoutMs),
        maxConnections: settings.maxConnections
      }).pipe(Effect.mapError((error) => failed(error.message)))
      const port = bound.port
      const config = boundConfig(configured, port)
      yield* Effect.logInfo("starting").pipe(Effect.annotateLogs({ port, version }))
      screen.status(`Starting Core ${version} on http://localhost:${port}: opening the database…`)
      const starting = Startup.startingScheduler()
      return yield* Effect.gen(function*() {
        const database = yield* Storage.open(config)
        yield* Effect.sleep(0)
        yield* Migrations.runAll(config, (step) => screen.status(`Migrating database… ${step.done}/${step.total}`)).pipe(
          Effect.provide(database)
        )
        screen.status("Starting the services…")
        yield* Effect.sleep(0)
        const metrics = MetricsPort.processMetrics()
        const upstreams = yield* Services.upstreams(metrics.upstreamError).pipe(
          Effect.provide(database),
          Effect.provideService(CoreConfig, config)
        )
        yield* Effect.sleep(0)
        const redis = config.redisUrl === undefined ? undefined : yield* RedisConnection.connect(config.redisUrl)
        const checks: ReadonlyArray<Health.ReadinessCheck> = [
          { name: "database", check: Database.ping.pipe(Effect.provide(database)) },
          ...(redis === undefined ? [] : [{ name: "redis", check: RedisConnection.ping(redis), required: false }])
        ]
        yield* Assemble.warnIfBypass(config)
        const usage = yield* RequestUsageLive.make(config).pipe(Effect.provide(database))
        const ready = yield* Assemble.listener({
          config,
          upstreams,
          metrics,
          ...(usage === undefined ? {} : { usage }),
          ...(redis === undefined ? {} : { redis }),
          // MCP clients read JSON-RPC errors and OAuth clients OAuth's, the gateway's refusals
          // included (decisions 0605, 0609).
          renderers: [
            { prefix: GATEWAY_PREFIXES.vault, renderer: VaultRenderer },
            { prefix: `${GATEWAY_PREFIXES.identity}/oauth`, renderer: OAuthRenderer }
          ],
          fallback: WebPages.withPageNotFound(HttpRouter.concatAll(Health.routes(checks), Metrics.route(metrics, MetricsPort.accessOf(config)), WebPages.routes(upstreams)))
        })
        // The local edge's pages at <project>.localhost, in front of the gateway (decision 0296);
        // forwarded to the provisioning service when it runs in another process (decision 0554).
        const provisioning = upstreams.find((upstream) => upstream.service === "PROVISIONING" && config.upstreams.provisioning !== undefined)
        const served = provisioning !== undefined
          ? SitesForwarding.listener(ready, provisioning)
          : yield* LocalPages.listener(ready, { root: LocalEdge.rootOf(config) }).pipe(Effect.provide(database))
        yield* MetricsPort.serve(settings.metricsPort)
        starting.done()
        gate.open(served)
        screen.clear()
        yield* Effect.sync(() =>
          process.stderr.write(Banner.firstScreen({ port, config, storage: Storage.describeStorage(config), version }))
        )
        yield* Effect.logInfo("listening").pipe(Effect.annotateLogs({ port, version }))
        return yield* Effect.never
      }).pipe(Effect.withScheduler(starting.scheduler), Effect.onInterrupt(() => shutdown(bound, gate, screen)))
    })
  ).pipe(Effect.onInterrupt(() => Effect.logInfo("stopped")))
