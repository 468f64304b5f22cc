import { Config as KernelConfig } from "@core/kernel"
import { Config, Context, Layer, Option } from "effect"

/** The server's own limits: shutdown, slow clients, connections, start-up (docs/decisions/0200–0202). */
export interface ServerSettings {
  /** How long requests in flight may run once SIGTERM arrives (`CORE_SHUTDOWN_GRACE_MS`). @default 10000 */
  readonly shutdownGraceMs: number
  /** How long a request body may stay silent before a 408 (`CORE_BODY_TIMEOUT_MS`). @default 30000 */
  readonly bodyTimeoutMs: number
  /** Connections open at once; further ones are closed at once (`CORE_MAX_CONNECTIONS`). @default 1024 */
  readonly maxConnections: number
  /** How long a request that arrives while the server starts waits for it (`CORE_STARTUP_WAIT_MS`). @default 30000 */
  readonly startupWaitMs: number
  /**
   * A port of its own where `/metrics` is served without credentials (`CORE_METRICS_PORT`; decision
   * 0723), for a scraper inside the deployment's network. @default none
   */
  readonly metricsPort?: number | undefined
}

/** The defaults of {@link ServerSettings}. */
export const DEFAULTS: ServerSettings = {
  shutdownGraceMs: 10_000,
  bodyTimeoutMs: 30_000,
  maxConnections: 1_024,
  startupWaitMs: 30_000
}

const whole = (name: string, max: number, fallback: number): Config.Config<number> =>
  Config.withDefault(
    Config.map(
      KernelConfig.setting(name, {
        test: (value) => /^\d{1,7}$/.test(value) && Number(value) >= 1 && Number(value) <= max,
        must: `must be a whole number from 1 to ${max}`
      }),
      Number
    ),
    fallback
  )

/** The server's settings as a service: `layer` from explicit values (tests), `config` from the environment. */
export class ServerConfig extends Context.Tag("@core/server/ServerConfig")<ServerConfig, ServerSettings>() {
  static readonly config: Config.Config<ServerSettings> = Config.all({
    shutdownGraceMs: whole("CORE_SHUTDOWN_GRACE_MS", 600_000, DEFAULTS.shutdownGraceMs),
    bodyTimeoutMs: whole("CORE_BODY_TIMEOUT_MS", 600_000, DEFAULTS.bodyTimeoutMs),
    maxConnections: whole("CORE_MAX_CONNECTIONS", 1_000_000, DEFAULTS.maxConnections),
    startupWaitMs: whole("CORE_STARTUP_WAIT_MS", 600_000, DEFAULTS.startupWaitMs),
    metricsPort: Config.map(
      Config.option(KernelConfig.setting("CORE_METRICS_PORT", {
        test: (value) => /^\d{1,5}$/.test(value) && Number(value) <= 65_535,
        must: "must be a port number from 0 to 65535"
      })),
      Option.match({ onNone: () => undefined, onSome: Number })
    )
  })

  static readonly layer = (settings: Partial<ServerSettings> = {}): Layer.Layer<ServerConfig> =>
    Layer.succeed(ServerConfig, { ...DEFAULTS, ...settings })
}
