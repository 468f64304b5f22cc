import { Config as EffectConfig, ConfigError as EffectConfigError, ConfigProvider, Context, Data, Effect, Either, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { z } from "zod"

/** The environment variables configuration is read from (`process.env`, or a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>

/** The services the gateway can reach over HTTP, named as in `CORE_UPSTREAM_<SERVICE>_URL`. */
export const UPSTREAM_SERVICES = ["iam", "registry", "stacks", "provisioning", "billing", "cli", "vault"] as const
export type UpstreamService = (typeof UPSTREAM_SERVICES)[number]

/** Accepted values of `LOG_LEVEL`. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "none"] as const
export type LogLevelName = (typeof LOG_LEVELS)[number]

/** Accepted values of `NODE_ENV`. */
/** Default requests a minute per `{ip}:{path}` (`CORE_RATE_LIMIT_PER_MINUTE`). */
export const DEFAULT_RATE_LIMIT = 600
/** Default requests a minute for sign-up, sign-in and reset routes (`CORE_RATE_LIMIT_AUTH_PER_MINUTE`). */
export const DEFAULT_AUTH_RATE_LIMIT = 10
/** Default wait for an HTTP upstream's response headers (`CORE_UPSTREAM_TIMEOUT_MS`). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000

export const NODE_ENVS = ["development", "production", "test"] as const
export type NodeEnv = (typeof NODE_ENVS)[number]

/** Where the resolved `CORE_SECRET` came from. */
export type SecretSource = "env" | "file" | "memory"

/**
 * The typed configuration every Core service shares (DESIGN §10). Credentials are `Redacted`. A
 * domain's own settings (`SMTP_URL`, Stripe, Cloudflare, `GITHUB_TOKEN`) live in its package's
 * `src/Config.ts`, read with Effect's `Config` through `setting` below.
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
  /** `CORE_UPSTREAM_<SERVICE>_URL` for each service configured to run in another process. */
  readonly upstreams: Readonly<Partial<Record<UpstreamService, string>>>
  /** `CORE_TRUST_PROXY`: take the client address from `X-Forwarded-For`. @default false */
  readonly trustProxy: boolean
  /** `LOG_LEVEL`. @default "info" */
  /** Requests a minute per `{ip}:{path}`, and for the sign-up, sign-in and reset routes (DESIGN §6). */
  readonly rateLimits: { readonly perMinute: number; readonly authPerMinute: number }
  /** How long the gateway waits for an HTTP upstream's response headers. */
  readonly upstreamTimeoutMs: number
  readonly logLevel: LogLevelName
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
const SECRET_FILE = "secret"
const PRODUCTION_SECRET_LENGTH = 32
const PRODUCTION_STATIC_KEY_LENGTH = 16

/** Whether `value` is a URL with one of `protocols` (without the colon: `"smtp"`, `"https"`). */
export const isUrl = (protocols: ReadonlyArray<string>) => (value: string): boolean => {
  try {
    return protocols.includes(new URL(value).protocol.replace(/:$/, ""))
  } catch {
    return false
  }
}

const url = (protocols: ReadonlyArray<string>) => z.string().refine(isUrl(protocols))

const httpUrl = url(["http", "https"]).transform((value) => value.replace(/\/+$/, ""))

const origin = z.string().refine((value) => {
  try {
    const parsed = new URL(value)
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.origin === value
  } catch {
    return false
  }
})

const flag = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.enum(["1", "0", "true", "false", "yes", "no", "on", "off"]))
  .transform((value) => ["1", "true", "yes", "on"].includes(value))

interface Variable<A> {
  readonly schema: z.ZodType<A, string>
  readonly must: string
  readonly secret?: boolean
}

const variable = <A>(schema: z.ZodType<A, string>, must: string, secret = false): Variable<A> => ({
  schema,
  must,
  secret
})

const positiveInt = z.string().regex(/^\d{1,7}$/).transform(Number).pipe(z.number().int().min(1).max(1_000_000))

