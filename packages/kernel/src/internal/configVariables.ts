/**
 * The environment variables of the shared configuration: the values each accepts, the check and
 * the message of each, and reading them all from an environment (a blank value counts as unset).
 */
import { SERVICE_NAMES, type ServiceName } from "@core/contracts"
import { z } from "zod"
import type { ConfigIssue, Env } from "../Config.js"

/**
 * The services the gateway can reach over HTTP, named as in `CORE_UPSTREAM_<SERVICE>_URL`: every
 * service declared in `@core/contracts` (`ServiceDeclarations.ts`).
 */
export const UPSTREAM_SERVICES: ReadonlyArray<ServiceName> = SERVICE_NAMES
export type UpstreamService = ServiceName

/** Accepted values of `CORE_LOG_LEVEL` (and its older name `LOG_LEVEL`). */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "none"] as const
export type LogLevelName = (typeof LOG_LEVELS)[number]

/** Accepted values of `NODE_ENV`. */
export const NODE_ENVS = ["development", "production", "test"] as const
export type NodeEnv = (typeof NODE_ENVS)[number]

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
  CORE_LOG_LEVEL: variable(
    z.string().transform((value) => value.toLowerCase()).pipe(z.enum(LOG_LEVELS)),
    `must be one of ${LOG_LEVELS.join(", ")}`
  ),
  LOG_LEVEL: variable(
    z.string().transform((value) => value.toLowerCase()).pipe(z.enum(LOG_LEVELS)),
    `must be one of ${LOG_LEVELS.join(", ")}`
  ),
  CORE_MIGRATIONS_OUT_OF_ORDER: variable(flag, "must be 1, 0, true, false, yes, no, on or off")
} as const

/** The variable naming a service's HTTP upstream: `CORE_UPSTREAM_<SERVICE>_URL`. */
export const upstreamVariable = (service: UpstreamService) => `CORE_UPSTREAM_${service.toUpperCase()}_URL`

/**
 * Every variable of the shared configuration, for documentation and `.env.example` checks (each
 * domain's own variables are checked by its package).
 */
export const VARIABLE_NAMES: ReadonlyArray<string> = [
  ...Object.keys(VARIABLES),
  ...UPSTREAM_SERVICES.map(upstreamVariable)
]

/** Each variable's checked value, `undefined` when it is unset or malformed. */
export type Values = { -readonly [K in keyof typeof VARIABLES]: z.output<(typeof VARIABLES)[K]["schema"]> | undefined }

/** Whether a variable's value counts as unset. */
export const isBlank = (value: string): boolean => value.trim() === ""

const blankToUndefined = (value: string | undefined): string | undefined =>
  value === undefined || isBlank(value) ? undefined : value

/** The message of a malformed variable: `NAME must … (got "raw")`, never showing a secret's value. */
export const mustMessage = (name: string, must: string, raw: string, secret: boolean): string =>
  `${name} ${must}${secret ? "" : ` (got ${JSON.stringify(raw)})`}`

/** Every variable of `env` checked, each malformed one's issue pushed onto `issues`. */
export const readVariables = (env: Env, issues: Array<ConfigIssue>): Values => {
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
