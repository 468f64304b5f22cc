import { Context, type Effect } from "effect"
import type { HttpServerRequest } from "@effect/platform"
import type { Forbidden, NotFound, Unauthorized } from "@core/kernel"

/** A signed-in user, resolved from a session token (bearer or `core.session_token` cookie). */
export interface SessionCaller {
  readonly kind: "session"
  readonly userId: string
  readonly sessionId: string
  readonly email: string
  readonly activeOrganizationId: string | null
  /** How the token arrived: a bearer header or the session cookie. */
  readonly via: "bearer" | "cookie"
}

/** A server presenting the static service key (`CORE_STATIC_API_KEY`). */
export interface ServiceCaller {
  readonly kind: "service"
}

/** Whoever is calling an identity route. */
export type Caller = SessionCaller | ServiceCaller

/**
 * Resolves the caller of the current request. Implemented by `Sessions` (accounts);
 * used by every identity route that needs a caller.
 */
export class Authentication extends Context.Tag("@core/auth/Authentication")<Authentication, {
  /** A session (bearer or cookie) or the static service key; else `Unauthorized`. */
  readonly caller: Effect.Effect<Caller, Unauthorized, HttpServerRequest.HttpServerRequest>
  /** A session only (bearer or cookie); else `Unauthorized`. */
  readonly session: Effect.Effect<SessionCaller, Unauthorized, HttpServerRequest.HttpServerRequest>
  /** A session carried by the `core.session_token` cookie only (org-setup); else `Unauthorized`. */
  readonly cookieSession: Effect.Effect<SessionCaller, Unauthorized, HttpServerRequest.HttpServerRequest>
}>() {}

/**
 * Decides who may do what. Implemented with role mappings, grants and operator membership
 * (authorization); used by organizations, keys and every guarded route.
 */
export class Access extends Context.Tag("@core/auth/Access")<Access, {
  /** Whether the user belongs to the `core-operator` organization. */
  readonly isOperator: (userId: string) => Effect.Effect<boolean>
  /** Passes for the static service key or an operator; else `Forbidden`. */
  readonly requireOperatorOrService: (caller: Caller) => Effect.Effect<void, Forbidden>
  /**
   * Passes when the caller holds `permission` in the organization (effective permissions),
   * is an operator, or is the service; else `Forbidden` — or `NotFound` from the caller's
   * side when it is not a member at all (never reveal another tenant's organization).
   */
  readonly requirePermission: (
    caller: Caller,
    organizationId: string,
    permission: string
  ) => Effect.Effect<void, Forbidden | NotFound>
  /** The effective permissions of a user in an organization (mapping + grants − denials). */
  readonly effectivePermissions: (userId: string, organizationId: string) => Effect.Effect<ReadonlyArray<string>>
  /** Forget cached permissions after a role, grant or membership change. */
  readonly invalidate: (organizationId: string, userId?: string) => Effect.Effect<void>
}>() {}
