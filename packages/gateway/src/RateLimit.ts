import type { RateLimitClass } from "@core/contracts"
import { RateLimited } from "@core/kernel"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { isIP } from "node:net"
import { type Exchange, type Frame, type Guard, toEffect, type Verdict } from "./Middleware.js"
import type { Decision, Limit, Store } from "./RateLimitStore.js"

export {
  type Decision,
  type Limit,
  memoryStore,
  redisStore,
  redisStoreFromUrl,
  type RedisStoreOptions,
  type Store
} from "./RateLimitStore.js"

/** Every limit counts requests per minute. */
export const WINDOW_MILLIS = 60_000

/**
 * The thresholds. Which requests they apply to is the route catalogue's (`RouteRules`; docs/architecture.md):
 * a route of rate-limit class `credentials` (sign-up, sign-in with password or magic link,
 * password-reset requests, the pages' sign-in and sign-up posts at both addresses) has
 * `authPerMinute`, one of class `exempt` (the device token poll and the token endpoint, which
 * `slow_down` governs; `/health`, `/ready`, `/metrics`) is not counted, any other request has
 * `perMinute`.
 */
export interface Rules {
  /** Requests a minute per `{ip}:{path}`. */
  readonly perMinute: number
  /** Requests a minute per `{ip}:{path}` on `credentials` routes. */
  readonly authPerMinute: number
}

const positive = (name: string, value: number): number => {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number of at least 1, got ${value}`)
  return value
}

/**
 * The rules from the configured thresholds (`CORE_RATE_LIMIT_PER_MINUTE`,
 * `CORE_RATE_LIMIT_AUTH_PER_MINUTE`); a threshold that is not a positive whole number stops the start.
 *
 * @example
 * RateLimit.rulesFrom(config.rateLimits) // { perMinute: 600, authPerMinute: 10 } by default
 */
export const rulesFrom = (thresholds: { readonly perMinute?: number; readonly authPerMinute?: number } = {}): Rules => ({
  perMinute: positive("perMinute", thresholds.perMinute ?? 600),
  authPerMinute: positive("authPerMinute", thresholds.authPerMinute ?? 10)
})

const decoded = (path: string): string => {
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** A path no spelling of which could count apart: no percent-escape, no repeated or trailing slash. */
const PLAIN_PATH = /^(?:\/[^/%]+)+$|^\/$/

/**
 * The path a counter is kept for: the request's normalized pathname (`targetOf`), percent-decoded,
 * with repeated and trailing slashes folded (`/a//%62/` counts as `/a/b`, so no spelling escapes a
 * limit), hashed when long.
 */
export const pathKeyOf = (pathname: string): string => {
  if (pathname.length <= 256 && PLAIN_PATH.test(pathname)) return pathname
  const folded = decoded(pathname).replace(/\/{2,}/g, "/")
  const path = folded.length > 1 && folded.endsWith("/") ? folded.slice(0, -1) : folded
  return path.length > 256 ? `sha256:${createHash("sha256").update(path).digest("hex")}` : path
}

/**
 * The limit for a request's method and its route's rate-limit class, or `undefined` when it is not
 * limited. `OPTIONS` (a browser's CORS preflight) has the general limit, and its own counter
 * (`{ip}:{path}:preflight`), so that preflights do not use up the sign-in's attempts.
 */
export const limitOf = (rules: Rules, method: string, rateLimit: RateLimitClass): Limit | undefined => {
  if (rateLimit === "exempt") return undefined
  const strict = rateLimit === "credentials" && method !== "OPTIONS"
  return { limit: strict ? rules.authPerMinute : rules.perMinute, windowMillis: WINDOW_MILLIS }
}

const normalizeAddress = (candidate: string): string | undefined => {
  if (isIP(candidate) === 4) return candidate
  let address = candidate.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed !== null) address = bracketed[1]!
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"))
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address)
  if (mapped !== null) address = mapped[1]!
  return address.length <= 45 && isIP(address) !== 0 ? address.toLowerCase() : undefined
}

