import { Clock, Duration, Effect } from "effect"
import { OAuthError } from "./OAuthErrors.js"

/** At most `max` wrong user codes per client address and per user within `window`. */
export interface UserCodeLimits {
  readonly max: number
  readonly window: Duration.Duration
}

/** 10 wrong codes a minute (decision 0132; the arithmetic is in docs/identity/device-authorization.md). */
export const DEFAULT_USER_CODE_LIMITS: UserCodeLimits = { max: 10, window: Duration.minutes(1) }

interface Counter {
  count: number
  readonly windowStart: number
}

const SWEEP_THRESHOLD = 10_000

/**
 * Counts wrong user codes (unknown, malformed) per client address and per signed-in user in
 * fixed windows, in process. While either key is over its limit every entry — right or wrong —
 * answers 429 `slow_down` with `Retry-After`, before any code is looked up.
 */
export const make = (limits: UserCodeLimits = DEFAULT_USER_CODE_LIMITS) => {
  const counters = new Map<string, Counter>()
  const window = Duration.toMillis(limits.window)

  const keysOf = (who: { readonly ip: string | null; readonly userId: string | null }) => [
    ...(who.ip === null ? [] : [`ip:${who.ip}`]),
    ...(who.userId === null ? [] : [`user:${who.userId}`])
  ]

  const live = (key: string, now: number): Counter | undefined => {
    const counter = counters.get(key)
    if (counter === undefined || now - counter.windowStart < window) return counter
    counters.delete(key)
    return undefined
  }

  /** Fails with 429 `slow_down` while the address or the user is over the limit. */
  const check = (who: { readonly ip: string | null; readonly userId: string | null }): Effect.Effect<void, OAuthError> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      for (const key of keysOf(who)) {
        const counter = live(key, now)
        if (counter !== undefined && counter.count >= limits.max) {
          return Effect.fail(OAuthError.tooManyCodes(Math.max(1, Math.ceil((counter.windowStart + window - now) / 1000))))
        }
      }
      return Effect.void
    })

  /** Count one wrong code against the address and the user. */
  const recordWrong = (who: { readonly ip: string | null; readonly userId: string | null }): Effect.Effect<void> =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      if (counters.size > SWEEP_THRESHOLD) {
        for (const [key, counter] of counters) if (now - counter.windowStart >= window) counters.delete(key)
      }
      for (const key of keysOf(who)) {
        const counter = live(key, now)
        if (counter === undefined) counters.set(key, { count: 1, windowStart: now })
        else counter.count += 1
      }
    })

  return { check, recordWrong } as const
}

/** The user-code entry limiter of this process. */
export type UserCodeLimiter = ReturnType<typeof make>