const VARIABLES = {
  NODE_ENV: variable(z.enum(NODE_ENVS), `must be one of ${NODE_ENVS.join(", ")}`),
  PORT: variable(
    z.string().regex(/^\d{1,5}$/).transform(Number).pipe(z.number().int().min(0).max(65535)),
    "must be an integer between 0 and 65535"
  ),
  CORE_DATA_DIR: variable(z.string(), "must be a directory path or :memory:"),
  DATABASE_URL: variable(url(["postgres", "postgresql"]), "must be a postgres:// or postgresql:// URL"),
  REDIS_URL: variable(url(["redis", "rediss"]), "must be a redis:// or rediss:// URL"),
  CORE_STATIC_API_KEY: variable(z.string().min(1), "must not be empty", true),
  CORE_SECRET: variable(z.string().min(1), "must not be empty", true),
  CORE_CORS_ORIGINS: variable(
    z.string().transform((value) => value.split(",").map((item) => item.trim().replace(/\/+$/, "")).filter((item) => item !== "")).pipe(z.array(origin)),
    "must be a comma-separated list of origins such as https://app.example.com"
  ),
  CORE_PUBLIC_URL: variable(httpUrl, "must be an http:// or https:// URL"),
  CORE_TRUST_PROXY: variable(flag, "must be 1, 0, true, false, yes, no, on or off"),
  CORE_RATE_LIMIT_PER_MINUTE: variable(positiveInt, "must be a whole number from 1 to 1000000"),
  CORE_RATE_LIMIT_AUTH_PER_MINUTE: variable(positiveInt, "must be a whole number from 1 to 1000000"),
  CORE_UPSTREAM_TIMEOUT_MS: variable(positiveInt, "must be a whole number of milliseconds from 1 to 1000000"),
  LOG_LEVEL: variable(
    z.string().transform((value) => value.toLowerCase()).pipe(z.enum(LOG_LEVELS)),
    `must be one of ${LOG_LEVELS.join(", ")}`
  )
} as const

const upstreamVariable = (service: UpstreamService) => `CORE_UPSTREAM_${service.toUpperCase()}_URL`

/**
 * Every variable of the shared configuration, for documentation and `.env.example` checks (each
 * domain's own variables are checked by its package).
 */
export const VARIABLE_NAMES: ReadonlyArray<string> = [
  ...Object.keys(VARIABLES),
  ...UPSTREAM_SERVICES.map(upstreamVariable)
]

type Values = { -readonly [K in keyof typeof VARIABLES]: z.output<(typeof VARIABLES)[K]["schema"]> | undefined }

const isBlank = (value: string): boolean => value.trim() === ""

const blankToUndefined = (value: string | undefined): string | undefined =>
  value === undefined || isBlank(value) ? undefined : value

const mustMessage = (name: string, must: string, raw: string, secret: boolean): string =>
  `${name} ${must}${secret ? "" : ` (got ${JSON.stringify(raw)})`}`

const readVariables = (env: Env, issues: Array<ConfigIssue>): Values => {
  const values: Partial<Record<string, unknown>> = {}
  const read = (name: string, spec: Variable<unknown>) => {
    const raw = blankToUndefined(env[name])
    if (raw === undefined) return undefined
    const result = spec.schema.safeParse(raw)
    if (result.success) return result.data
    issues.push({ variable: name, message: mustMessage(name, spec.must, raw, spec.secret === true) })
    return undefined
  }
  for (const [name, spec] of Object.entries(VARIABLES)) values[name] = read(name, spec)
  for (const service of UPSTREAM_SERVICES) {
    const name = upstreamVariable(service)
    values[name] = read(name, variable(httpUrl, "must be an http:// or https:// URL"))
  }
  return values as Values
}

const resolveDataDir = (raw: string | undefined, nodeEnv: NodeEnv): string | undefined => {
  if (raw === IN_MEMORY) return undefined
  if (raw === undefined) return nodeEnv === "test" ? undefined : resolve(DEFAULT_DATA_DIR)
  return resolve(raw)
}

const newSecret = (): string => randomBytes(32).toString("base64url")

const isErrno = (error: unknown, code: string): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === code

