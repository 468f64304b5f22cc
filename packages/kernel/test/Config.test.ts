import { describe, expect, it } from "@effect/vitest"
import { Config, ConfigError as EffectConfigError, Effect, Either, Exit, Option, Redacted } from "effect"
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  ConfigError,
  CoreConfig,
  isUrl,
  issuesOf,
  loadConfig,
  parseConfig,
  provider,
  redactedSetting,
  setting,
  VARIABLE_NAMES
} from "../src/Config.js"

const tempDir = () => mkdtempSync(join(tmpdir(), "core-config-"))

const failure = (env: Record<string, string | undefined>, others: Parameters<typeof parseConfig>[1] = []): ConfigError => {
  const result = parseConfig(env, others)
  if (Either.isRight(result)) throw new Error("expected a ConfigError")
  return result.left
}

describe("Config", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({ NODE_ENV: "test" })
    expect(config).toMatchObject({
      nodeEnv: "test",
      port: 8787,
      dataDir: undefined,
      databaseUrl: undefined,
      redisUrl: undefined,
      staticApiKey: undefined,
      secretSource: "memory",
      corsOrigins: [],
      publicUrl: "http://localhost:8787",
      upstreams: {},
      trustProxy: false,
      logLevel: "info"
    })
    expect(Redacted.value(config.secret)).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it("parses every variable into its typed value", () => {
    const dir = tempDir()
    const config = loadConfig({
      NODE_ENV: "production",
      PORT: "9000",
      CORE_DATA_DIR: dir,
      DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
      REDIS_URL: "redis://127.0.0.1:6379",
      CORE_STATIC_API_KEY: "a-static-key-of-enough-length",
      CORE_SECRET: "x".repeat(32),
      CORE_CORS_ORIGINS: "https://app.example.com, http://localhost:3000/",
      CORE_PUBLIC_URL: "https://core.example.com/",
      CORE_UPSTREAM_IAM_URL: "http://127.0.0.1:9101",
      CORE_UPSTREAM_VAULT_URL: "http://127.0.0.1:9107/",
      CORE_TRUST_PROXY: "1",
      LOG_LEVEL: "DEBUG"
    })
    expect(config).toMatchObject({
      nodeEnv: "production",
      port: 9000,
      dataDir: dir,
      databaseUrl: "postgres://postgres@127.0.0.1:5432/test",
      redisUrl: "redis://127.0.0.1:6379",
      secretSource: "env",
      corsOrigins: ["https://app.example.com", "http://localhost:3000"],
      publicUrl: "https://core.example.com",
      publicUrlSet: true,
      upstreams: { iam: "http://127.0.0.1:9101", vault: "http://127.0.0.1:9107" },
      trustProxy: true,
      logLevel: "debug"
    })
    expect(Redacted.value(config.staticApiKey!)).toBe("a-static-key-of-enough-length")
    expect(String(config.secret)).toBe("<redacted>")
    expect(JSON.stringify(config)).not.toContain("x".repeat(32))
  })

  it("knows whether CORE_PUBLIC_URL was set, even when it reads like the default http://localhost:<PORT>", () => {
    expect(loadConfig({ NODE_ENV: "test", PORT: "8788" })).toMatchObject({ publicUrl: "http://localhost:8788", publicUrlSet: false })
    expect(loadConfig({ NODE_ENV: "test", PORT: "8788", CORE_PUBLIC_URL: "http://localhost:8788" })).toMatchObject({
      publicUrl: "http://localhost:8788",
      publicUrlSet: true
    })
    expect(loadConfig({ NODE_ENV: "test", CORE_PUBLIC_URL: "" }).publicUrlSet).toBe(false)
  })

  it("treats empty values as unset", () => {
    const config = loadConfig({ NODE_ENV: "test", PORT: "", REDIS_URL: " ", CORE_STATIC_API_KEY: "" })
    expect(config.port).toBe(8787)
    expect(config.redisUrl).toBeUndefined()
    expect(config.staticApiKey).toBeUndefined()
  })

  it("names the bad variable, why, and the value it got", () => {
    expect(failure({ NODE_ENV: "test", PORT: "abc" }).message).toBe(
      "Invalid configuration: PORT must be an integer between 0 and 65535 (got \"abc\")"
    )
    expect(failure({ NODE_ENV: "test", PORT: "70000" }).issues).toEqual([
      { variable: "PORT", message: "PORT must be an integer between 0 and 65535 (got \"70000\")" }
    ])
  })

  it("reports every bad variable at once", () => {
    const error = failure({
      NODE_ENV: "staging",
      LOG_LEVEL: "loud",
      DATABASE_URL: "mysql://x",
      CORE_CORS_ORIGINS: "https://ok.example.com,https://bad.example.com/path",
      CORE_UPSTREAM_BILLING_URL: "ftp://x"
    })
    expect(error._tag).toBe("ConfigError")
    expect(error.issues.map((issue) => issue.variable)).toEqual([
      "NODE_ENV",
      "DATABASE_URL",
      "CORE_CORS_ORIGINS",
      "LOG_LEVEL",
      "CORE_UPSTREAM_BILLING_URL"
    ])
    expect(error.message).toContain("NODE_ENV must be one of development, production, test (got \"staging\")")
    expect(error.message).toContain("LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, none (got \"loud\")")
  })

  it("reports the domains' issues after its own, and creates no secret file while there is any", () => {
    const dir = join(tempDir(), "data")
    const domain = { variable: "SMTP_URL", message: "SMTP_URL must be an smtp:// or smtps:// URL (got \"http://x\")" }
    expect(failure({ NODE_ENV: "development", CORE_DATA_DIR: dir }, [domain])).toMatchObject({
      message: "Invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL (got \"http://x\")",
      issues: [domain]
    })
    expect(failure({ NODE_ENV: "development", CORE_DATA_DIR: dir, PORT: "x" }, [domain]).issues.map((issue) => issue.variable))
      .toEqual(["PORT", "SMTP_URL"])
    expect(existsSync(dir)).toBe(false)
  })

  it("requires CORE_SECRET in production, and a long one", () => {
    expect(failure({ NODE_ENV: "production", CORE_DATA_DIR: tempDir(), CORE_STATIC_API_KEY: "a-static-key-of-enough-length" }).message).toBe(
      "Invalid configuration: CORE_SECRET is required when NODE_ENV=production"
    )
    expect(failure({ NODE_ENV: "production", CORE_SECRET: "short", CORE_STATIC_API_KEY: "a-static-key-of-enough-length" }).issues[0]).toEqual({
      variable: "CORE_SECRET",
      message: "CORE_SECRET must be at least 32 characters when NODE_ENV=production"
    })
    expect(failure({ NODE_ENV: "production", CORE_SECRET: "y".repeat(32), CORE_STATIC_API_KEY: "short" }).issues[0].variable)
      .toBe("CORE_STATIC_API_KEY")
  })

  it("refuses the development bypass in production: the static key is required there", () => {
    expect(failure({ NODE_ENV: "production", CORE_SECRET: "y".repeat(32) }).issues).toEqual([{
      variable: "CORE_STATIC_API_KEY",
      message: "CORE_STATIC_API_KEY is required when NODE_ENV=production (without it the gateway lets unauthenticated requests through)"
    }])
  })

  it("reads the rate limits and the upstream timeout, with defaults", () => {
    expect(loadConfig({ NODE_ENV: "test" })).toMatchObject({ rateLimits: { perMinute: 600, authPerMinute: 10 }, upstreamTimeoutMs: 30_000 })
    const config = loadConfig({
      NODE_ENV: "test",
      CORE_RATE_LIMIT_PER_MINUTE: "1200",
      CORE_RATE_LIMIT_AUTH_PER_MINUTE: "5",
      CORE_UPSTREAM_TIMEOUT_MS: "2500"
    })
    expect(config).toMatchObject({ rateLimits: { perMinute: 1200, authPerMinute: 5 }, upstreamTimeoutMs: 2500 })
    expect(failure({ NODE_ENV: "test", CORE_RATE_LIMIT_PER_MINUTE: "0" }).issues).toEqual([
      { variable: "CORE_RATE_LIMIT_PER_MINUTE", message: "CORE_RATE_LIMIT_PER_MINUTE must be a whole number from 1 to 1000000 (got \"0\")" }
    ])
  })

  it("generates the development secret once and keeps it in the data directory with mode 0600", () => {
    const dir = join(tempDir(), "nested", "data")
    const first = loadConfig({ NODE_ENV: "development", CORE_DATA_DIR: dir })
    const second = loadConfig({ NODE_ENV: "development", CORE_DATA_DIR: dir })
    expect(first.secretSource).toBe("file")
    expect(Redacted.value(second.secret)).toBe(Redacted.value(first.secret))
    expect(readFileSync(join(dir, "secret"), "utf8").trim()).toBe(Redacted.value(first.secret))
    expect(statSync(join(dir, "secret")).mode & 0o777).toBe(0o600)
  })

  it("refuses a corrupt secret file", () => {
    const dir = tempDir()
    writeFileSync(join(dir, "secret"), "tiny")
    expect(failure({ NODE_ENV: "development", CORE_DATA_DIR: dir }).issues[0].variable).toBe("CORE_SECRET")
  })

  it("keeps data in memory for :memory: and in tests without a data directory", () => {
    expect(loadConfig({ NODE_ENV: "development", CORE_DATA_DIR: ":memory:" })).toMatchObject({ dataDir: undefined, secretSource: "memory" })
    expect(loadConfig({ NODE_ENV: "test" }).dataDir).toBeUndefined()
  })

  it("throws the ConfigError from loadConfig", () => {
    expect(() => loadConfig({ NODE_ENV: "test", CORE_TRUST_PROXY: "maybe" })).toThrow(
      "Invalid configuration: CORE_TRUST_PROXY must be 1, 0, true, false, yes, no, on or off (got \"maybe\")"
    )
  })

  it("lists every documented variable", () => {
    expect(VARIABLE_NAMES).toEqual(expect.arrayContaining([
      "PORT", "CORE_DATA_DIR", "DATABASE_URL", "REDIS_URL", "CORE_STATIC_API_KEY", "CORE_SECRET", "CORE_CORS_ORIGINS",
      "CORE_PUBLIC_URL", "CORE_TRUST_PROXY", "NODE_ENV", "LOG_LEVEL",
      "CORE_UPSTREAM_IAM_URL", "CORE_UPSTREAM_REGISTRY_URL", "CORE_UPSTREAM_STACKS_URL", "CORE_UPSTREAM_PROVISIONING_URL",
      "CORE_UPSTREAM_BILLING_URL", "CORE_UPSTREAM_CLI_URL", "CORE_UPSTREAM_VAULT_URL"
    ]))
    for (const domain of ["SMTP_URL", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_API_TOKEN", "GITHUB_TOKEN"]) {
      expect(VARIABLE_NAMES).not.toContain(domain)
    }
  })

  it("lists every variable in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    for (const name of VARIABLE_NAMES) expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"))
  })

  it.effect("provides the service from a plain object and fails the layer with ConfigError", () =>
    Effect.gen(function*() {
      const config = yield* Effect.provide(CoreConfig, CoreConfig.layer({ NODE_ENV: "test", PORT: "0" }))
      expect(config.port).toBe(0)
      const exit = yield* Effect.exit(Effect.provide(CoreConfig, CoreConfig.layer({ PORT: "-1" })))
      expect(exit).toStrictEqual(Exit.fail(expect.any(ConfigError)))
    }))

  describe("setting, for a domain's own variables", () => {
    const read = <A>(config: Config.Config<A>, env: Record<string, string>) =>
      Effect.runSync(Effect.either(Effect.withConfigProvider(config, provider(env))))
    const smtp = Config.option(setting("SMTP_URL", { test: isUrl(["smtp", "smtps"]), must: "must be an smtp:// or smtps:// URL" }))
    const key = Config.option(redactedSetting("KEY", { test: (value) => value.startsWith("k_"), must: "must start with k_" }))

    it("reads the value; unset or blank is None", () => {
      expect(read(smtp, { SMTP_URL: "smtp://mail.example.com" })).toEqual(Either.right(Option.some("smtp://mail.example.com")))
      expect(read(smtp, {})).toEqual(Either.right(Option.none()))
      expect(read(smtp, { SMTP_URL: "  " })).toEqual(Either.right(Option.none()))
      expect(Either.map(read(key, { KEY: "k_1" }), Option.map(Redacted.value))).toEqual(Either.right(Option.some("k_1")))
      expect(read(key, { KEY: " " })).toEqual(Either.right(Option.none()))
    })

    it("fails at the variable with the kernel's message, without the value of a secret", () => {
      const bad = read(Config.all([smtp, key]), { SMTP_URL: "http://x", KEY: "leaked" })
      expect(Either.isLeft(bad)).toBe(true)
      expect(issuesOf(Either.getLeft(bad).pipe(Option.getOrThrow))).toEqual([
        { variable: "SMTP_URL", message: "SMTP_URL must be an smtp:// or smtps:// URL (got \"http://x\")" },
        { variable: "KEY", message: "KEY must start with k_" }
      ])
    })

    it("names the variable of any other ConfigError", () => {
      expect(issuesOf(EffectConfigError.And(
        EffectConfigError.MissingData(["TOKEN"], "Expected TOKEN to exist in the process context"),
        EffectConfigError.InvalidData(["COUNT"], "Expected an integer value but received \"x\"")
      ))).toEqual([
        { variable: "TOKEN", message: "TOKEN is required" },
        { variable: "COUNT", message: "COUNT: Expected an integer value but received \"x\"" }
      ])
    })
  })
})