/**
 * The client address a counter is kept for: the first `X-Forwarded-For` address when `trustProxy`
 * and it is a valid IP (ports and brackets dropped), else the socket's, else `unknown`.
 * IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export const clientAddress = (request: Pick<Exchange, "headers" | "remoteAddress">, trustProxy: boolean): string => {
  const forwarded = trustProxy ? request.headers["x-forwarded-for"]?.slice(0, 256).split(",")[0] : undefined
  const fromProxy = forwarded === undefined ? undefined : normalizeAddress(forwarded)
  if (fromProxy !== undefined) return fromProxy
  const socket = request.remoteAddress === undefined ? undefined : normalizeAddress(request.remoteAddress)
  return socket ?? "unknown"
}

/** The `RateLimit-*` headers of a decision. */
export const headersOf = (decision: Decision): Record<string, string> => ({
  "ratelimit-limit": String(decision.limit),
  "ratelimit-remaining": String(decision.remaining),
  "ratelimit-reset": String(decision.resetSeconds)
})

/** Options of the rate limiter. */
export interface RateLimitOptions {
  readonly store: Store
  /** @default rulesFrom() (600 a minute, 10 for the catalogue's `credentials` routes) */
  readonly rules?: Rules
  /** Key by the first `X-Forwarded-For` address (`CORE_TRUST_PROXY`). @default false */
  readonly trustProxy?: boolean
  /** Called once per refused request (the metrics count them). */
  readonly onRejected?: () => void
}

/**
 * Chain step 6: count each request against `{ip}:{path}`, with the limit of its route's
 * rate-limit class (the frame's rule; for a path spelled otherwise than its counter key, such as
 * `/sign-in/%65mail/`, the rule of the key). Allowed requests go on and their
 * response, envelopes of later steps included, carries `RateLimit-Limit`, `RateLimit-Remaining`
 * and `RateLimit-Reset` (an upstream's own, such as identity's sign-in limit, are kept); refused
 * ones fail with `RateLimited` (429 `RATE_LIMITED` with `Retry-After` and the same headers).
 *
 * @example
 * Gateway.make({ upstreams, guards: { rateLimiter: RateLimit.middleware({ store: RateLimit.memoryStore() }) } })
 */
export const middleware = (options: RateLimitOptions): Guard => {
  const rules = options.rules ?? rulesFrom()
  const general = limitOf(rules, "GET", "default")!
  const strict = limitOf(rules, "POST", "credentials")!
  const trustProxy = options.trustProxy ?? false
  const decide = (decision: Decision, frame: Frame): Verdict | Effect.Effect<never, RateLimited> => {
    if (decision.allowed) {
      frame.after.push((head) => {
        if (head.has("ratelimit-limit")) return undefined
        const headers = headersOf(decision)
        for (const name in headers) head.set(name, headers[name]!)
        return undefined
      })
      return undefined
    }
    options.onRejected?.()
    return Effect.fail(
      new RateLimited({
        message: "Too many requests. Try again later.",
        retryAfterSeconds: decision.retryAfterSeconds,
        limit: decision.limit,
        remaining: 0,
        resetSeconds: decision.resetSeconds
      })
    )
  }
  const { store } = options
  return (exchange, frame) => {
    const path = pathKeyOf(frame.pathname)
    const method = exchange.method
    const rateLimit = (path === frame.pathname ? frame.rule : frame.rules.ruleOf(method, path)).rateLimit
    if (rateLimit === "exempt") return undefined
    const limit = rateLimit === "credentials" && method !== "OPTIONS" ? strict : general
    const counted = `${clientAddress(exchange, trustProxy)}:${path}`
    const key = method === "OPTIONS" ? `${counted}:preflight` : counted
    if (store.hitAt !== undefined) return decide(store.hitAt(key, limit, exchange.now), frame)
    return Effect.flatMap(store.hit(key, limit), (decision) => toEffect(decide(decision, frame)))
  }
}
