import type { ApiKeyCaller, EffectiveRole, ServiceCaller, UserCaller } from "@core/kernel"
import { Effect } from "effect"
import type { Redis } from "ioredis"
import * as RedisConnection from "./RedisConnection.js"

/** A signed-in user as the gateway knows it: every fact of identity's `/api/core/session` answer. */
export interface UserPrincipal extends UserCaller {
  readonly platformId: string | null
  readonly role: EffectiveRole | null
  /** Its effective permissions in `organizationId` (empty outside any tenant). */
  readonly permissions: ReadonlyArray<string>
  readonly platformStatus: string | null
}

/** An API key as the gateway knows it (identity's `/api/core/apikey/validate` answer). */
export interface ApiKeyPrincipal extends ApiKeyCaller {
  readonly platformStatus: string
}

/**
 * Who a credential belongs to: the kernel's `Caller` (what the gateway signs for the upstreams, see
 * `Authentication`), plus what only the gateway needs, the platform's status, so that the
 * suspension check needs no second call. A session's `via` is `bearer` here; the gateway signs the
 * way the token actually arrived.
 */
export type Principal = ServiceCaller | UserPrincipal | ApiKeyPrincipal

/**
 * What a change invalidates (the identity service names it in `X-Core-Invalidate`, and the
 * gateway knows the credential a sign-out presented).
 */
export interface Invalidation {
  readonly credential?: string
  readonly userId?: string
  readonly sessionId?: string
  readonly keyId?: string
  readonly platformId?: string
}

/** A cached answer: the principal, or `null` for a credential the identity service refused. */
export type Cached = Principal | null

/**
 * Credential answers kept for a few seconds, by the SHA-256 of the credential, so that a warm
 * request costs no call to the identity service. Entries are indexed by user, session, key and
 * platform so that a change to any of them drops every answer it affects.
 */
export interface CredentialCache {
  readonly get: (credential: string) => Effect.Effect<Cached | undefined>
  /** `get` without an effect, for a cache in this process's memory. */
  readonly peek?: (credential: string) => Cached | undefined
  readonly set: (credential: string, value: Cached) => Effect.Effect<void>
  readonly invalidate: (what: Invalidation) => Effect.Effect<void>
}

/**
 * How long an answer is kept. With the identity service's own one-second session cache a
 * suspension reaches every gateway within three seconds even when no invalidation arrives
 * (the bound is five seconds: docs/decisions/0163).
 */
export const TTL_MILLIS = 2_000

const MAX_ENTRIES = 50_000

const tagsOf = (credential: string, value: Cached): Array<string> => {
  const tags = [`credential:${credential}`]
  if (value === null || value.kind === "service") return tags
  if (value.platformId !== null) tags.push(`platform:${value.platformId}`)
  if (value.kind === "user") tags.push(`user:${value.userId}`, `session:${value.sessionId}`)
  else tags.push(`key:${value.keyId}`)
  return tags
}

const tagsOfInvalidation = (what: Invalidation): Array<string> => {
  const tags: Array<string> = []
  if (what.credential !== undefined) tags.push(`credential:${what.credential}`)
  if (what.userId !== undefined) tags.push(`user:${what.userId}`)
  if (what.sessionId !== undefined) tags.push(`session:${what.sessionId}`)
  if (what.keyId !== undefined) tags.push(`key:${what.keyId}`)
  if (what.platformId !== undefined) tags.push(`platform:${what.platformId}`)
  return tags
}

/**
 * Parse `X-Core-Invalidate: user=usr_1, platform=plt_2` (what a change in the identity service
 * affects) into an invalidation; unknown or malformed parts are ignored.
 */
export const parseInvalidation = (header: string): Invalidation => {
  const fields: Record<string, string> = {}
  const names: Record<string, keyof Invalidation> = { user: "userId", session: "sessionId", key: "keyId", platform: "platformId" }
  for (const part of header.slice(0, 1024).split(",")) {
    const [name, value] = part.split("=").map((item) => item.trim())
    const field = names[name ?? ""]
    if (field !== undefined && value !== undefined && /^[A-Za-z0-9_-]{1,128}$/.test(value)) fields[field] = value
  }
  return fields as Invalidation
}

interface Entry {
  readonly value: Cached
  readonly until: number
  readonly tags: ReadonlyArray<string>
}

