import { MailConfig } from "@core/auth"
import { BillingConfig } from "@core/billing"
import { DeployConfig } from "@core/deploy"
import { ProvisioningConfig } from "@core/provisioning"
import { Context, Effect, Either, Option, Redacted } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { ServerConfig } from "../src/ServerConfig.js"
import * as Settings from "../src/Settings.js"

const load = (env: Record<string, string>) => Effect.runSync(Effect.either(Settings.load({ NODE_ENV: "test", ...env })))

const message = (env: Record<string, string>) => Either.getLeft(load(env)).pipe(Option.getOrThrow).message

describe("Settings", () => {
  it("reads the shared configuration and every domain's settings from one environment", () => {
    const settings = Either.getOrThrow(load({
      PORT: "9000",
      SMTP_URL: "smtp://mail.example.com:25",
      STRIPE_SECRET_KEY: "sk_test_123",
      STRIPE_WEBHOOK_SECRET: "whsec_abc",
      CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
      CLOUDFLARE_API_TOKEN: "cf-token",
      GITHUB_TOKEN: "ghp_x"
    }))
    expect(settings.config.port).toBe(9000)
    const value = <A>(option: Option.Option<Redacted.Redacted<A>>) => Option.map(option, Redacted.value)
    expect(value(Context.get(settings.domains, MailConfig).smtpUrl)).toEqual(Option.some("smtp://mail.example.com:25"))
    expect(value(Context.get(settings.domains, BillingConfig).stripeSecretKey)).toEqual(Option.some("sk_test_123"))
    expect(value(Context.get(settings.domains, BillingConfig).stripeWebhookSecret)).toEqual(Option.some("whsec_abc"))
    expect(Option.map(Context.get(settings.domains, ProvisioningConfig).cloudflare, (cloudflare) => cloudflare.accountId))
      .toEqual(Option.some("0123456789abcdef0123456789abcdef"))
    expect(value(Context.get(settings.domains, DeployConfig).githubToken)).toEqual(Option.some("ghp_x"))
  })

  it("reads the server's limits, with defaults, and names a bad one", () => {
    expect(Context.get(Either.getOrThrow(load({})).domains, ServerConfig)).toEqual({
      shutdownGraceMs: 10_000,
      bodyTimeoutMs: 30_000,
      maxConnections: 1_024,
      startupWaitMs: 30_000
    })
    const set = Either.getOrThrow(load({
      CORE_SHUTDOWN_GRACE_MS: "2500",
      CORE_BODY_TIMEOUT_MS: "5000",
      CORE_MAX_CONNECTIONS: "64",
      CORE_STARTUP_WAIT_MS: "3000",
      CORE_METRICS_PORT: "9464"
    }))
    expect(Context.get(set.domains, ServerConfig)).toEqual({
      shutdownGraceMs: 2_500,
      bodyTimeoutMs: 5_000,
      maxConnections: 64,
      startupWaitMs: 3_000,
      metricsPort: 9_464
    })
    expect(Context.get(Either.getOrThrow(load({})).domains, ServerConfig).metricsPort).toBeUndefined()
    expect(message({ CORE_MAX_CONNECTIONS: "0" })).toContain("CORE_MAX_CONNECTIONS must be a whole number from 1 to 1000000")
    expect(message({ CORE_METRICS_PORT: "70000" })).toContain("CORE_METRICS_PORT must be a port number from 0 to 65535")
    expect(message({ CORE_METRICS_PORT: "metrics" })).toContain("CORE_METRICS_PORT must be a port number from 0 to 65535")
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    for (const name of ["CORE_SHUTDOWN_GRACE_MS", "CORE_BODY_TIMEOUT_MS", "CORE_MAX_CONNECTIONS", "CORE_STARTUP_WAIT_MS", "CORE_METRICS_PORT"]) {
      expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"))
    }
  })

  it("leaves every domain setting unset by default", () => {
    const { domains } = Either.getOrThrow(load({}))
    expect(Context.get(domains, MailConfig).smtpUrl).toEqual(Option.none())
    expect(Context.get(domains, BillingConfig).stripeSecretKey).toEqual(Option.none())
    expect(Context.get(domains, ProvisioningConfig).cloudflare).toEqual(Option.none())
    expect(Context.get(domains, DeployConfig).githubToken).toEqual(Option.none())
  })

  it("refuses a bad domain value with the message that names the variable", () => {
    expect(message({ STRIPE_SECRET_KEY: "bogus" })).toBe(
      "Invalid configuration: STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)"
    )
    expect(message({ SMTP_URL: "http://x" })).toBe("Invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL (got \"http://x\")")
    expect(message({ CLOUDFLARE_API_TOKEN: "t" })).toBe(
      "Invalid configuration: CLOUDFLARE_ACCOUNT_ID is required when the other CLOUDFLARE_ variable is set"
    )
  })

  it("reports every bad variable at once, the shared ones first, without echoing secret values", () => {
    const error = Either.getLeft(load({
      PORT: "http",
      LOG_LEVEL: "loud",
      SMTP_URL: "http://x",
      STRIPE_SECRET_KEY: "pk_live_should_not_print",
      CLOUDFLARE_ACCOUNT_ID: "abc",
      GITHUB_TOKEN: " "
    })).pipe(Option.getOrThrow)
    expect(error.issues.map((issue) => issue.variable)).toEqual([
      "PORT",
      "LOG_LEVEL",
      "SMTP_URL",
      "STRIPE_SECRET_KEY",
      "CLOUDFLARE_ACCOUNT_ID"
    ])
    expect(error.message).toContain("STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)")
    expect(error.message).not.toContain("pk_live_should_not_print")
  })

  it("writes nothing (no development secret) when a domain value is bad", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "core-settings-")), "data")
    expect(message({ NODE_ENV: "development", CORE_DATA_DIR: dir, STRIPE_SECRET_KEY: "bogus" })).toContain("STRIPE_SECRET_KEY")
    expect(existsSync(dir)).toBe(false)
  })
})
