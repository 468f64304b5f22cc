import { fileURLToPath } from "node:url"
import { Config as KernelConfig } from "@core/kernel"
import { Config, type ConfigError, Context, Layer, Option } from "effect"

/** The vault's own settings (docs/vault-server.md, docs/configuration.md). */
export interface VaultSettings {
  /** `CORE_VAULT_DIR`: the folder of Markdown files served. @default this repository's `docs/vault/` */
  readonly dir: string
}

/** This repository's own vault, `docs/vault/` (the same from `src/` and from `dist/`). */
export const DEFAULT_VAULT_DIR = fileURLToPath(new URL("../../../docs/vault/", import.meta.url))

const dir = Config.option(KernelConfig.setting("CORE_VAULT_DIR", {
  test: (value) => value.length <= 4096 && !value.includes("\0"),
  must: "must be a directory path"
}))

/** The vault's settings as a service: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class VaultConfig extends Context.Tag("@core/vault/VaultConfig")<VaultConfig, VaultSettings>() {
  /** The settings read with the current `ConfigProvider`. */
  static readonly config: Config.Config<VaultSettings> = dir.pipe(
    Config.map((value) => ({ dir: Option.getOrElse(value, () => DEFAULT_VAULT_DIR) }))
  )

  /** From explicit values; the directory defaults to `docs/vault/`. */
  static readonly layer = (settings: Partial<VaultSettings> = {}): Layer.Layer<VaultConfig> =>
    Layer.succeed(VaultConfig, { dir: DEFAULT_VAULT_DIR, ...settings })

  /** From the environment. */
  static readonly layerConfig: Layer.Layer<VaultConfig, ConfigError.ConfigError> = Layer.effect(VaultConfig, VaultConfig.config)
}
