import { Effect, Exit, Scope } from "effect"
import type { Redis } from "ioredis"
import { afterAll, describe, expect, it } from "vitest"
import { CredentialCache, RedisConnection } from "../src/index.js"

/**
 * The credential cache in Redis: shared by gateway instances, invalidated for all of them, and
 * answering from memory while Redis fails. Runs when `REDIS_URL` is set.
 */
const redisUrl = process.env.REDIS_URL
const scope = Effect.runSync(Scope.make())
const connect = (url: string) => Effect.runPromise(Scope.extend(RedisConnection.connect(url), scope))

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

const session = (suffix: string): CredentialCache.UserPrincipal => ({
  kind: "user",
  userId: `usr_${suffix}`,
  sessionId: `ses_${suffix}`,
  email: `${suffix}@example.com`,
  organizationId: "org_1",
  via: "bearer",
  platformId: `plt_${suffix}`,
  role: "member",
  permissions: ["platforms:read"],
  platformStatus: "active"
})

describe.skipIf(redisUrl === undefined)("credential cache in Redis", () => {
  let first: Redis
  let second: Redis

  it("shares answers between two gateways and drops them for both on invalidation", async () => {
    first = await connect(redisUrl!)
    second = await connect(redisUrl!)
    const a = CredentialCache.redis(first)
    const b = CredentialCache.redis(second)
    const credential = `test-${Date.now()}-${Math.random()}`
    const principal = session(String(Date.now()))
    await run(a.set(credential, principal))
    expect(await run(b.get(credential))).toEqual(principal)
    expect(await second.pttl(`core:auth:${credential}`)).toBeGreaterThan(0)
    expect(await second.pttl(`core:auth:${credential}`)).toBeLessThanOrEqual(CredentialCache.TTL_MILLIS)
    await run(b.invalidate({ platformId: principal.platformId! }))
    expect(await run(a.get(credential))).toBeUndefined()
    expect(await first.exists(`core:auth:tag:platform:${principal.platformId}`)).toBe(0)
  })

  it("takes a value an older gateway wrote as a miss", async () => {
    const a = CredentialCache.redis(first)
    const credential = `old-${Date.now()}`
    await first.set(`core:auth:${credential}`, JSON.stringify({ v: { kind: "session", userId: "usr_old", sessionId: "ses_old" } }), "PX", 2_000)
    expect(await run(a.get(credential))).toBeUndefined()
  })

  it("keeps a refused credential as null, and forgets a signed-out one", async () => {
    const a = CredentialCache.redis(first)
    const credential = `refused-${Date.now()}`
    await run(a.set(credential, null))
    expect(await run(a.get(credential))).toBeNull()
    await run(a.invalidate({ credential }))
    expect(await run(a.get(credential))).toBeUndefined()
  })

  it("answers from memory while Redis cannot be reached, without failing", async () => {
    const unreachable = await connect("redis://127.0.0.1:1")
    const cache = CredentialCache.redis(unreachable)
    const principal = session("down")
    await run(cache.set("down-credential", principal))
    expect(await run(cache.get("down-credential"))).toEqual(principal)
    await run(cache.invalidate({ userId: principal.userId }))
    expect(await run(cache.get("down-credential"))).toBeUndefined()
  })
})
