import { CONCRETE_PERMISSIONS, permissionCovers as covers } from "@core/contracts"
import { Clock, Effect } from "effect"
import { type PermissionSources, PermissionsRepo } from "./PermissionsRepo.js"
import { SessionCache } from "../accounts/SessionCache.js"
import { memoDecoder, SharedState } from "../internal/SharedState.js"

/** Whether a set of effective permissions allows `required`. */
export const allows = (effective: ReadonlyArray<string>, required: string): boolean =>
  effective.some((held) => covers(held, required))

/**
 * Effective permissions = the role mapping's permissions ∪ active grants − active denials.
 * A denial always wins, also over a wildcard: a wildcard touched by a denial is spelled out as
 * the catalogue permissions it covers, minus the denied ones. Grants and denials whose
 * `expiresAt` (epoch seconds) is not after `nowSeconds` are absent. Sorted, without duplicates.
 */
export const effective = (sources: PermissionSources, nowSeconds: number): Array<string> => {
  const active = sources.grants.filter((g) => g.expiresAt === null || g.expiresAt > nowSeconds)
  const held = new Set([...sources.mapped, ...active.filter((g) => g.granted).map((g) => g.permission)])
  const denied = active.filter((g) => !g.granted).map((g) => g.permission)
  const isDenied = (permission: string) => denied.some((d) => covers(d, permission))
  const result = new Set<string>()
  for (const permission of held) {
    if (isDenied(permission)) continue
    if (denied.some((d) => covers(permission, d))) {
      for (const p of CONCRETE_PERMISSIONS) if (covers(permission, p) && !isDenied(p)) result.add(p)
    } else {
      result.add(permission)
    }
  }
  return [...result].sort()
}

/** The earliest moment (epoch ms) at which one of the active grants or denials expires. */
const nextExpiryMillis = (sources: PermissionSources, nowSeconds: number): number =>
  sources.grants.reduce(
    (min, g) => (g.expiresAt !== null && g.expiresAt > nowSeconds ? Math.min(min, g.expiresAt * 1000) : min),
    Number.POSITIVE_INFINITY
  )

/** How long a computed answer may be served from the cache without a change signal. */
export const CACHE_TTL_MILLIS = 30_000

/** A member's role and effective permissions in one organization. */
export interface Membership {
  readonly role: string
  readonly permissions: ReadonlyArray<string>
}

/** The cache group of an organization's memberships (`SharedState`), one field per user. */
const membershipsOf = (organizationId: string) => `permissions:${organizationId}`
/** The cache group of operator answers, one field per user. */
const OPERATORS = "operators"

/**
 * Effective permissions and operator membership, cached per (user, organization) in `SharedState`:
 * Redis when configured, so a change made through one identity process is seen by every other at
 * its next read (decision 0192), else in process. An entry lives until `invalidate` is called for
 * its organization or user, the next grant expiry, or `CACHE_TTL_MILLIS`; an answer computed before
 * an invalidation is never stored after it (the group's version).
 */
export class Permissions extends Effect.Service<Permissions>()("@core/auth/Permissions", {
  effect: Effect.gen(function*() {
    const repo = yield* PermissionsRepo
    const sessions = yield* SessionCache
    const { caches } = yield* SharedState
    const decoded = memoDecoder((text) => JSON.parse(text) as Membership | null)

    /** The user's role and effective permissions in the organization; `null` for a non-member. */
    const membership: (userId: string, organizationId: string) => Effect.Effect<Membership | null> = Effect.fn(
      "Permissions.membership"
    )(
      function*(userId: string, organizationId: string) {
        const group = membershipsOf(organizationId)
        const cached = yield* caches.get(group, userId)
        if (cached.value !== undefined) return decoded(`${group}\n${userId}`, cached.value)
        const now = yield* Clock.currentTimeMillis
        const sources = yield* repo.sources(userId, organizationId)
        const nowSeconds = Math.floor(now / 1000)
        const value = sources === null ? null : { role: sources.role, permissions: effective(sources, nowSeconds) }
        const ttl = Math.min(
          CACHE_TTL_MILLIS,
          (sources === null ? Number.POSITIVE_INFINITY : nextExpiryMillis(sources, nowSeconds)) - now
        )
        if (ttl > 0) yield* caches.set(group, userId, JSON.stringify(value), ttl, cached.version)
        return value
      }
    )

    /** Whether the user is a member of the `core-operator` organization. */
    const isOperator: (userId: string) => Effect.Effect<boolean> = Effect.fn("Permissions.isOperator")(
      function*(userId: string) {
        const cached = yield* caches.get(OPERATORS, userId)
        if (cached.value !== undefined) return cached.value === "1"
        const value = yield* repo.isOperator(userId)
        yield* caches.set(OPERATORS, userId, value ? "1" : "0", CACHE_TTL_MILLIS, cached.version)
        return value
      }
    )

    /**
     * Forget what is cached for an organization (one user, or all its members), operator answers and
     * session contexts, in every identity process.
     */
    const invalidate = (organizationId: string, userId?: string): Effect.Effect<void> =>
      Effect.all([caches.drop(membershipsOf(organizationId), userId), caches.drop(OPERATORS), sessions.clear], { discard: true })

    return { membership, isOperator, invalidate, organizationExists: repo.organizationExists } as const
  }),
  dependencies: [PermissionsRepo.Default, SessionCache.Default, SharedState.Default]
}) {}
