import { Config as KernelConfig } from "@core/kernel"
import { Config, ConfigError, Context, Either, Layer, Option, type Redacted } from "effect"

/** The Cloudflare account the edge provider works in. */
export interface Cloudflare {
  /** `CLOUDFLARE_ACCOUNT_ID`: 32 hexadecimal characters. */
  readonly accountId: string
  /** `CLOUDFLARE_API_TOKEN`. */
  readonly apiToken: Redacted.Redacted<string>
}

/** Provisioning's own settings (DESIGN §10). */
export interface ProvisioningSettings {
  /** Both `CLOUDFLARE_ACCOUNT_ID` and `CLOUDFLARE_API_TOKEN`, or neither (`None`: the local edge provider). */
  readonly cloudflare: Option.Option<Cloudflare>
}

const accountId = Config.option(KernelConfig.setting("CLOUDFLARE_ACCOUNT_ID", {
  test: (value) => /^[0-9a-f]{32}$/i.test(value),
  must: "must be a 32-character hexadecimal account id"
}))

const apiToken = Config.option(KernelConfig.redactedSetting("CLOUDFLARE_API_TOKEN", {
  test: (value) => value.length > 0,
  must: "must not be empty"
}))

/** Both or neither; when one is set, the other is named as required. */
const pair = ([accountId, apiToken]: readonly [Option.Option<string>, Option.Option<Redacted.Redacted<string>>]) => {
  if (Option.isSome(accountId) && Option.isSome(apiToken)) {
    return Either.right(Option.some({ accountId: accountId.value, apiToken: apiToken.value }))
  }
  if (Option.isNone(accountId) && Option.isNone(apiToken)) return Either.right(Option.none<Cloudflare>())
  const missing = Option.isNone(accountId) ? "CLOUDFLARE_ACCOUNT_ID" : "CLOUDFLARE_API_TOKEN"
  return Either.left(ConfigError.InvalidData([missing], `${missing} is required when the other CLOUDFLARE_ variable is set`))
}

/** Provisioning's settings as a service: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class ProvisioningConfig extends Context.Tag("@core/provisioning/ProvisioningConfig")<ProvisioningConfig, ProvisioningSettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<ProvisioningSettings> = Config.all([accountId, apiToken]).pipe(
    Config.mapOrFail(pair),
    Config.map((cloudflare) => ({ cloudflare }))
  )

  /** From explicit values; what is left out is unset. */
  static readonly layer = (settings: Partial<ProvisioningSettings> = {}): Layer.Layer<ProvisioningConfig> =>
    Layer.succeed(ProvisioningConfig, { cloudflare: Option.none(), ...settings })

  /** From the environment; fails with a `ConfigError` naming each bad variable. */
  static readonly layerConfig: Layer.Layer<ProvisioningConfig, ConfigError.ConfigError> = Layer.effect(
    ProvisioningConfig,
    ProvisioningConfig.config
  )
}
