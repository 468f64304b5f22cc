import { CONCRETE_PERMISSIONS, permissionCovers as covers } from "@core/contracts"
import { Clock, Effect } from "effect"
import { type PermissionSources, PermissionsRepo } from "./PermissionsRepo.js"
import { SessionCache } from "../accounts/SessionCache.js"

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

/** How long a computed answer may be served from the in-process cache without a change signal. */
export const CACHE_TTL_MILLIS = 30_000
const CACHE_MAX_ENTRIES = 10_000

/** A member's role and effective permissions in one organization. */
export interface Membership {
  readonly role: string
  readonly permissions: ReadonlyArray<string>
}

interface Entry<A> {
  readonly value: A
  readonly validUntil: number
}

/**
 * Effective permissions and operator membership, cached per (user, organization) in process.
 * An entry lives until `invalidate` is called for its organization or user, the next grant
 * expiry, or `CACHE_TTL_MILLIS` (which bounds staleness when another process changes the rows).
 */
export class Permissions extends Effect.Service<Permissions>()("@core/auth/Permissions", {
  effect: Effect.gen(function*() {
    const repo = yield* PermissionsRepo
    const sessions = yield* SessionCache
    const memberships = new Map<string, Entry<Membership | null>>()
    const operators = new Map<string, Entry<boolean>>()
    let generation = 0

    const keyOf = (userId: string, organizationId: string) => `${organizationId}\u0000${userId}`

    const remember = <A>(cache: Map<string, Entry<A>>, key: string, entry: Entry<A>, seen: number) => {
      if (seen !== generation) return
      if (cache.size >= CACHE_MAX_ENTRIES) cache.clear()
      cache.set(key, entry)
    }

    /** The user's role and effective permissions in the organization; `null` for a non-member. */
    const membership: (userId: string, organizationId: string) => Effect.Effect<Membership | null> = Effect.fn(
      "Permissions.membership"
    )(
      function*(userId: string, organizationId: string) {
        const now = yield* Clock.currentTimeMillis
        const key = keyOf(userId, organizationId)
        const cached = memberships.get(key)
        if (cached !== undefined && cached.validUntil > now) return cached.value
        const seen = generation
        const sources = yield* repo.sources(userId, organizationId)
        const nowSeconds = Math.floor(now / 1000)
        const value = sources === null ? null : { role: sources.role, permissions: effective(sources, nowSeconds) }
        const validUntil = Math.min(
          now + CACHE_TTL_MILLIS,
          sources === null ? Number.POSITIVE_INFINITY : nextExpiryMillis(sources, nowSeconds)
        )
        remember(memberships, key, { value, validUntil }, seen)
        return value
      }
    )

    /** Whether the user is a member of the `core-operator` organization. */
    const isOperator: (userId: string) => Effect.Effect<boolean> = Effect.fn("Permissions.isOperator")(
      function*(userId: string) {
        const now = yield* Clock.currentTimeMillis
        const cached = operators.get(userId)
        if (cached !== undefined && cached.validUntil > now) return cached.value
        const seen = generation
        const value = yield* repo.isOperator(userId)
        remember(operators, userId, { value, validUntil: now + CACHE_TTL_MILLIS }, seen)
        return value
      }
    )

    /** Forget what is cached for an organization (one user, or all its members) and operator answers. */
    const invalidate = (organizationId: string, userId?: string): Effect.Effect<void> =>
      Effect.zipLeft(Effect.sync(() => {
        generation++
        operators.clear()
        if (userId !== undefined) {
          memberships.delete(keyOf(userId, organizationId))
          return
        }
        const prefix = `${organizationId}\u0000`
        for (const key of memberships.keys()) if (key.startsWith(prefix)) memberships.delete(key)
      }), sessions.clear)

    return { membership, isOperator, invalidate, organizationExists: repo.organizationExists } as const
  }),
  dependencies: [PermissionsRepo.Default, SessionCache.Default]
}) {}
