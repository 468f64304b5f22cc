import { Duration, Effect } from "effect"
import { createHash } from "node:crypto"
import type { SharedState } from "../internal/SharedState.js"
import { OAuthError } from "./OAuthErrors.js"

/** At most `max` wrong user codes per signed-in session, and `addressMax` per client address, within `window`. */
export interface UserCodeLimits {
  readonly max: number
  readonly window: Duration.Duration
  /** @default 3 × `max` (several people behind one address) */
  readonly addressMax?: number
}

/**
 * 10 wrong codes a minute per session, 30 per address (decisions 0132 and 0191; the arithmetic is in
 * docs/identity/device-authorization.md).
 */
export const DEFAULT_USER_CODE_LIMITS: UserCodeLimits = { max: 10, window: Duration.minutes(1) }

/** Who enters a code: the client address and the signed-in session (`null` when unknown). */
export interface Entrant {
  readonly ip: string | null
  readonly sessionId: string | null
}

/** An entry counted in advance: `right` gives it back (a right code never counts). */
export interface Entry {
  readonly right: Effect.Effect<void>
}

const hashed = (value: string) => createHash("sha256").update(value).digest("base64url").slice(0, 32)

/**
 * Counts wrong user codes (unknown, malformed, expired, used) per signed-in session and per client
 * address, in `SharedState` (Redis when configured: every identity process counts together; else in
 * process). A right code never counts. While the session or the address is over its limit every
 * entry — right or wrong — answers 429 `slow_down` with `Retry-After`, before any code is looked up
 * (else the refusals would tell right codes from wrong). The address's limit is three times the
 * session's, so that one person's wrong codes do not stop another at the same address.
 */
export const make = ({ counters }: SharedState["Type"], limits: UserCodeLimits = DEFAULT_USER_CODE_LIMITS) => {
  const window = Duration.toMillis(limits.window)
  const addressMax = limits.addressMax ?? limits.max * 3

  const keysOf = (who: Entrant): ReadonlyArray<readonly [string, number]> => [
    ...(who.sessionId === null ? [] : [[`usercode:session:${hashed(who.sessionId)}`, limits.max] as const]),
    ...(who.ip === null ? [] : [[`usercode:address:${hashed(who.ip)}`, addressMax] as const])
  ]

  const giveBack = (keys: ReadonlyArray<readonly [string, number]>) =>
    Effect.forEach(keys, ([key]) => counters.decrement(key), { concurrency: "unbounded", discard: true })

  /**
   * Count an entry in advance (so that parallel guesses get no more than the limit): 429 `slow_down`
   * while the session or the address is over its limit, else an `Entry` to give back when the code
   * was right.
   */
  const admit = (who: Entrant): Effect.Effect<Entry, OAuthError> =>
    Effect.gen(function*() {
      const keys = keysOf(who)
      const counts = yield* Effect.forEach(keys, ([key]) => counters.increment(key, window), { concurrency: "unbounded" })
      const over = counts.findIndex((count, i) => count.count > keys[i]![1])
      if (over >= 0) {
        yield* giveBack(keys)
        return yield* Effect.fail(OAuthError.tooManyCodes(Math.max(1, Math.ceil(counts[over]!.resetMillis / 1000))))
      }
      return { right: giveBack(keys) }
    })

  return { admit } as const
}

/** The user-code entry limiter. */
export type UserCodeLimiter = ReturnType<typeof make>
