import type { RedisConnection } from "@core/kernel"
import { createHash } from "node:crypto"
import type { Cached, Count } from "./SharedMemory.js"

/** The key prefix of identity's shared state in Redis. */
export const PREFIX = "core:identity:"

/** The channel every identity process listens on for invalidations. */
export const CHANNEL = `${PREFIX}invalidate`

/** How long a group's version outlives its last change (a reader holds one for milliseconds). */
const VERSION_TTL_MILLIS = 86_400_000

/** An invalidation as published: who sent it, which group, which field (all when absent). */
export interface Invalidation {
  readonly origin: string
  readonly group: string
  readonly field?: string
}

interface Script {
  readonly source: string
  readonly sha: string
}

const script = (source: string): Script => ({ source, sha: createHash("sha1").update(source).digest("hex") })

const INCREMENT = script(`
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { n, ttl }
`)

const DECREMENT = script(`
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('DECR', KEYS[1]) <= 0 then redis.call('DEL', KEYS[1]) end
return 0
`)

const PEEK = script(`
return { tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]) }
`)

const GET = script(`
return { redis.call('HGET', KEYS[1], ARGV[1]) or '', redis.call('GET', KEYS[2]) or '0' }
`)

const SET = script(`
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[3] then return 0 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`)

const DROP = script(`
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ${VERSION_TTL_MILLIS})
if ARGV[1] == '' then redis.call('DEL', KEYS[1]) else redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0
`)

const MAX_GROUP_FIELDS = 10_000

const run = (client: RedisConnection.Client, { sha, source }: Script, keys: ReadonlyArray<string>, args: ReadonlyArray<string | number>) =>
  client.evalsha(sha, keys.length, ...keys, ...args).catch((error: unknown) =>
    String(error).includes("NOSCRIPT") ? client.eval(source, keys.length, ...keys, ...args) : Promise.reject(error))

const pair = (reply: unknown): [unknown, unknown] => {
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected reply ${JSON.stringify(reply)}`)
  return [reply[0], reply[1]]
}

const counted = (reply: unknown): Count => {
  const [count, ttl] = pair(reply)
  return { count: Number(count), resetMillis: Math.max(0, Number(ttl)) }
}

/** Entries are stored with their end of life: `<until>:<value>`. */
const decodeEntry = (stored: string, now: number): string | undefined => {
  const colon = stored.indexOf(":")
  return colon > 0 && Number(stored.slice(0, colon)) > now ? stored.slice(colon + 1) : undefined
}

/**
 * Identity's counters and caches in Redis, each operation one script (atomic, one round trip):
 * counters are `INCR` keys expiring with their window; a cache group is a hash with a version key,
 * and a write carries the version it read, so that a value computed before an invalidation is
 * never stored after it; an invalidation bumps the version, deletes, and publishes on `CHANNEL`.
 */
export const make = (client: RedisConnection.Client, origin: string) => {
  const counterKey = (key: string) => `${PREFIX}count:${key}`
  const groupKeys = (group: string) => [`${PREFIX}cache:${group}`, `${PREFIX}version:${group}`]

  return {
    increment: (key: string, windowMillis: number): Promise<Count> =>
      run(client, INCREMENT, [counterKey(key)], [windowMillis]).then(counted),
    decrement: (key: string): Promise<void> => run(client, DECREMENT, [counterKey(key)], []).then(() => undefined),
    peek: (key: string): Promise<Count> => run(client, PEEK, [counterKey(key)], []).then(counted),
    reset: (key: string): Promise<void> => client.del(counterKey(key)).then(() => undefined),
    get: (group: string, field: string, now: number): Promise<Cached> =>
      run(client, GET, groupKeys(group), [field]).then((reply) => {
        const [stored, version] = pair(reply)
        return { value: decodeEntry(String(stored), now), version: String(version) }
      }),
    set: (group: string, field: string, value: string, until: number, ttlMillis: number, version: string): Promise<void> =>
      run(client, SET, groupKeys(group), [field, `${until}:${value}`, version, ttlMillis, MAX_GROUP_FIELDS]).then(() => undefined),
    drop: (group: string, field?: string): Promise<void> => {
      const message: Invalidation = field === undefined ? { origin, group } : { origin, group, field }
      return run(client, DROP, groupKeys(group), [field ?? "", CHANNEL, JSON.stringify(message)]).then(() => undefined)
    }
  } as const
}

/** Whether a published message is an invalidation from another process. */
export const invalidationOf = (message: string, origin: string): Invalidation | undefined => {
  try {
    const parsed = JSON.parse(message) as Partial<Invalidation>
    if (typeof parsed.group !== "string" || parsed.origin === origin) return undefined
    if (parsed.field !== undefined && typeof parsed.field !== "string") return undefined
    return parsed.field === undefined ? { origin: String(parsed.origin), group: parsed.group } : parsed as Invalidation
  } catch {
    return undefined
  }
}
