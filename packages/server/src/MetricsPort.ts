import { Metrics as GatewayMetrics } from "@core/gateway"
import { type Configuration, ErrorResponse, Metrics } from "@core/kernel"
import { Duration, Effect, type Scope } from "effect"
import { type CommandFailed, failed } from "./Failure.js"
import * as Listener from "./Listener.js"

let metricsOfProcess: GatewayMetrics.Metrics | undefined

/**
 * The process's metrics as `/metrics` reads them: the gateway's instruments made once on the
 * kernel's registry, beside the job queue's, the deliveries' and prom-client's process metrics.
 */
export const processMetrics = (): GatewayMetrics.Metrics => (metricsOfProcess ??= GatewayMetrics.make(Metrics.registry))

/** Who reads `/metrics` on a service's own port: the static key, or anyone in development. */
export const accessOf = (config: Configuration): GatewayMetrics.ReadAccess => ({
  staticKey: config.staticApiKey
})

/**
 * `CORE_METRICS_PORT` (decision 0723): `/metrics` alone, without credentials, on a port of its own
 * until the scope closes; anything else is a 404 envelope. Answers the bound port, `undefined`
 * when no port is configured.
 */
export const serve = (port: number | undefined): Effect.Effect<number | undefined, CommandFailed, Scope.Scope> =>
  port === undefined
    ? Effect.succeed(undefined)
    : Listener.listen(ErrorResponse.withErrorEnvelope(GatewayMetrics.route(processMetrics())), {
      port,
      grace: Duration.seconds(1)
    }).pipe(
      Effect.tap((bound) => Effect.logInfo("metrics listening").pipe(Effect.annotateLogs({ port: bound }))),
      Effect.mapError((error) => failed(`CORE_METRICS_PORT: ${error.message}`))
    )
