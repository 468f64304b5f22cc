import { Context, Data, Effect, Either, Layer, Redacted } from "effect"
import { resolve } from "node:path"
import { type LogLevelName, type NodeEnv, readVariables, UPSTREAM_SERVICES, type UpstreamService, upstreamVariable } from "./internal/configVariables.js"
import { resolveSecret } from "./internal/coreSecret.js"

export {
  isUrl,
  LOG_LEVELS,
  type LogLevelName,
  NODE_ENVS,
  type NodeEnv,
  UPSTREAM_SERVICES,
  type UpstreamService,
  VARIABLE_NAMES
} from "./internal/configVariables.js"
export { issuesOf, provider, redactedSetting, type Rule, setting } from "./internal/domainSettings.js"

/** The environment variables configuration is read from (`process.env`, or a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>

/** Default requests a minute per `{ip}:{path}` (`CORE_RATE_LIMIT_PER_MINUTE`). */
export const DEFAULT_RATE_LIMIT = 600
/** Default requests a minute for sign-up, sign-in and reset routes (`CORE_RATE_LIMIT_AUTH_PER_MINUTE`). */
export const DEFAULT_AUTH_RATE_LIMIT = 10
/** Default wait for an HTTP upstream's response headers (`CORE_UPSTREAM_TIMEOUT_MS`). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000

/** Where the resolved `CORE_SECRET` came from. */
export type SecretSource = "env" | "file" | "memory"

/**
 * The typed configuration every Core service shares (docs/configuration.md). Credentials are `Redacted`. A
 * domain's own settings (`SMTP_URL`, Stripe, Cloudflare, `GITHUB_TOKEN`) live in its package's
 * `src/Config.ts`, read with Effect's `Config` through `setting`.
 */
export interface Configuration {
  readonly nodeEnv: NodeEnv
  /** `PORT`. @default 8787 */
  readonly port: number
  /** `CORE_DATA_DIR` as an absolute path; `undefined` keeps data in memory (tests, or `:memory:`). */
  readonly dataDir: string | undefined
  readonly databaseUrl: string | undefined
  readonly redisUrl: string | undefined
  /** `CORE_STATIC_API_KEY`; `undefined` means the development bypass. */
  readonly staticApiKey: Redacted.Redacted<string> | undefined
  /** `CORE_SECRET`, the root of encryption and signing keys (see `Crypto.deriveKey`). */
  readonly secret: Redacted.Redacted<string>
  readonly secretSource: SecretSource
  readonly corsOrigins: ReadonlyArray<string>
  /** `CORE_PUBLIC_URL` without a trailing slash. @default `http://localhost:<PORT>` */
  readonly publicUrl: string
  /**
   * Whether `CORE_PUBLIC_URL` was set. When it was not, the addresses a service publishes follow the
   * request's origin (`PublicUrl.root`), not the default above, which names this process's own port.
   */
  readonly publicUrlSet: boolean
  /** `CORE_UPSTREAM_<SERVICE>_URL` for each service configured to run in another process. */
  readonly upstreams: Readonly<Partial<Record<UpstreamService, string>>>
  /** `CORE_TRUST_PROXY`: take the client address from `X-Forwarded-For`. @default false */
  readonly trustProxy: boolean
  /** Requests a minute per `{ip}:{path}`, and for the sign-up, sign-in and reset routes (docs/gateway.md). */
  readonly rateLimits: { readonly perMinute: number; readonly authPerMinute: number }
  /** How long the gateway waits for an HTTP upstream's response headers. */
  readonly upstreamTimeoutMs: number
  /** `CORE_LOG_LEVEL` (or its older name `LOG_LEVEL`). @default "info" */
  readonly logLevel: LogLevelName
  /**
   * Whether `CORE_LOG_LEVEL` or `LOG_LEVEL` was set: on a terminal the server then prints its log
   * lines at that level; otherwise a terminal shows warnings and errors only (docs/decisions/0581).
   */
  readonly logLevelSet: boolean
  /**
   * `CORE_MIGRATIONS_OUT_OF_ORDER`: apply a migration numbered below one already applied instead of
   * refusing to start (docs/decisions/0584). @default false
   */
  readonly migrationsOutOfOrder: boolean
}

/** One configuration variable that is missing or malformed. */
export interface ConfigIssue {
  readonly variable: string
  readonly message: string
}

/** The environment does not make a valid configuration; the message names every bad variable. */
export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly message: string
  readonly issues: ReadonlyArray<ConfigIssue>
}> {}

const DEFAULT_PORT = 8787
const DEFAULT_DATA_DIR = "./.core/data"
const IN_MEMORY = ":memory:"
const PRODUCTION_STATIC_KEY_LENGTH = 16

const resolveDataDir = (raw: string | undefined, nodeEnv: NodeEnv): string | undefined => {
  if (raw === IN_MEMORY) return undefined
  if (raw === undefined) return nodeEnv === "test" ? undefined : resolve(DEFAULT_DATA_DIR)
  return resolve(raw)
}

