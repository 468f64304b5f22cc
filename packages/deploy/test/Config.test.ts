import { Config as KernelConfig } from "@core/kernel"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { DeployConfig } from "../src/Config.js"

const read = (env: Record<string, string>) =>
  Effect.provide(DeployConfig, DeployConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(KernelConfig.provider(env)))))

const UNSET = { githubToken: Option.none(), githubOwner: Option.none(), githubTemplate: Option.none(), githubApiUrl: "https://api.github.com" }

describe("DeployConfig", () => {
  it.effect("reads GITHUB_TOKEN as a redacted value; unset or blank is None", () =>
    Effect.gen(function*() {
      const config = yield* read({ GITHUB_TOKEN: "ghp_x" })
      expect(Option.map(config.githubToken, Redacted.value)).toEqual(Option.some("ghp_x"))
      expect(JSON.stringify(config)).not.toContain("ghp_x")
      expect(yield* read({})).toEqual(UNSET)
      expect(yield* read({ GITHUB_TOKEN: "  " })).toEqual(UNSET)
    }))

  it.effect("reads GITHUB_OWNER, GITHUB_TEMPLATE (owner/repo) and GITHUB_API_URL; a bad value names its variable", () =>
    Effect.gen(function*() {
      const config = yield* read({ GITHUB_TOKEN: "t", GITHUB_OWNER: "acme", GITHUB_TEMPLATE: "acme/site-template", GITHUB_API_URL: "http://127.0.0.1:9/api/" })
      expect(config).toMatchObject({ githubOwner: Option.some("acme"), githubTemplate: Option.some("acme/site-template"), githubApiUrl: "http://127.0.0.1:9/api" })
      const bad = yield* Effect.flip(read({ GITHUB_TEMPLATE: "just-a-name", GITHUB_OWNER: "a b", GITHUB_API_URL: "ftp://x" }))
      expect(String(bad)).toContain("GITHUB_TEMPLATE must be a template repository as owner/repo")
    }))

  it.effect("provides explicit values, unset by default", () =>
    Effect.gen(function*() {
      expect(yield* Effect.provide(DeployConfig, DeployConfig.layer())).toEqual(UNSET)
      const githubToken = Option.some(Redacted.make("ghp_y"))
      expect(yield* Effect.provide(DeployConfig, DeployConfig.layer({ githubToken }))).toEqual({ ...UNSET, githubToken })
    }))

  it("is listed in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    for (const name of ["GITHUB_TOKEN", "GITHUB_OWNER", "GITHUB_TEMPLATE", "GITHUB_API_URL"]) expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"))
  })
})
