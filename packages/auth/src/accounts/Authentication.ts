import { Context, type Effect } from "effect"
import type { HttpServerRequest } from "@effect/platform"
import type { Unauthorized } from "@core/kernel"

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