/**
 * Parse the environment into a `Configuration`, or a `ConfigError` naming each bad variable.
 * Reads only `env`; without `CORE_SECRET` outside production it reads or creates `<dataDir>/secret`.
 * `others` are the issues the domains' own settings found in the same environment (`issuesOf`): they
 * join the message after the shared ones, and while there is any issue no secret file is created.
 */
export const parseConfig = (env: Env, others: ReadonlyArray<ConfigIssue> = []): Either.Either<Configuration, ConfigError> => {
  const issues: Array<ConfigIssue> = []
  const values = readVariables(env, issues)
  const nodeEnv = values.NODE_ENV ?? "development"
  const port = values.PORT ?? DEFAULT_PORT
  const dataDir = resolveDataDir(values.CORE_DATA_DIR, nodeEnv)
  const staticApiKey = values.CORE_STATIC_API_KEY
  if (nodeEnv === "production" && staticApiKey !== undefined && staticApiKey.length < PRODUCTION_STATIC_KEY_LENGTH) {
    issues.push({
      variable: "CORE_STATIC_API_KEY",
      message: `CORE_STATIC_API_KEY must be at least ${PRODUCTION_STATIC_KEY_LENGTH} characters when NODE_ENV=production`
    })
  }
  if (nodeEnv === "production" && staticApiKey === undefined && !issues.some((issue) => issue.variable === "CORE_STATIC_API_KEY")) {
    issues.push({
      variable: "CORE_STATIC_API_KEY",
      message: "CORE_STATIC_API_KEY is required when NODE_ENV=production (without it the gateway lets unauthenticated requests through)"
    })
  }
  issues.push(...others)
  const secret = issues.length === 0 ? resolveSecret(values, nodeEnv, dataDir) : undefined
  if (secret !== undefined && Either.isLeft(secret)) issues.push(secret.left)
  if (issues.length > 0 || secret === undefined || Either.isLeft(secret)) {
    return Either.left(
      new ConfigError({ message: `Invalid configuration: ${issues.map((issue) => issue.message).join("; ")}`, issues })
    )
  }
  const upstreams: Partial<Record<UpstreamService, string>> = {}
  for (const service of UPSTREAM_SERVICES) {
    const value = (values as Record<string, unknown>)[upstreamVariable(service)]
    if (typeof value === "string") upstreams[service] = value
  }
  const redact = (value: string | undefined) => (value === undefined ? undefined : Redacted.make(value))
  return Either.right({
    nodeEnv,
    port,
    dataDir,
    databaseUrl: values.DATABASE_URL,
    redisUrl: values.REDIS_URL,
    staticApiKey: redact(staticApiKey),
    secret: Redacted.make(secret.right.secret),
    secretSource: secret.right.source,
    corsOrigins: values.CORE_CORS_ORIGINS ?? [],
    publicUrl: values.CORE_PUBLIC_URL ?? `http://localhost:${port}`,
    publicUrlSet: values.CORE_PUBLIC_URL !== undefined,
    upstreams,
    trustProxy: values.CORE_TRUST_PROXY ?? false,
    rateLimits: {
      perMinute: values.CORE_RATE_LIMIT_PER_MINUTE ?? DEFAULT_RATE_LIMIT,
      authPerMinute: values.CORE_RATE_LIMIT_AUTH_PER_MINUTE ?? DEFAULT_AUTH_RATE_LIMIT
    },
    upstreamTimeoutMs: values.CORE_UPSTREAM_TIMEOUT_MS ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    logLevel: values.CORE_LOG_LEVEL ?? values.LOG_LEVEL ?? "info",
    logLevelSet: values.CORE_LOG_LEVEL !== undefined || values.LOG_LEVEL !== undefined,
    migrationsOutOfOrder: values.CORE_MIGRATIONS_OUT_OF_ORDER ?? false
  })
}

/**
 * Parse the environment once at start. Throws `ConfigError` (its message names each bad variable),
 * for entry points that print the message and exit.
 *
 * @example
 * const config = loadConfig(process.env)
 */
export const loadConfig = (env: Env = process.env): Configuration => {
  const result = parseConfig(env)
  if (Either.isLeft(result)) throw result.left
  return result.right
}

/** The configuration of this process, as an Effect service. */
export class CoreConfig extends Context.Tag("@core/kernel/CoreConfig")<CoreConfig, Configuration>() {
  /** Parse `env` (a plain object in tests) into the service; fails with `ConfigError`. */
  static readonly layer = (env: Env): Layer.Layer<CoreConfig, ConfigError> =>
    Layer.effect(CoreConfig, Effect.suspend(() => parseConfig(env)))

  /** Parse `process.env` into the service; fails with `ConfigError`. */
  static readonly layerFromEnv: Layer.Layer<CoreConfig, ConfigError> = Layer.effect(
    CoreConfig,
    Effect.suspend(() => parseConfig(process.env))
  )
}
