import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Config as KernelConfig } from "@core/kernel"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DEFAULT_VAULT_DIR, VaultConfig } from "../src/index.js"

const read = (env: KernelConfig.Env) =>
  Effect.provide(VaultConfig, VaultConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(KernelConfig.provider(env)))))

describe("VaultConfig", () => {
  it.effect("defaults to this repository's docs/vault/, and CORE_VAULT_DIR overrides it (blank counts as unset)", () =>
    Effect.gen(function*() {
      expect(DEFAULT_VAULT_DIR).toBe(fileURLToPath(new URL("../../../docs/vault/", import.meta.url)))
      expect(yield* read({})).toEqual({ dir: DEFAULT_VAULT_DIR })
      expect(yield* read({ CORE_VAULT_DIR: " " })).toEqual({ dir: DEFAULT_VAULT_DIR })
      expect(yield* read({ CORE_VAULT_DIR: "/srv/vault" })).toEqual({ dir: "/srv/vault" })
    }))

  it("is listed in .env.example", () => {
    expect(readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")).toMatch(/^#? ?CORE_VAULT_DIR=/m)
  })
})
