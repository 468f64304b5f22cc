import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { expectPositionals, parseOptions } from "../args.js"
import { AUDIENCE, credentialPaths, writeCredentials, type Credentials } from "../credentials.js"
import { CliError, ExitCode } from "../errors.js"
import { causeLines, IAM_PREFIX } from "./login-causes.js"
import {
  API_KEY_PATTERN,
  isApiKey,
  joinUrl,
  lookupIdentity,
  pollDeviceToken,
  requestDeviceCode,
  type DeviceCode,
  type Identity,
  type Outcome,
  type Tokens
} from "../oauth.js"
import type { CommandContext } from "../spec.js"
import type { Spinner, Ui } from "../ui.js"

type Env = CommandContext["env"]

const USAGE = "core login [--token <token>] [--iam-url <url>] [--no-browser]"
const DEFAULT_API_URL = "http://localhost:8787"
const TOKEN_MODE_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000
const POLL_TIMEOUT_MS = 5 * 60 * 1000
const SLOW_DOWN_SECONDS = 5
const TRANSIENT_FAILURES = 3

/** The seed's messages for the ways a device login ends without success (exit code 1). */
export const messages = {
  unreachable: (iamUrl: string) =>
    `Interactive login is unavailable and the identity service cannot be reached at ${iamUrl}; use the token option: core login --token <token>`,
  endpoint: (status: number | string) => `Device login endpoint not available (${status})`,
  expired: "Code expired. Run: core login",
  denied: "Access denied.",
  timedOut: "Login timed out. Run: core login",
  malformedKey:
    "This is not a well-formed API key: an API key is core_ followed by 43 letters, digits, '-' or '_' (was it cut short when copied?). Nothing was stored.",
  unknownKey: (iamUrl: string) =>
    `This API key is unknown to the identity service at ${iamUrl}: it was never issued there, or it was revoked or has expired. Nothing was stored.`
} as const

const failure = (message: string, code: string, lines?: ReadonlyArray<string>) =>
  new CliError(message, ExitCode.failure, code, lines === undefined ? {} : { lines })

const httpAddress = (value: string, source: string): string => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw failure(`Invalid address '${value}' (from ${source}): expected an http(s) URL`, "INVALID_ADDRESS")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw failure(`Invalid address '${value}' (from ${source}): expected an http(s) URL`, "INVALID_ADDRESS")
  }
  return value.replace(/\/+$/, "")
}

/**
 * The identity address in the seed's order (flag, `CORE_IAM_URL`, `<api url>/api/v1/iam`) and the
 * gateway address (`CORE_API_URL`, else the part of the identity address before `/api/v1/iam`,
 * else `http://localhost:8787`).
 */
export const resolveAddresses = (flag: string | undefined, env: Env): { readonly iamUrl: string; readonly apiUrl: string } => {
  const explicitIam = flag !== undefined ? httpAddress(flag, "--iam-url") : env.CORE_IAM_URL ? httpAddress(env.CORE_IAM_URL, "CORE_IAM_URL") : undefined
  const apiUrl = env.CORE_API_URL
    ? httpAddress(env.CORE_API_URL, "CORE_API_URL")
    : explicitIam?.endsWith(IAM_PREFIX)
      ? explicitIam.slice(0, -IAM_PREFIX.length)
      : DEFAULT_API_URL
  return { iamUrl: explicitIam ?? `${apiUrl}${IAM_PREFIX}`, apiUrl }
}

const milliseconds = (env: Env, name: string, fallback: number): number => {
  const raw = env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw failure(`${name} must be a positive number of milliseconds, got '${raw}'`, "INVALID_CONFIG")
  return value
}

const readToken = (value: string): string => {
  const token = (value === "-" ? readFileSync(0, "utf8") : value).trim()
  if (token === "") throw failure(`The token is empty. Usage: ${USAGE}`, "USAGE")
  return token
}

const explain = (outcome: Exclude<Outcome<unknown>, { _tag: "Ok" }>): string => {
  switch (outcome._tag) {
    case "Unreachable":
      return outcome.reason
    case "OAuthError":
      return `${outcome.status} ${outcome.error}${outcome.description ? `: ${outcome.description}` : ""}`
    case "HttpError":
      return `${outcome.status}: ${outcome.message}${outcome.requestId ? `, request id ${outcome.requestId}` : ""}`
  }
}

