import { RateLimited } from "@core/kernel"
import { Clock, Duration, Effect } from "effect"

/** At most `max` failed sign-ins per key within `window`. */
export interface LimitPolicy {
  readonly max: number
  readonly window: Duration.Duration
}

/** The limits: 5 failures per email per 15 minutes, 20 failures per client address per minute. */
export interface SignInLimits {
  readonly perEmail: LimitPolicy
  readonly perIp: LimitPolicy
}

/** The default limits (decision 0102). */
export const DEFAULT_LIMITS: SignInLimits = {
  perEmail: { max: 5, window: Duration.minutes(15) },
  perIp: { max: 20, window: Duration.minutes(1) }
}

interface Counter {
  count: number
  readonly windowStart: number
}

const SWEEP_THRESHOLD = 10_000

/**
 * Counts failed sign-ins per email and per client address in fixed windows, in process. While a key
 * is over its limit every attempt — right or wrong — answers 429 with `Retry-After`, before any
 * password is checked. A success clears the email's counter.
 */
export const make = (limits: SignInLimits = DEFAULT_LIMITS) => {
  const counters = new Map<string, Counter>()

  const live = (key: string, policy: LimitPolicy, now: number): Counter | undefined => {
    const counter = counters.get(key)
    if (counter === undefined) return undefined
    if (now - counter.windowStart >= Duration.toMillis(policy.window)) {
      counters.delete(key)
      return undefined
    }
    return counter
  }

  const refuse = (counter: Counter, policy: LimitPolicy, now: number): RateLimited => {
    const resetSeconds = Math.max(1, Math.ceil((counter.windowStart + Duration.toMillis(policy.window) - now) / 1000))
    return new RateLimited({
      message: "Too many failed sign-in attempts. Try again later.",
      retryAfterSeconds: resetSeconds,
      limit: policy.max,
      remaining: 0,
      resetSeconds
    })
  }

  const keys = (email: string, ip: string | null) => {
    const list: Array<readonly [string, LimitPolicy]> = [[`email:${email.toLowerCase()}`, limits.perEmail]]
    if (ip !== null) list.push([`ip:${ip}`, limits.perIp])
    return list
  }

  const sweep = (now: number) => {
    const longest = Math.max(Duration.toMillis(limits.perEmail.window), Duration.toMillis(limits.perIp.window))
    for (const [key, counter] of counters) if (now - counter.windowStart >= longest) counters.delete(key)
  }

  /** Fails with `RateLimited` while the email or the address is over its limit. */
  const check = (email: string, ip: string | null): Effect.Effect<void, RateLimited> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      for (const [key, policy] of keys(email, ip)) {
        const counter = live(key, policy, now)
        if (counter !== undefined && counter.count >= policy.max) return Effect.fail(refuse(counter, policy, now))
      }
      return Effect.void
    })

  /** Count one failed attempt against the email and the address. */
  const recordFailure = (email: string, ip: string | null): Effect.Effect<void> =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      if (counters.size > SWEEP_THRESHOLD) sweep(now)
      for (const [key, policy] of keys(email, ip)) {
        const counter = live(key, policy, now)
        if (counter === undefined) counters.set(key, { count: 1, windowStart: now })
        else counter.count += 1
      }
    })

  /** Forget the email's failures after a successful sign-in. */
  const recordSuccess = (email: string): Effect.Effect<void> =>
    Effect.sync(() => void counters.delete(`email:${email.toLowerCase()}`))

  return { check, recordFailure, recordSuccess } as const
}

/** The sign-in limiter of this process. */
export class SignInLimiter extends Effect.Service<SignInLimiter>()("@core/auth/SignInLimiter", {
  sync: () => make()
}) {}