/** Read `<dataDir>/secret`, creating it (mode 0600) with 32 random bytes on first use. */
const persistedSecret = (dataDir: string): Either.Either<string, ConfigIssue> => {
  const file = join(dataDir, SECRET_FILE)
  const readExisting = (): Either.Either<string, ConfigIssue> => {
    const stored = readFileSync(file, "utf8").trim()
    return stored.length >= PRODUCTION_SECRET_LENGTH
      ? Either.right(stored)
      : Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET is unset and ${file} does not hold a valid secret` })
  }
  try {
    return readExisting()
  } catch (error) {
    if (!isErrno(error, "ENOENT")) {
      return Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET is unset and ${file} cannot be read (${String(error)})` })
    }
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    const secret = newSecret()
    writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" })
    return Either.right(secret)
  } catch (error) {
    if (isErrno(error, "EEXIST")) return readExisting()
    return Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET is unset and ${file} cannot be created (${String(error)})` })
  }
}

const resolveSecret = (
  values: Values,
  nodeEnv: NodeEnv,
  dataDir: string | undefined
): Either.Either<{ secret: string; source: SecretSource }, ConfigIssue> => {
  if (values.CORE_SECRET !== undefined) {
    return nodeEnv === "production" && values.CORE_SECRET.length < PRODUCTION_SECRET_LENGTH
      ? Either.left({ variable: "CORE_SECRET", message: `CORE_SECRET must be at least ${PRODUCTION_SECRET_LENGTH} characters when NODE_ENV=production` })
      : Either.right({ secret: values.CORE_SECRET, source: "env" })
  }
  if (nodeEnv === "production") {
    return Either.left({ variable: "CORE_SECRET", message: "CORE_SECRET is required when NODE_ENV=production" })
  }
  if (dataDir === undefined) return Either.right({ secret: newSecret(), source: "memory" })
  return Either.map(persistedSecret(dataDir), (secret) => ({ secret, source: "file" as const }))
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
    upstreams,
    trustProxy: values.CORE_TRUST_PROXY ?? false,
    rateLimits: {
      perMinute: values.CORE_RATE_LIMIT_PER_MINUTE ?? DEFAULT_RATE_LIMIT,
      authPerMinute: values.CORE_RATE_LIMIT_AUTH_PER_MINUTE ?? DEFAULT_AUTH_RATE_LIMIT
    },
    upstreamTimeoutMs: values.CORE_UPSTREAM_TIMEOUT_MS ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    logLevel: values.LOG_LEVEL ?? "info"
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

/** What a domain's variable must hold: the test, and how the message says it ("must be …"). */
export interface Rule {
  readonly test: (value: string) => boolean
  readonly must: string
}

const check = (name: string, rule: Rule, secret: boolean, path: ReadonlyArray<string>) =>
(raw: string): Either.Either<string, EffectConfigError.ConfigError> =>
  isBlank(raw)
    ? Either.left(EffectConfigError.MissingData([...path], `${name} is unset`))
    : rule.test(raw)
    ? Either.right(raw)
    : Either.left(EffectConfigError.InvalidData([...path], mustMessage(name, rule.must, raw, secret)))

/**
 * One variable of a domain's own settings (its `src/Config.ts`), read with Effect's `Config` by the
 * rules of the shared configuration (decision 0031): a blank value counts as unset (`MissingData`,
 * which `Config.option` turns into `None`), and a value that breaks `rule` fails with `InvalidData` at
 * the variable, its message naming it as the kernel's do: `SMTP_URL must be an smtp:// or smtps://
 * URL (got "http://x")`.
 *
 * @example
 * const smtpUrl = Config.option(setting("SMTP_URL", { test: isUrl(["smtp", "smtps"]), must: "must be an smtp:// or smtps:// URL" }))
 */
export const setting = (name: string, rule: Rule): EffectConfig.Config<string> =>
  EffectConfig.string(name).pipe(EffectConfig.mapOrFail(check(name, rule, false, [])))

/**
 * `setting` for a credential: read with `Config.redacted`, and the message of a bad value never
 * shows it (`STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)`).
 */
export const redactedSetting = (name: string, rule: Rule): EffectConfig.Config<Redacted.Redacted<string>> =>
  EffectConfig.redacted(name).pipe(
    EffectConfig.mapOrFail((value) => Either.map(check(name, rule, true, [name])(Redacted.value(value)), () => value))
  )

const issueAt = (path: ReadonlyArray<string>, message: string, otherwise: (variable: string) => string): ConfigIssue => {
  const variable = path.join("_")
  return { variable, message: variable === "" || message.startsWith(`${variable} `) ? message : otherwise(variable) }
}

/**
 * The issues of an Effect `ConfigError` (a domain's settings), one per failing variable, with the
 * message `setting` wrote (others are prefixed with the variable), for `parseConfig`'s `others`.
 */
export const issuesOf = (error: EffectConfigError.ConfigError): ReadonlyArray<ConfigIssue> =>
  EffectConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left: ReadonlyArray<ConfigIssue>, right: ReadonlyArray<ConfigIssue>) => [...left, ...right],
    orCase: (_, left: ReadonlyArray<ConfigIssue>, right: ReadonlyArray<ConfigIssue>) => [...left, ...right],
    invalidDataCase: (_, path, message) => [issueAt(path, message, (variable) => `${variable}: ${message}`)],
    missingDataCase: (_, path, message) => [issueAt(path, message, (variable) => `${variable} is required`)],
    sourceUnavailableCase: (_, path, message) => [issueAt(path, message, (variable) => `${variable}: ${message}`)],
    unsupportedCase: (_, path, message) => [issueAt(path, message, (variable) => `${variable}: ${message}`)]
  })

/** The `ConfigProvider` over `env` (a plain object in tests and hosts), for the domains' settings. */
export const provider = (env: Env = process.env): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
  )