const summary = (credentials: Credentials) => ({
  email: credentials.email,
  platformId: credentials.platformId,
  role: credentials.role,
  expiresAt: credentials.expiresAt,
  iamUrl: credentials.iamUrl,
  apiUrl: credentials.apiUrl
})

/**
 * Token mode. An API key is checked for its shape first (a malformed one is refused, nothing sent);
 * a well-formed key the service refuses is unknown to it (never issued there, revoked or expired).
 */
const tokenLogin = async (ui: Ui, token: string, addresses: { iamUrl: string; apiUrl: string }): Promise<Credentials> => {
  if (isApiKey(token) && !API_KEY_PATTERN.test(token)) throw failure(messages.malformedKey, "MALFORMED_API_KEY")
  const lookup = await lookupIdentity(addresses.iamUrl, token)
  const rejected = lookup._tag !== "Ok" && lookup._tag !== "Unreachable" && (lookup.status === 401 || lookup.status === 403)
  if (rejected && isApiKey(token)) throw failure(messages.unknownKey(addresses.iamUrl), "UNKNOWN_API_KEY")
  if (rejected) throw failure(`The identity service at ${addresses.iamUrl} rejected the token (${explain(lookup)})`, "TOKEN_REJECTED")
  const fallbackExpiry = new Date(Date.now() + TOKEN_MODE_LIFETIME_MS).toISOString()
  const identity: Identity = lookup._tag === "Ok" ? lookup.value : { email: "ci-user", platformId: null, role: "unknown", expiresAt: undefined }
  if (lookup._tag !== "Ok") {
    ui.error(`Could not look up the token's identity at ${addresses.iamUrl} (${explain(lookup)}); stored it for ci-user.`)
    const [, ...cause] = causeLines(addresses.iamUrl, joinUrl(addresses.iamUrl, "/api/v1/cli/whoami"), lookup)
    for (const line of cause) ui.error(`  ${line}`)
  }
  return {
    token,
    refreshToken: null,
    email: identity.email,
    platformId: identity.platformId,
    role: identity.role,
    expiresAt: identity.expiresAt ?? fallbackExpiry,
    ...addresses,
    audience: AUDIENCE
  }
}

/** Whether to try a browser: asked for, on a terminal, not CI, and on Linux only with a display. */
const mayOpenBrowser = (ui: Ui, env: Env, noBrowser: boolean): boolean =>
  !noBrowser && ui.interactive && !env.CI && (process.platform !== "linux" || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY))

