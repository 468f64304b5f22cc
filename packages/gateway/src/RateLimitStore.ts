import { Clock, Duration, Effect, type Scope } from "effect"
import type { Redis } from "ioredis"
import { createHash } from "node:crypto"
import * as RedisConnection from "./RedisConnection.js"

/** How many requests a key may make in a window. */
export interface Limit {
  readonly limit: number
  readonly windowMillis: number
}

/** A store's answer for one request. `resetSeconds` and `retryAfterSeconds` are whole seconds, at least 1. */
export interface Decision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
  readonly retryAfterSeconds: number
}

/**
 * Where counters live. `hit` counts one request against a key unless it is over its limit; it never
 * fails. A store that answers without I/O also offers `hitAt`, the same at a given time, which the
 * gateway calls without running an effect.
 */
export interface Store {
  readonly hit: (key: string, limit: Limit) => Effect.Effect<Decision>
  readonly hitAt?: (key: string, limit: Limit, now: number) => Decision
}

const seconds = (millis: number, windowMillis: number): number =>
  Math.max(1, Math.ceil(Math.min(millis, windowMillis * 2) / 1000))

interface Counter {
  count: number
  readonly windowStart: number
  readonly windowMillis: number
}

/**
 * Counters in this process's memory: per key `{ count, windowStart }` in a fixed window. Expired
 * counters are dropped as time passes, and at most `maxKeys` are held (the oldest goes first).
 * Time comes from Effect's `Clock`, so tests drive it with `TestClock`.
 */
export const memoryStore = (options: { readonly maxKeys?: number } = {}): Store => {
  const maxKeys = options.maxKeys ?? 100_000
  const counters = new Map<string, Counter>()
  const expired = (counter: Counter, now: number) => now - counter.windowStart >= counter.windowMillis

  const evict = (now: number) => {
    for (const [key, counter] of counters) {
      if (!expired(counter, now) && counters.size < maxKeys) return
      counters.delete(key)
    }
  }

  const hitAt = (key: string, { limit, windowMillis }: Limit, now: number): Decision => {
    let counter = counters.get(key)
    if (counter === undefined || expired(counter, now)) {
      counters.delete(key)
      evict(now)
      counter = { count: 0, windowStart: now, windowMillis }
      counters.set(key, counter)
    }
    const resetSeconds = seconds(counter.windowStart + windowMillis - now, windowMillis)
    const allowed = counter.count < limit
    if (allowed) counter.count += 1
    return { allowed, limit, remaining: Math.max(0, limit - counter.count), resetSeconds, retryAfterSeconds: resetSeconds }
  }

  return {
    hit: (key, limit) => Effect.map(Clock.currentTimeMillis, (now) => hitAt(key, limit, now)),
    hitAt
  }
}

/**
 * A sliding-window counter per key in one Redis hash: this window's count, the previous window's,
 * and the window's index, from Redis's own clock (gateways with skewed clocks share one window).
 * A request is allowed while `previous × (unelapsed share of the window) + current + 1 ≤ limit`.
 */
const SLIDING_WINDOW = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local index = math.floor(now / window)
local stored = redis.call('HMGET', KEYS[1], 'index', 'current', 'previous')
local current = tonumber(stored[2]) or 0
local previous = tonumber(stored[3]) or 0
local storedIndex = tonumber(stored[1])
if storedIndex ~= index then
  if storedIndex == index - 1 then previous = current else previous = 0 end
  current = 0
end
local elapsed = now - index * window
local allowed = 0
if previous * (window - elapsed) / window + current + 1 <= limit then
  allowed = 1
  current = current + 1
  redis.call('HSET', KEYS[1], 'index', index, 'current', current, 'previous', previous)
  redis.call('PEXPIRE', KEYS[1], window * 2)