/** The cache in this process's memory (the default, and the fallback while Redis fails). */
export const memory = (ttlMillis = TTL_MILLIS, now: () => number = Date.now): CredentialCache => {
  const entries = new Map<string, Entry>()
  const index = new Map<string, Set<string>>()

  const drop = (credential: string) => {
    const entry = entries.get(credential)
    if (entry === undefined) return
    entries.delete(credential)
    for (const tag of entry.tags) {
      const members = index.get(tag)
      members?.delete(credential)
      if (members?.size === 0) index.delete(tag)
    }
  }

  const peek = (credential: string): Cached | undefined => {
    const entry = entries.get(credential)
    if (entry === undefined) return undefined
    if (entry.until > now()) return entry.value
    drop(credential)
    return undefined
  }

  return {
    get: (credential) => Effect.sync(() => peek(credential)),
    peek,
    set: (credential, value) =>
      Effect.sync(() => {
        drop(credential)
        if (entries.size >= MAX_ENTRIES) {
          entries.clear()
          index.clear()
        }
        const tags = tagsOf(credential, value)
        entries.set(credential, { value, until: now() + ttlMillis, tags })
        for (const tag of tags) {
          const members = index.get(tag) ?? new Set<string>()
          members.add(credential)
          index.set(tag, members)
        }
      }),
    invalidate: (what) =>
      Effect.sync(() => {
        for (const tag of tagsOfInvalidation(what)) {
          for (const credential of [...(index.get(tag) ?? [])]) drop(credential)
        }
      })
  }
}

const PREFIX = "core:auth:"

const isString = (value: unknown): value is string => typeof value === "string"
const isNullableString = (value: unknown): value is string | null => value === null || typeof value === "string"
const isStrings = (value: unknown): value is ReadonlyArray<string> => Array.isArray(value) && value.every(isString)
const ROLES: ReadonlySet<unknown> = new Set<EffectiveRole>(["owner", "admin", "member", "operator"])

/** Whether a value read back from Redis is a principal of this version's shape. */
const isPrincipal = (value: unknown): value is Principal => {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  switch (v.kind) {
    case "service":
      return true
    case "apikey":
      return isString(v.keyId) && isString(v.organizationId) && isString(v.platformId) && isStrings(v.permissions) &&
        isString(v.platformStatus)
    case "user":
      return isString(v.userId) && isString(v.sessionId) && isString(v.email) && (v.via === "bearer" || v.via === "cookie") &&
        isNullableString(v.organizationId) && isNullableString(v.platformId) && (v.role === null || ROLES.has(v.role)) &&
        isStrings(v.permissions) && isNullableString(v.platformStatus)
    default:
      return false
  }
}

/**
 * A cached answer read back from its JSON (`{ v: principal | null }`); `undefined`, a miss, for
 * anything else: a value another version of the gateway wrote (a `session` principal, a key
 * without its permissions), or garbage.
 */
export const fromJson = (raw: string): Cached | undefined => {
  try {
    const parsed: unknown = JSON.parse(raw)
    if (typeof parsed !== "object" || parsed === null || !("v" in parsed)) return undefined
    const value = (parsed as { v: unknown }).v
    return value === null ? null : isPrincipal(value) ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * The cache in Redis, shared by every gateway instance: `core:auth:<credential hash>` holds the
 * answer, `core:auth:tag:<tag>` the hashes it indexes, both expiring with the answer. While Redis
 * fails, the process's memory cache answers instead (`RedisConnection.failover`: one warning when
 * it starts failing, one line when it is back; every call still tries Redis first). An invalidation
 * also clears the memory cache, so it is never stale for longer than the TTL.
 */
export const redis = (client: Redis, ttlMillis = TTL_MILLIS): CredentialCache => {
  const fallback = memory(ttlMillis)
  const viaRedis = RedisConnection.failover({
    failed: "credential cache: Redis failed, using memory",
    recovered: "credential cache: Redis answers again",
    retryMillis: 0
  })
  const attempt = <A>(run: () => Promise<A>, otherwise: Effect.Effect<A>): Effect.Effect<A> =>
    viaRedis(Effect.tryPromise({ try: run, catch: (error) => (error instanceof Error ? error : new Error(String(error))) }), otherwise)

  return {
    get: (credential) =>
      attempt(
        async () => {
          const raw = await client.get(`${PREFIX}${credential}`)
          return raw === null ? undefined : fromJson(raw)
        },
        fallback.get(credential)
      ),
    set: (credential, value) =>
      attempt(
        async () => {
          const pipeline = client.multi().set(`${PREFIX}${credential}`, JSON.stringify({ v: value }), "PX", ttlMillis)
          for (const tag of tagsOf(credential, value).slice(1)) {
            pipeline.sadd(`${PREFIX}tag:${tag}`, credential).pexpire(`${PREFIX}tag:${tag}`, ttlMillis)
          }
          await pipeline.exec()
        },
        fallback.set(credential, value)
      ),
    invalidate: (what) =>
      Effect.zipRight(
        fallback.invalidate(what),
        attempt(
          async () => {
            for (const tag of tagsOfInvalidation(what)) {
              if (tag.startsWith("credential:")) {
                await client.del(`${PREFIX}${tag.slice("credential:".length)}`)
                continue
              }
              const members = await client.smembers(`${PREFIX}tag:${tag}`)
              await client.del(`${PREFIX}tag:${tag}`, ...members.map((member) => `${PREFIX}${member}`))
            }
          },
          Effect.void
        )
      )
  }
}
