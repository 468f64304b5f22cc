import { Config as KernelConfig } from "@core/kernel"
import { Config, type ConfigError, Context, Layer, Option, Redacted } from "effect"

/** Identity's own settings (DESIGN §10): how its mail leaves. */
export interface MailSettings {
  /**
   * `SMTP_URL` (`smtp://user:pass@host:port` or `smtps://…`): mail goes over SMTP; `None` keeps it in
   * the outbox table (`mail/MailerLive`). Redacted: it may hold the SMTP password.
   */
  readonly smtpUrl: Option.Option<Redacted.Redacted<string>>
}

/** Identity's mail settings as a service: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class MailConfig extends Context.Tag("@core/auth/MailConfig")<MailConfig, MailSettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<MailSettings> = Config.all({
    // Not `redactedSetting`: a bad value is shown in the message, as the shared configuration always did.
    smtpUrl: Config.option(Config.map(
      KernelConfig.setting("SMTP_URL", { test: KernelConfig.isUrl(["smtp", "smtps"]), must: "must be an smtp:// or smtps:// URL" }),
      Redacted.make
    ))
  })

  /** From explicit values; what is left out is unset. */
  static readonly layer = (settings: Partial<MailSettings> = {}): Layer.Layer<MailConfig> =>
    Layer.succeed(MailConfig, { smtpUrl: Option.none(), ...settings })

  /** From the environment; fails with a `ConfigError` naming `SMTP_URL` when it is bad. */
  static readonly layerConfig: Layer.Layer<MailConfig, ConfigError.ConfigError> = Layer.effect(MailConfig, MailConfig.config)
}
