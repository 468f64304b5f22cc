/**
 * A domain's own settings (its `src/Config.ts`), read with Effect's `Config` by the rules of the
 * shared configuration, and their failures turned into the shared configuration's issues.
 */
import { Config as EffectConfig, ConfigError as EffectConfigError, ConfigProvider, Either, Redacted } from "effect"
import type { ConfigIssue, Env } from "../Config.js"
import { isBlank, mustMessage } from "./configVariables.js"

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