/** Starts the system's browser at `url` (`$BROWSER`, `open`, `xdg-open`, or the Windows URL handler); never fails. */
const openBrowser = (url: string, env: Env): void => {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
        : ["xdg-open", [url]]
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true })
    child.on("error", () => undefined)
    child.unref()
  } catch {
    /* No browser: the printed address is enough. */
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

const waitForApproval = async (env: Env, iamUrl: string, code: DeviceCode, spinner: Spinner): Promise<Tokens> => {
  const unit = milliseconds(env, "CORE_LOGIN_POLL_UNIT_MS", 1000)
  const started = Date.now()
  const timeoutAt = started + milliseconds(env, "CORE_LOGIN_TIMEOUT_MS", POLL_TIMEOUT_MS)
  const expiresAt = started + code.expiresIn * 1000
  const giveUp = () => failure(timeoutAt <= expiresAt ? messages.timedOut : messages.expired, timeoutAt <= expiresAt ? "TIMED_OUT" : "EXPIRED")
  let interval = code.interval
  let transient = 0
  for (;;) {
    await sleep(Math.min(interval * unit, Math.min(timeoutAt, expiresAt) - Date.now()))
    const outcome = await pollDeviceToken(iamUrl, code.deviceCode)
    if (outcome._tag === "Ok") return outcome.value
    if (outcome._tag === "OAuthError") {
      transient = 0
      if (outcome.error === "expired_token") throw failure(messages.expired, "EXPIRED")
      if (outcome.error === "access_denied") throw failure(messages.denied, "ACCESS_DENIED")
      if (outcome.error === "slow_down") {
        interval += SLOW_DOWN_SECONDS
        spinner.update(`Waiting for approval (polling every ${interval} s)`)
      } else if (outcome.error !== "authorization_pending") {
        throw failure(`Device login failed (${explain(outcome)})`, "DEVICE_LOGIN_FAILED")
      }
    } else if (outcome._tag === "Unreachable" || outcome.status === 429 || outcome.status >= 500) {
      transient += 1
      if (transient >= TRANSIENT_FAILURES) {
        throw failure(
          outcome._tag === "Unreachable"
            ? `The identity service cannot be reached at ${iamUrl} (${outcome.reason}). Run: core login`
            : messages.endpoint(outcome.status),
          outcome._tag === "Unreachable" ? "UNREACHABLE" : "DEVICE_ENDPOINT_UNAVAILABLE"
        )
      }
    } else {
      throw failure(messages.endpoint(outcome.status), "DEVICE_ENDPOINT_UNAVAILABLE")
    }
    if (Date.now() >= Math.min(timeoutAt, expiresAt)) throw giveUp()
  }
}

const deviceLogin = async (
  ui: Ui,
  env: Env,
  addresses: { iamUrl: string; apiUrl: string },
  noBrowser: boolean
): Promise<Credentials> => {
  const requested = await requestDeviceCode(addresses.iamUrl)
  if (requested._tag !== "Ok") {
    const lines = causeLines(addresses.iamUrl, joinUrl(addresses.iamUrl, "/oauth/device/code"), requested)
    if (requested._tag === "Unreachable") throw failure(messages.unreachable(addresses.iamUrl), "UNREACHABLE", lines)
    throw failure(messages.endpoint(requested.status), "DEVICE_ENDPOINT_UNAVAILABLE", lines)
  }
  const code = requested.value
  const say = ui.json ? ui.error : ui.line
  say(`To log in, open ${code.verificationUri} and enter the code ${code.userCode}`)
  if (code.verificationUriComplete !== undefined) {
    say(`  (or open ${code.verificationUriComplete})`)
    if (mayOpenBrowser(ui, env, noBrowser)) {
      openBrowser(code.verificationUriComplete, env)
      say("Opened your browser.")
    }
  }
  const spinner = await ui.spinner("Waiting for approval")
  let tokens: Tokens
  try {
    tokens = await waitForApproval(env, addresses.iamUrl, code, spinner)
  } catch (error) {
    spinner.fail()
    throw error
  }
  spinner.stop("Approved.")
  const lookup = await lookupIdentity(addresses.iamUrl, tokens.accessToken)
  if (lookup._tag !== "Ok") ui.error(`Logged in, but the identity lookup failed (${explain(lookup)}).`)
  const identity = lookup._tag === "Ok" ? lookup.value : undefined
  return {
    token: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    email: identity?.email ?? "unknown",
    platformId: identity?.platformId ?? null,
    role: identity?.role ?? "unknown",
    expiresAt: new Date(Date.now() + tokens.expiresIn * 1000).toISOString(),
    ...addresses,
    audience: AUDIENCE
  }
}

/** `core login`: token mode with `--token`, else the device authorization flow. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { values, positionals } = parseOptions(
    argv,
    { token: { type: "string" }, "iam-url": { type: "string" }, "no-browser": { type: "boolean" } },
    USAGE
  )
  expectPositionals(positionals, [], USAGE)
  const addresses = resolveAddresses(values["iam-url"], env)
  const paths = credentialPaths(env)
  if (values.token !== undefined) {
    const credentials = await tokenLogin(ui, readToken(values.token), addresses)
    writeCredentials(paths, credentials)
    ui.result({ authenticated: "token", ...summary(credentials) }, () => ui.line("Authenticated via token"))
    return ExitCode.ok
  }
  const credentials = await deviceLogin(ui, env, addresses, values["no-browser"] === true)
  writeCredentials(paths, credentials)
  ui.result({ authenticated: "device", ...summary(credentials) }, () => ui.line(`Logged in as ${credentials.email}`))
  return ExitCode.ok
}
