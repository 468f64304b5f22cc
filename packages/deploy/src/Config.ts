import { Config as KernelConfig } from "@core/kernel"
import { Config, type ConfigError, Context, Layer, Option, type Redacted } from "effect"

/** GitHub's REST API. */
export const GITHUB_API_URL = "https://api.github.com"

/** The deploy backend's own settings (DESIGN §10; decision 0489). */
export interface DeploySettings {
  /** `GITHUB_TOKEN`: the GitHub source host; `None` keeps local bare git repositories. */
  readonly githubToken: Option.Option<Redacted.Redacted<string>>
  /** `GITHUB_OWNER`: the organization (or user) the repositories are made in; `None`: the token's user. */
  readonly githubOwner: Option.Option<string>
  /** `GITHUB_TEMPLATE`: `owner/repo` of a template repository new repositories are generated from. */
  readonly githubTemplate: Option.Option<string>
  /** `GITHUB_API_URL` (GitHub Enterprise, a stand-in). @default "https://api.github.com" */
  readonly githubApiUrl: string
}

/** A GitHub login or repository name: letters, digits, `-`, `_`, `.` (at most 100). */
const NAME = /^[A-Za-z0-9_.-]{1,100}$/

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return url.protocol === "https:" || url.protocol === "http:"
  } catch {
    return false
  }
}

/** The deploy backend's settings as a service: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class DeployConfig extends Context.Tag("@core/deploy/DeployConfig")<DeployConfig, DeploySettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<DeploySettings> = Config.all({
    githubToken: Config.option(KernelConfig.redactedSetting("GITHUB_TOKEN", {
      test: (value) => value.length > 0,
      must: "must not be empty"
    })),
    githubOwner: Config.option(KernelConfig.setting("GITHUB_OWNER", {
      test: (value) => NAME.test(value),
      must: "must be a GitHub organization or user name"
    })),
    githubTemplate: Config.option(KernelConfig.setting("GITHUB_TEMPLATE", {
      test: (value) => value.split("/").length === 2 && value.split("/").every((part) => NAME.test(part)),
      must: "must be a template repository as owner/repo"
    })),
    githubApiUrl: Config.withDefault(
      KernelConfig.setting("GITHUB_API_URL", { test: isHttpUrl, must: "must be an http(s) URL" }).pipe(
        Config.map((value) => value.replace(/\/+$/, ""))
      ),
      GITHUB_API_URL
    )
  })

  /** From explicit values; what is left out is unset. */
  static readonly layer = (settings: Partial<DeploySettings> = {}): Layer.Layer<DeployConfig> =>
    Layer.succeed(DeployConfig, { githubToken: Option.none(), githubOwner: Option.none(), githubTemplate: Option.none(), githubApiUrl: GITHUB_API_URL, ...settings })

  /** From the environment; fails with a `ConfigError` naming each bad variable. */
  static readonly layerConfig: Layer.Layer<DeployConfig, ConfigError.ConfigError> = Layer.effect(DeployConfig, DeployConfig.config)
}
