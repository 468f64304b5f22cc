import { type RateLimited } from "@core/kernel"
import { Duration, Effect } from "effect"
import { createHash } from "node:crypto"
import { SharedState } from "../internal/SharedState.js"
import { signInRateLimited } from "../Errors.js"

/** At most `max` failed sign-ins per key within `window`. */
export interface LimitPolicy {
  readonly max: number
  readonly window: Duration.Duration
}

/** How failed sign-ins slow the next attempts down: `first`, doubling per failure, at most `max`. */
export interface DelayPolicy {
  readonly first: Duration.Duration
  readonly max: Duration.Duration
  /** Failures of one account from one address before attempts are slowed down. */
  readonly afterAccountAndAddress: number
  /** Failures of one account from every address before attempts are slowed down. */
  readonly afterAccount: number
}

/** The limits of decision 0190. */
export interface SignInLimits {
  /** Failures of one account from one address before that address is refused for that account. */
  readonly perAccountAndAddress: LimitPolicy
  /** Failures from one address, whatever the account (password spraying), before it is refused. */
  readonly perAddress: LimitPolicy
  /** How long the failures of one account from every address count towards its delay (never a refusal). */
  readonly perAccountWindow: Duration.Duration
  readonly delay: DelayPolicy
}

/** 5 failures per account and address per 15 minutes; 20 per address a minute; 250 ms doubling to 1 s. */
export const DEFAULT_LIMITS: SignInLimits = {
  perAccountAndAddress: { max: 5, window: Duration.minutes(15) },
  perAddress: { max: 20, window: Duration.minutes(1) },
  perAccountWindow: Duration.minutes(15),
  delay: { first: Duration.millis(250), max: Duration.seconds(1), afterAccountAndAddress: 2, afterAccount: 10 }
}

/** What the answer to an admitted attempt must report back. */
export interface Attempt {
  /** How long the attempt was held before its password was checked. */
  readonly delay: Duration.Duration
  /** The password was right: forget the account's failures, give the address's attempt back. */
  readonly succeeded: Effect.Effect<void>
}

/** How long an attempt waits after `failures` earlier failures, past `after` of them. */
export const delayOf = (policy: DelayPolicy, failures: number, after: number): Duration.Duration =>
  failures < after
    ? Duration.zero
    : Duration.min(policy.max, Duration.times(policy.first, 2 ** Math.min(failures - after, 16)))

const hashed = (value: string) => createHash("sha256").update(value).digest("base64url").slice(0, 32)

/**
 * Counts failed sign-ins in `SharedState` (Redis when configured: every identity process counts
 * together; else in process), by account and address, by address, and by account (decision 0190):
 *
 * - one account from one address: past 2 failures each attempt waits (250 ms, doubling, at most
 *   1 s), past 5 in 15 minutes that address is refused for that account — another address still
 *   signs in, so a stranger cannot lock anyone out;
 * - one address, whatever the account: past 20 a minute it is refused (password spraying; not
 *   counted for a request without an address);
 * - one account from every address: past 10 failures in 15 minutes each attempt waits, never refused.
 *
 * Each attempt is counted before its password is checked (so that a burst of parallel attempts gets
 * no more than the limit), and a right password gives the attempt back. A refusal is 429
 * `RATE_LIMITED` with `Retry-After` and `RateLimit-*`, whatever the password.
 */
export const make = (limits: SignInLimits = DEFAULT_LIMITS) =>
  Effect.map(SharedState, ({ counters }) => {
    const windowOf = (policy: LimitPolicy) => Duration.toMillis(policy.window)

    const refuse = (policy: LimitPolicy, resetMillis: number): RateLimited => {
      const resetSeconds = Math.max(1, Math.ceil(resetMillis / 1000))
      return signInRateLimited(policy.max, resetSeconds)
    }

    /**
     * Count an attempt: refused with `RateLimited` while its account from its address, or its
     * address, is over its limit; else held for the delay its failures earned, then admitted.
     */
    const admit = (email: string, ip: string | null): Effect.Effect<Attempt, RateLimited> =>
      Effect.gen(function*() {
        const account = `signin:account:${hashed(email.toLowerCase())}`
        const address = ip === null ? undefined : `signin:address:${hashed(ip)}`
        const pair = `signin:pair:${hashed(`${email.toLowerCase()}\u0000${ip ?? ""}`)}`
        const none = { count: 0, resetMillis: 0 }
        const [forPair, forAddress, forAccount] = yield* Effect.all([
          counters.increment(pair, windowOf(limits.perAccountAndAddress)),
          address === undefined ? Effect.succeed(none) : counters.increment(address, windowOf(limits.perAddress)),
          counters.increment(account, Duration.toMillis(limits.perAccountWindow))
        ], { concurrency: "unbounded" })
        const giveBack = (...keys: ReadonlyArray<string | undefined>) =>
          Effect.forEach(keys, (key) => (key === undefined ? Effect.void : counters.decrement(key)), {
            concurrency: "unbounded",
            discard: true
          })
        const over = forPair.count > limits.perAccountAndAddress.max
          ? refuse(limits.perAccountAndAddress, forPair.resetMillis)
          : forAddress.count > limits.perAddress.max
          ? refuse(limits.perAddress, forAddress.resetMillis)
          : undefined
        if (over !== undefined) {
          yield* giveBack(pair, address, account)
          return yield* over
        }
        const delay = Duration.max(
          delayOf(limits.delay, forPair.count - 1, limits.delay.afterAccountAndAddress),
          delayOf(limits.delay, forAccount.count - 1, limits.delay.afterAccount)
        )
        if (Duration.greaterThan(delay, Duration.zero)) yield* Effect.sleep(delay)
        const succeeded = Effect.zipRight(
          Effect.all([counters.reset(pair), counters.reset(account)], { concurrency: "unbounded", discard: true }),
          giveBack(address)
        )
        return { delay, succeeded }
      })

    return { admit } as const
  })

/** The sign-in limiter (its counters in `SharedState`). */
export class SignInLimiter extends Effect.Service<SignInLimiter>()("@core/auth/SignInLimiter", {
  effect: make(),
  dependencies: [SharedState.Default]
}) {}