end
return { allowed, previous, current, elapsed }
`

const SLIDING_WINDOW_SHA = createHash("sha1").update(SLIDING_WINDOW).digest("hex")

/** A decision from the script's answer (`current` counts this request when it was allowed). */
const slidingDecision = (
  [allowed, previous, current, elapsed]: ReadonlyArray<number>,
  { limit, windowMillis: w }: Limit
): Decision => {
  const estimate = previous! * (w - elapsed!) / w + current!
  if (allowed === 1) {
    const resetSeconds = seconds(w - elapsed!, w)
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - estimate)), resetSeconds, retryAfterSeconds: resetSeconds }
  }
  const inThisWindow = current! + 1 <= limit && previous! > 0 ? w * (1 - (limit - current! - 1) / previous!) - elapsed! : Infinity
  const inNextWindow = w - elapsed! + (current! + 1 > limit ? w * (1 - (limit - 1) / current!) : 0)
  const wait = seconds(inThisWindow < w - elapsed! ? inThisWindow : inNextWindow, w)
  return { allowed: false, limit, remaining: 0, resetSeconds: wait, retryAfterSeconds: wait }
}

const isReply = (reply: unknown): reply is ReadonlyArray<number> =>
  Array.isArray(reply) && reply.length === 4 && reply.every((item) => typeof item === "number")

/** Options of the Redis store. */
export interface RedisStoreOptions {
  /** Answers while Redis fails. @default memoryStore() */
  readonly fallback?: Store
  /** Prefix of every key. @default "core:ratelimit:" */
  readonly prefix?: string
  /** While Redis fails, how often one request tries it again (the others use the fallback). @default 1000 */
  readonly retryMillis?: number
  /** The longest a request waits for Redis (also when the client has no `commandTimeout`). @default 250 */
  readonly timeoutMillis?: number
}


/**
 * Counters in Redis, shared by every gateway instance (`core:ratelimit:{ip}:{path}`, a sliding
 * window, expiring after two windows). When a command fails or times out, the fallback store
 * answers; one warning is logged when that starts and one info line when Redis answers again.
 * While failing, one request per `retryMillis` tries Redis; ioredis reconnects by itself.
 * The client is the caller's: create it with `RedisConnection.connect`, or use `redisStoreFromUrl`.
 */
export const redisStore = (client: Redis, options: RedisStoreOptions = {}): Store => {
  const fallback = options.fallback ?? memoryStore()
  const prefix = options.prefix ?? "core:ratelimit:"
  const retryMillis = options.retryMillis ?? 1_000
  const timeout = Duration.millis(options.timeoutMillis ?? 250)
  const viaRedis = RedisConnection.failover({
    failed: "rate limiter: Redis failed, counting in memory",
    recovered: "rate limiter: Redis answers again",
    retryMillis
  })

  const evaluate = (key: string, { limit, windowMillis }: Limit): Promise<unknown> =>
    client.evalsha(SLIDING_WINDOW_SHA, 1, key, windowMillis, limit).catch((error: unknown) =>
      String(error).includes("NOSCRIPT") ? client.eval(SLIDING_WINDOW, 1, key, windowMillis, limit) : Promise.reject(error))

  return {
    hit: (key, limit) =>
      viaRedis(
        Effect.tryPromise({
          try: () => evaluate(`${prefix}${key}`, limit),
          catch: (error) => (error instanceof Error ? error : new Error(String(error)))
        }).pipe(
          Effect.timeoutFail({ duration: timeout, onTimeout: () => new Error(`no answer within ${Duration.format(timeout)}`) }),
          Effect.filterOrFail(isReply, (reply) => new Error(`unexpected reply ${JSON.stringify(reply)}`)),
          Effect.map((reply) => slidingDecision(reply, limit)),
          Effect.withSpan("RateLimit.redis")
        ),
        fallback.hit(key, limit)
      )
  }
}

/**
 * A Redis store over its own client (`RedisConnection.connect`), closed with the scope. It waits up
 * to a second for Redis to be ready, so the first requests are counted there; a Redis that is
 * down or never answers leaves the fallback answering until ioredis reconnects.
 *
 * @example
 * const store = yield* RateLimit.redisStoreFromUrl(config.redisUrl)
 */
export const redisStoreFromUrl = (url: string, options: RedisStoreOptions = {}): Effect.Effect<Store, never, Scope.Scope> =>
  Effect.map(
    RedisConnection.connect(url),
    (client) => redisStore(client, options)
  )
