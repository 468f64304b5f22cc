import { Config as KernelConfig } from "@core/kernel"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { ProvisioningConfig } from "../src/Config.js"

const read = (env: Record<string, string>) =>
  Effect.provide(ProvisioningConfig, ProvisioningConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(KernelConfig.provider(env)))))

const issues = (env: Record<string, string>) =>
  Effect.map(Effect.flip(read(env)), KernelConfig.issuesOf)

describe("ProvisioningConfig", () => {
  it.effect("reads the Cloudflare account and token together; neither is None", () =>
    Effect.gen(function*() {
      const config = yield* read({ CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef", CLOUDFLARE_API_TOKEN: "cf-token" })
      expect(Option.map(config.cloudflare, (cloudflare) => cloudflare.accountId)).toEqual(Option.some("0123456789abcdef0123456789abcdef"))
      expect(Option.map(config.cloudflare, (cloudflare) => Redacted.value(cloudflare.apiToken))).toEqual(Option.some("cf-token"))
      expect(JSON.stringify(config)).not.toContain("cf-token")
      expect(yield* read({})).toEqual({ cloudflare: Option.none() })
      expect(yield* read({ CLOUDFLARE_ACCOUNT_ID: " ", CLOUDFLARE_API_TOKEN: "" })).toEqual({ cloudflare: Option.none() })
    }))

  it.effect("requires both Cloudflare variables or neither", () =>
    Effect.gen(function*() {
      expect(yield* issues({ CLOUDFLARE_API_TOKEN: "t" })).toEqual([
        { variable: "CLOUDFLARE_ACCOUNT_ID", message: "CLOUDFLARE_ACCOUNT_ID is required when the other CLOUDFLARE_ variable is set" }
      ])
      expect(yield* issues({ CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef" })).toEqual([
        { variable: "CLOUDFLARE_API_TOKEN", message: "CLOUDFLARE_API_TOKEN is required when the other CLOUDFLARE_ variable is set" }
      ])
    }))

  it.effect("names a malformed account id with the value it got, and only that issue", () =>
    Effect.gen(function*() {
      expect(yield* issues({ CLOUDFLARE_ACCOUNT_ID: "abc" })).toEqual([
        { variable: "CLOUDFLARE_ACCOUNT_ID", message: "CLOUDFLARE_ACCOUNT_ID must be a 32-character hexadecimal account id (got \"abc\")" }
      ])
    }))

  it.effect("reads CLOUDFLARE_DISPATCH_NAMESPACE with the account: checked once, a bad one or one without the account named", () =>
    Effect.gen(function*() {
      const account = { CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef", CLOUDFLARE_API_TOKEN: "cf-token" }
      const config = yield* read({ ...account, CLOUDFLARE_DISPATCH_NAMESPACE: "acme-platforms" })
      expect(Option.map(config.cloudflare, (cloudflare) => cloudflare.dispatchNamespace)).toEqual(Option.some("acme-platforms"))
      expect(Option.map((yield* read(account)).cloudflare, (cloudflare) => cloudflare.dispatchNamespace)).toEqual(Option.some(undefined))
      expect(yield* issues({ ...account, CLOUDFLARE_DISPATCH_NAMESPACE: "no/slashes" })).toEqual([{
        variable: "CLOUDFLARE_DISPATCH_NAMESPACE",
        message: "CLOUDFLARE_DISPATCH_NAMESPACE must be a dispatch namespace name: 1 to 63 letters, digits, '-' or '_' (got \"no/slashes\")"
      }])
      expect((yield* issues({ ...account, CLOUDFLARE_DISPATCH_NAMESPACE: "x".repeat(64) }))[0]?.variable).toBe("CLOUDFLARE_DISPATCH_NAMESPACE")
      expect(yield* issues({ CLOUDFLARE_DISPATCH_NAMESPACE: "acme-platforms" })).toEqual([{
        variable: "CLOUDFLARE_DISPATCH_NAMESPACE",
        message: "CLOUDFLARE_DISPATCH_NAMESPACE needs CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN (the Cloudflare edge provider)"
      }])
    }))

  it.effect("provides explicit values, unset by default", () =>
    Effect.gen(function*() {
      expect(yield* Effect.provide(ProvisioningConfig, ProvisioningConfig.layer())).toEqual({ cloudflare: Option.none() })
      const cloudflare = Option.some({ accountId: "0123456789abcdef0123456789abcdef", apiToken: Redacted.make("t") })
      expect(yield* Effect.provide(ProvisioningConfig, ProvisioningConfig.layer({ cloudflare }))).toEqual({ cloudflare })
    }))

  it("is listed in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    for (const name of ["CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_API_TOKEN", "CLOUDFLARE_DISPATCH_NAMESPACE"]) expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"))
  })
})
