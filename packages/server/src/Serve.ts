import { type HttpApp, HttpRouter } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Config, type Configuration, CoreConfig, Database, ErrorResponse, Metrics as KernelMetrics } from "@core/kernel"
import { LocalEdge, LocalPages } from "@core/provisioning"
import { Metrics } from "@core/gateway"
import { Effect } from "effect"
import { type CommandFailed, failed, usage } from "./Failure.js"
import * as Health from "./Health.js"
import * as Listener from "./Listener.js"
import * as MetricsPort from "./MetricsPort.js"
import * as Migrations from "./Migrations.js"
import { ServerConfig } from "./ServerConfig.js"
import * as Services from "./Services.js"
import type { DomainSettings } from "./Settings.js"
import * as Storage from "./Storage.js"
import * as Terminal from "./Terminal.js"

const available = (): string =>
  Services.SERVICES.length === 0 ? "none yet" : Services.SERVICES.map((service) => service.name).join(", ")

/**
 * The provisioning service also answers the local edge's sites that a gateway forwards to it
 * (`<project>.localhost` in the gateway's `X-Forwarded-Host`; decision 0554): its workers wrote
 * them under `<CORE_DATA_DIR>/edge`, as in the all-in-one server.
 */
const servingSites = (routes: HttpApp.Default<unknown, never>, config: Configuration, port: number) =>
  Effect.gen(function*() {
    const app = yield* NodeHttpServer.makeHandler(routes)
    const sites = yield* LocalPages.listener(app, { root: LocalEdge.rootOf(config), forwardedHost: true })
    return (yield* Listener.listenNode(sites, { port })).port
  })

/**
 * `core-server serve --service <name> [--port <n>]`: one service alone, at `/` with `/health` and
 * `/ready` beside it, for multi-process deployments (the gateway reaches it through
 * `CORE_UPSTREAM_<NAME>_URL`). Client headers reach it untouched: the gateway has already
 * filtered them. The provisioning service also serves the sites the gateway forwards (`servingSites`).
 */
export const serve = (
  config: Configuration,
  name: string,
  port: number | undefined
): Effect.Effect<void, CommandFailed, DomainSettings> => {
  const lower = name.toLowerCase()
  if (!(Config.UPSTREAM_SERVICES as ReadonlyArray<string>).includes(lower)) {
    return Effect.fail(usage(`unknown service ${JSON.stringify(name)} (services: ${Config.UPSTREAM_SERVICES.join(", ")})`))
  }
  const definition = Services.find(lower)
  if (definition === undefined) {
    return Effect.fail(failed(`the ${lower} service is not part of this build (available: ${available()})`))
  }
  return Effect.scoped(
    Effect.gen(function*() {
      const database = yield* Storage.open(config)
      yield* Migrations.runAll(config).pipe(Effect.provide(database))
      const app = yield* Services.trustedApp(definition).pipe(Effect.provide(database), Effect.provideService(CoreConfig, config))
      const checks = [{ name: "database", check: Database.ping.pipe(Effect.provide(database)) }]
      // `/metrics` beside the probes, read with the static key (decision 0723).
      const metrics = MetricsPort.processMetrics()
      const routes = ErrorResponse.withErrorEnvelope(HttpRouter.concatAll(
        Health.routes(checks),
        Metrics.route(metrics, MetricsPort.accessOf(config)),
        // The service's routes record `http.server.request.duration` themselves here: no gateway in front in this process.
        HttpRouter.empty.pipe(HttpRouter.all("*", Effect.provideService(app, KernelMetrics.ServerMetrics, KernelMetrics.httpServer())))
      ))
      const bound = yield* (lower === "provisioning"
        ? servingSites(routes, config, port ?? config.port).pipe(Effect.provide(database))
        : Listener.listen(routes, { port: port ?? config.port })).pipe(Effect.mapError((error) => failed(error.message)))
      yield* MetricsPort.serve((yield* ServerConfig).metricsPort)
      yield* Effect.logInfo("listening").pipe(Effect.annotateLogs({ service: lower, port: bound }))
      const screen = yield* Terminal.Terminal
      if (screen.interactive) screen.line(`The ${lower} service is listening on http://localhost:${bound} (Ctrl+C stops it).`)
      return yield* Effect.never.pipe(Effect.onInterrupt(() => Effect.logInfo("shutting down")))
    })
  )
}
