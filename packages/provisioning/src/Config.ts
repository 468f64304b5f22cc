import { Config as KernelConfig } from "@core/kernel"
import { Config, ConfigError, Context, Either, Layer, Option, type Redacted } from "effect"

/** The Cloudflare account the edge provider works in. */
export interface Cloudflare {
  /** `CLOUDFLARE_ACCOUNT_ID`: 32 hexadecimal characters. */
  readonly accountId: string
  /** `CLOUDFLARE_API_TOKEN`. */
  readonly apiToken: Redacted.Redacted<string>
  /**
   * `CLOUDFLARE_DISPATCH_NAMESPACE`: the Workers for Platforms dispatch namespace worker scripts are
   * uploaded to (decision 0314). Unset: the account's own Workers.
   */
  readonly dispatchNamespace?: string
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

/** A dispatch namespace's name as Cloudflare takes it: 1 to 63 letters, digits, `-` and `_`. */
const dispatchNamespace = Config.option(KernelConfig.setting("CLOUDFLARE_DISPATCH_NAMESPACE", {
  test: (value) => /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(value),
  must: "must be a dispatch namespace name: 1 to 63 letters, digits, '-' or '_'"
}))

/** Both or neither; when one is set, the other is named as required (and both by a dispatch namespace). */
const pair = ([accountId, apiToken, namespace]: readonly [
  Option.Option<string>,
  Option.Option<Redacted.Redacted<string>>,
  Option.Option<string>
]) => {
  if (Option.isSome(accountId) && Option.isSome(apiToken)) {
    return Either.right(Option.some<Cloudflare>({
      accountId: accountId.value,
      apiToken: apiToken.value,
      ...(Option.isSome(namespace) ? { dispatchNamespace: namespace.value } : {})
    }))
  }
  if (Option.isNone(accountId) && Option.isNone(apiToken)) {
    return Option.isSome(namespace)
      ? Either.left(ConfigError.InvalidData(
        ["CLOUDFLARE_DISPATCH_NAMESPACE"],
        "CLOUDFLARE_DISPATCH_NAMESPACE needs CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN (the Cloudflare edge provider)"
      ))
      : Either.right(Option.none<Cloudflare>())
  }
  const missing = Option.isNone(accountId) ? "CLOUDFLARE_ACCOUNT_ID" : "CLOUDFLARE_API_TOKEN"
  return Either.left(ConfigError.InvalidData([missing], `${missing} is required when the other CLOUDFLARE_ variable is set`))
}

/** Provisioning's settings as a service: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class ProvisioningConfig extends Context.Tag("@core/provisioning/ProvisioningConfig")<ProvisioningConfig, ProvisioningSettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<ProvisioningSettings> = Config.all([accountId, apiToken, dispatchNamespace]).pipe(
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
