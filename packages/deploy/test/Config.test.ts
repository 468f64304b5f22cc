import { Config as KernelConfig } from "@core/kernel"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { DeployConfig } from "../src/Config.js"

const read = (env: Record<string, string>) =>
  Effect.provide(DeployConfig, DeployConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(KernelConfig.provider(env)))))

describe("DeployConfig", () => {
  it.effect("reads GITHUB_TOKEN as a redacted value; unset or blank is None", () =>
    Effect.gen(function*() {
      const config = yield* read({ GITHUB_TOKEN: "ghp_x" })
      expect(Option.map(config.githubToken, Redacted.value)).toEqual(Option.some("ghp_x"))
      expect(JSON.stringify(config)).not.toContain("ghp_x")
      expect(yield* read({})).toEqual({ githubToken: Option.none() })
      expect(yield* read({ GITHUB_TOKEN: "  " })).toEqual({ githubToken: Option.none() })
    }))

  it.effect("provides explicit values, unset by default", () =>
    Effect.gen(function*() {
      expect(yield* Effect.provide(DeployConfig, DeployConfig.layer())).toEqual({ githubToken: Option.none() })
      const githubToken = Option.some(Redacted.make("ghp_y"))
      expect(yield* Effect.provide(DeployConfig, DeployConfig.layer({ githubToken }))).toEqual({ githubToken })
    }))

  it("is listed in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    expect(example).toMatch(/^#? ?GITHUB_TOKEN=/m)
  })
})
