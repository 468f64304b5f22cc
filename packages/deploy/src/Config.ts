import { Config as KernelConfig } from "@core/kernel"
import { Config, type ConfigError, Context, Layer, Option, type Redacted } from "effect"

/** The deploy backend's own settings (DESIGN §10). */
export interface DeploySettings {
  /** `GITHUB_TOKEN`: the GitHub source host; `None` keeps local bare git repositories. */
  readonly githubToken: Option.Option<Redacted.Redacted<string>>
}

/** The deploy backend's settings as a service: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class DeployConfig extends Context.Tag("@core/deploy/DeployConfig")<DeployConfig, DeploySettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<DeploySettings> = Config.all({
    githubToken: Config.option(KernelConfig.redactedSetting("GITHUB_TOKEN", {
      test: (value) => value.length > 0,
      must: "must not be empty"
    }))
  })

  /** From explicit values; what is left out is unset. */
  static readonly layer = (settings: Partial<DeploySettings> = {}): Layer.Layer<DeployConfig> =>
    Layer.succeed(DeployConfig, { githubToken: Option.none(), ...settings })

  /** From the environment; fails with a `ConfigError` naming each bad variable. */
  static readonly layerConfig: Layer.Layer<DeployConfig, ConfigError.ConfigError> = Layer.effect(DeployConfig, DeployConfig.config)
}
