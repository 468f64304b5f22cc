import { Crypto } from "@core/kernel"
import { Effect, Option } from "effect"
import { Access } from "../authorization/Access.js"
import { SessionCache } from "./SessionCache.js"
import { type ResolvedSessionContext, Sessions } from "./Sessions.js"
import type { SessionTenant } from "./SessionsRepo.js"

/** The effective role of a session: `operator` for core operators, else the role in its tenant. */
export type EffectiveRole = "owner" | "admin" | "member" | "operator"

/** A session as the gateway sees it: who, in which tenant, with which role and permissions. */
export interface DescribedSession extends ResolvedSessionContext {
  readonly role: EffectiveRole | null
  readonly permissions: ReadonlyArray<string>
}

const NO_TENANT: SessionTenant = {
  organizationId: null,
  organizationSlug: null,
  platformId: null,
  platformStatus: null,
  memberRole: null
}

/**
 * Describes a session for `GET /api/core/session` and `POST /api/validate-session`: one lookup by
 * token hash (session, user, active organization, membership, platform status) plus the cached
 * operator flag and effective permissions of `Access`, the whole answer kept a second in
 * `SessionCache`. The tenant is the session's active
 * organization while the user is a member of it (or an operator); else it is empty.
 */
export class SessionContext extends Effect.Service<SessionContext>()("@core/auth/SessionContext", {
  effect: Effect.gen(function*() {
    const sessions = yield* Sessions
    const access = yield* Access
    const cache = yield* SessionCache

    const miss: (token: string, tokenHash: string, version: string) => Effect.Effect<Option.Option<DescribedSession>> = Effect.fn(
      "SessionContext.describe",
      { captureStackTrace: false }
    )(
      function*(token: string, tokenHash: string, version: string) {
        const found = yield* sessions.resolveContext(token)
        if (Option.isNone(found)) return Option.none()
        const resolved = found.value
        const operator = yield* access.isOperator(resolved.user.id)
        const organizationId = resolved.tenant.organizationId
        const inTenant = organizationId !== null && (resolved.tenant.memberRole !== null || operator)
        const tenant = inTenant ? resolved.tenant : NO_TENANT
        const role: EffectiveRole | null = operator ? "operator" : tenant.memberRole
        const permissions = operator
          ? ["*"]
          : inTenant && organizationId !== null
          ? yield* access.effectivePermissions(resolved.user.id, organizationId)
          : []
        const described: DescribedSession = { ...resolved, refreshed: false, tenant, role, permissions }
        yield* cache.set(tokenHash, described, version)
        return Option.some(described)
      }
    )

    /** A cache hit costs a hash and a cache lookup; only a miss opens a span and asks the database. */
    const describe = (token: string): Effect.Effect<Option.Option<DescribedSession>> =>
      Effect.suspend(() => {
        const tokenHash = Crypto.sha256Hex(token)
        return Effect.flatMap(
          cache.get(tokenHash),
          (cached) =>
            cached.value === undefined ? miss(token, tokenHash, cached.version) : Effect.succeed(Option.some(cached.value))
        )
      })

    return { describe } as const
  }),
  dependencies: [Sessions.Default, SessionCache.Default]
}) {}
