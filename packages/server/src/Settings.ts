import { MailConfig } from "@core/auth"
import { BillingConfig } from "@core/billing"
import { DeployConfig } from "@core/deploy"
import { EventsConfig } from "@core/events"
import { Config as KernelConfig, ConfigError, type Configuration } from "@core/kernel"
import { ProvisioningConfig, WorkerConfig } from "@core/provisioning"
import { VaultConfig } from "@core/vault"
import { Config, type ConfigError as EffectConfigError, Context, Effect, Either, Layer } from "effect"
import { ServerConfig } from "./ServerConfig.js"
import { TelemetryConfig } from "./TelemetryConfig.js"

/** Every domain's own settings (each package's `src/Config.ts`) and the server's, as services. */
export type DomainSettings = MailConfig | BillingConfig | ProvisioningConfig | DeployConfig | ServerConfig | WorkerConfig | VaultConfig | TelemetryConfig | EventsConfig

/** What a command runs with: the configuration every service shares and each domain's own settings. */
export interface Settings {
  readonly config: Configuration
  readonly domains: Context.Context<DomainSettings>
}

/** Every domain's settings, read together so that one failure names every bad variable. */
const domains: Config.Config<Context.Context<DomainSettings>> = Config.map(
  Config.all([MailConfig.config, BillingConfig.config, ProvisioningConfig.config, DeployConfig.config, ServerConfig.config, WorkerConfig.config, VaultConfig.config, TelemetryConfig.config, EventsConfig.config]),
  ([mail, billing, provisioning, deploy, server, worker, vault, telemetry, events]) =>
    Context.make(MailConfig, mail).pipe(
      Context.add(BillingConfig, billing),
      Context.add(ProvisioningConfig, provisioning),
      Context.add(DeployConfig, deploy),
      Context.add(ServerConfig, server),
      Context.add(WorkerConfig, worker),
      Context.add(VaultConfig, vault),
      Context.add(TelemetryConfig, telemetry),
      Context.add(EventsConfig, events)
    )
)

/** Every domain's settings read from `env` as services (hosts, benches); fails naming each bad variable. */
export const layer = (env: KernelConfig.Env): Layer.Layer<DomainSettings, EffectConfigError.ConfigError> =>
  Layer.effectContext(Effect.withConfigProvider(domains, KernelConfig.provider(env)))

/**
 * Read the whole configuration from `env` once, at start (docs/configuration.md): the kernel's and every
 * domain's. A bad value anywhere fails with one `ConfigError` whose message names each bad variable
 * (`Invalid configuration: STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)`); nothing is
 * written (no development secret file) while any value is bad.
 */
export const load = (env: KernelConfig.Env): Effect.Effect<Settings, ConfigError> =>
  Effect.gen(function*() {
    const read = yield* Effect.either(Effect.withConfigProvider(domains, KernelConfig.provider(env)))
    const config = yield* Effect.try({
      try: () => KernelConfig.parseConfig(env, Either.isLeft(read) ? KernelConfig.issuesOf(read.left) : []),
      catch: (error) => new ConfigError({ message: `Invalid configuration: ${String(error)}`, issues: [] })
    }).pipe(Effect.flatten)
    // A failed read has already failed `parseConfig` with its issues.
    return { config, domains: yield* Effect.orDie(read) }
  })
