import { CoreConfig, RedisConnection } from "@core/kernel"
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import * as SharedMemory from "./SharedMemory.js"
import * as SharedRedis from "./SharedRedis.js"

export type { Cached, Count } from "./SharedMemory.js"

/** Counters in fixed windows (identity's limiters). None of the operations fails. */
export interface Counters {
  /** Count one (a window of `windowMillis` starts with the first); the count with this one. */
  readonly increment: (key: string, windowMillis: number) => Effect.Effect<SharedMemory.Count>
  /** Take one back (an attempt counted in advance that turned out right); nothing once the window ended. */
  readonly decrement: (key: string) => Effect.Effect<void>
  /** The count so far (0 without a live window). */
  readonly peek: (key: string) => Effect.Effect<SharedMemory.Count>
  /** Forget the counter. */
  readonly reset: (key: string) => Effect.Effect<void>
}

/** Cached values (strings) in named groups; a group or one of its fields is dropped at once. */
export interface Caches {
  /** The live value of a field, and the group's version (to hand back to `set`). */
  readonly get: (group: string, field: string) => Effect.Effect<SharedMemory.Cached>
  /** Keep a value for `ttlMillis`, unless the group changed since `version` was read. */
  readonly set: (group: string, field: string, value: string, ttlMillis: number, version: string) => Effect.Effect<void>
  /** Drop a field, or the whole group, in every process (Redis, and each process's memory). */
  readonly drop: (group: string, field?: string) => Effect.Effect<void>
}

/**
 * Where identity keeps what its processes must agree on: the sign-in and user-code limiters'
 * counters, the session-context cache and the permission cache (decision 0192). In Redis when
 * `REDIS_URL` is configured — every identity process sees the same counts and values, and an
 * invalidation is seen by every process at its next read and published to all of them — else in
 * this process's memory. While Redis fails, each process answers from its memory (one warning,
 * one line when Redis answers again) and never fails a request.
 */
export class SharedState extends Context.Tag("@core/auth/SharedState")<SharedState, {
  readonly backend: "redis" | "memory"
  readonly counters: Counters
  readonly caches: Caches
}>() {
  /** In this process's memory only. */
  static readonly memory: Layer.Layer<SharedState> = Layer.sync(SharedState, () => fromMemory(SharedMemory.make()))

  /** In Redis at `url` (its own client and a subscriber, closed with the layer), memory while it fails. */
  static readonly redis = (url: string): Layer.Layer<SharedState> => Layer.scoped(SharedState, fromRedis(url))

  /** Redis when `CoreConfig` has a `REDIS_URL`, else memory (also without a `CoreConfig`). */
  static readonly Default: Layer.Layer<SharedState> = Layer.scoped(
    SharedState,
    Effect.flatMap(Effect.serviceOption(CoreConfig), (config) =>
      Option.isSome(config) && config.value.redisUrl !== undefined
        ? fromRedis(config.value.redisUrl)
        : Effect.sync(() => fromMemory(SharedMemory.make())))
  )
}

const fromMemory = (memory: SharedMemory.SharedMemory): Context.Tag.Service<SharedState> => {
  const at = <A>(f: (now: number) => A) => Effect.map(Clock.currentTimeMillis, f)
  return {
    backend: "memory",
    counters: {
      increment: (key, windowMillis) => at((now) => memory.increment(key, windowMillis, now)),
      decrement: (key) => at((now) => memory.decrement(key, now)),
      peek: (key) => at((now) => memory.peek(key, now)),
      reset: (key) => Effect.sync(() => memory.reset(key))
    },
    caches: {
      get: (group, field) => at((now) => memory.get(group, field, now)),
      set: (group, field, value, ttlMillis, version) => at((now) => memory.set(group, field, value, now + ttlMillis, version)),
      drop: (group, field) => Effect.sync(() => memory.drop(group, field))
    }
  }
}

/**
 * A decoder of cached texts that keeps the last value decoded per key: a warm read of an unchanged
 * entry gives back the same object (no parse, and what was derived from that object — such as a
 * serialized answer — stays valid). Compares the text, so it is right whatever store the text came
 * from; bounded like the memory store (emptied past 10,000 keys).
 */
export const memoDecoder = <A>(decode: (text: string) => A) => {
  const last = new Map<string, { readonly text: string; readonly value: A }>()
  return (key: string, text: string): A => {
    const memo = last.get(key)
    if (memo !== undefined && memo.text === text) return memo.value
    const value = decode(text)
    if (last.size >= 10_000) last.clear()
    last.set(key, { text, value })
    return value
  }
}

/** The longest a request waits for Redis before answering from memory. */
const REDIS_TIMEOUT = Duration.millis(250)

const fromRedis = (url: string) =>
  Effect.gen(function*() {
    const origin = randomBytes(8).toString("hex")
    const client = yield* RedisConnection.connect(url)
    const redis = SharedRedis.make(client, origin)
    const memory = SharedMemory.make()
    const local = fromMemory(memory)
    const subscriber = client.duplicate({ enableOfflineQueue: true })
    subscriber.on("error", () => undefined)
    subscriber.on("message", (_channel: string, message: string) => {
      const invalidation = SharedRedis.invalidationOf(message, origin)
      if (invalidation !== undefined) memory.drop(invalidation.group, invalidation.field)
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => subscriber.subscribe(SharedRedis.CHANNEL).catch(() => undefined)),
      () => Effect.sync(() => subscriber.disconnect())
    )
    const viaRedis = RedisConnection.failover({
      failed: "identity: Redis failed, limits and caches in this process's memory",
      recovered: "identity: Redis answers again, limits and caches shared"
    })
    const attempt = <A>(name: string, operation: () => Promise<A>, fallback: Effect.Effect<A>) =>
      viaRedis(
        Effect.tryPromise({ try: operation, catch: (error) => (error instanceof Error ? error : new Error(String(error))) }).pipe(
          Effect.timeoutFail({ duration: REDIS_TIMEOUT, onTimeout: () => new Error(`no answer within ${Duration.format(REDIS_TIMEOUT)}`) }),
          Effect.withSpan(`SharedState.${name}`)
        ),
        fallback
      )
    const service: Context.Tag.Service<SharedState> = {
      backend: "redis",
      counters: {
        increment: (key, windowMillis) =>
          attempt("increment", () => redis.increment(key, windowMillis), local.counters.increment(key, windowMillis)),
        decrement: (key) => attempt("decrement", () => redis.decrement(key), local.counters.decrement(key)),
        peek: (key) => attempt("peek", () => redis.peek(key), local.counters.peek(key)),
        reset: (key) => Effect.zipRight(local.counters.reset(key), attempt("reset", () => redis.reset(key), Effect.void))
      },
      caches: {
        get: (group, field) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            attempt("get", () => redis.get(group, field, now), local.caches.get(group, field))),
        set: (group, field, value, ttlMillis, version) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            attempt(
              "set",
              () => redis.set(group, field, value, now + ttlMillis, ttlMillis + 1_000, version),
              local.caches.set(group, field, value, ttlMillis, version)
            )),
        drop: (group, field) => Effect.zipRight(local.caches.drop(group, field), attempt("drop", () => redis.drop(group, field), Effect.void))
      }
    }
    return service
  })
