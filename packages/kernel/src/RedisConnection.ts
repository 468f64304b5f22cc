import { Clock, Effect, type Scope } from "effect"
import type { Redis, RedisOptions } from "ioredis"

/** An ioredis client (the type; the module is loaded only when `connect` runs). */
export type Client = Redis

/**
 * The client options that make a down Redis fail fast: no offline queue, no retried commands,
 * a short command timeout, and a socket that stops waiting for a Redis that stops answering.
 * ioredis keeps reconnecting in the background.
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 150,
  connectTimeout: 2_000,
  socketTimeout: 1_000
}

/** How long `connect` waits for Redis to be ready before handing the client over anyway. */
export const CONNECT_WAIT_MILLIS = 1_000

const open = async (url: string): Promise<Redis> => {
  const { Redis } = await import("ioredis")
  const client = new Redis(url, REDIS_CLIENT_OPTIONS)
  client.on("error", () => undefined)
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([
    client.connect().catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, CONNECT_WAIT_MILLIS)
    })
  ])
  clearTimeout(timer)
  return client
}

/**
 * One Redis client (the gateway's rate limits and credential cache, identity's limiters and
 * caches), closed with the scope. It waits up to a second for Redis, then hands the client over whatever its state: every
 * user of it falls back to memory while Redis fails and returns to it when it answers again.
 *
 * @example
 * const redis = yield* RedisConnection.connect(config.redisUrl)
 */
export const connect = (url: string): Effect.Effect<Redis, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => open(url)), (client) => Effect.sync(() => client.disconnect()))

/** Redis answers `PING` (for `/ready`). */
export const ping = (client: Redis): Effect.Effect<void, Error> =>
  Effect.tryPromise({ try: () => client.ping(), catch: (error) => (error instanceof Error ? error : new Error(String(error))) })

/** How a user of Redis names itself in the two lines it logs when Redis fails and comes back. */
export interface FailoverOptions {
  /** e.g. `rate limiter: Redis failed, counting in memory` */
  readonly failed: string
  /** e.g. `rate limiter: Redis answers again` */
  readonly recovered: string
  /** While failing, try Redis once per this many milliseconds; the rest go to the fallback. @default 1000 */
  readonly retryMillis?: number
}

/**
 * Answer from Redis while it answers, else from a fallback: one warning when failing starts, one
 * info line when Redis answers again, and meanwhile one attempt per `retryMillis` (ioredis
 * reconnects by itself). The gateway's rate limiter and credential cache and identity's shared
 * state share this behaviour.
 *
 * @example
 * const viaRedis = RedisConnection.failover({ failed: "cache: Redis failed", recovered: "cache: Redis answers again" })
 * viaRedis(Effect.tryPromise(() => client.get(key)), memory.get(key))
 */
export const failover = (options: FailoverOptions) => {
  const retryMillis = options.retryMillis ?? 1_000
  let failing = false
  let retryAt = 0
  return <A>(attempt: Effect.Effect<A, Error>, fallback: Effect.Effect<A>): Effect.Effect<A> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (failing && now < retryAt) return fallback
      if (failing) retryAt = now + retryMillis
      return attempt.pipe(
        Effect.tap(() => {
          if (!failing) return Effect.void
          failing = false
          return Effect.logInfo(options.recovered)
        }),
        Effect.catchAll((error) => {
          retryAt = now + retryMillis
          if (failing) return fallback
          failing = true
          return Effect.zipRight(Effect.logWarning(options.failed).pipe(Effect.annotateLogs({ error: error.message })), fallback)
        })
      )
    })
}
