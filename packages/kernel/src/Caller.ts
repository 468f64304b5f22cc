import type { HttpServerRequest } from "@effect/platform"
import { Context, type Effect } from "effect"
import type { Unauthorized } from "./Errors.js"

/** A signed-in user: a session presented as a bearer or the `core.session_token` cookie. */
export interface UserCaller {
  readonly kind: "user"
  readonly userId: string
  readonly sessionId: string
  readonly email: string
  /** The session's active organization, the tenant it acts in; `null` outside any. */
  readonly organizationId: string | null
  /** How the session token arrived. */
  readonly via: "bearer" | "cookie"
}

/** A server presenting an API key (`x-api-key: core_…`), bound to one organization and its platform. */
export interface ApiKeyCaller {
  readonly kind: "apikey"
  readonly keyId: string
  readonly organizationId: string
  readonly platformId: string
  /** What the key may do: exactly these permissions (wildcards allowed), nothing else. */
  readonly permissions: ReadonlyArray<string>
}

/** A server presenting the static service key (`CORE_STATIC_API_KEY`). */
export interface ServiceCaller {
  readonly kind: "service"
}

/**
 * Whoever calls a route, resolved once per request. Operators are users: whether a user belongs to
 * the operator organization is asked of `Callers.isOperator` when a route or a policy needs it
 * (`Policy`).
 */
export type Caller = UserCaller | ApiKeyCaller | ServiceCaller

/** The static service key's caller. */
export const service: ServiceCaller = { kind: "service" }

/** Which credentials a resolution may look at. */
export interface ResolveOptions {
  /** Only the session cookie (web forms and `org-setup`, which browsers call). @default false */
  readonly cookieOnly?: boolean
}

/**
 * The port that turns presented credentials into a `Caller` and answers who may do what. Identity
 * implements it (sessions, API keys, the static key, role mappings and grants); every service's
 * routes are served through it, in the all-in-one server, alone, or embedded in a host app.
 */
export class Callers extends Context.Tag("@core/kernel/Callers")<Callers, {
  /**
   * The caller of a request: `undefined` when it presents no credentials, `Unauthorized` when the
   * credentials it presents are not valid.
   */
  readonly resolve: (
    request: HttpServerRequest.HttpServerRequest,
    options?: ResolveOptions
  ) => Effect.Effect<Caller | undefined, Unauthorized>
  /** Whether a user belongs to the operator organization. */
  readonly isOperator: (userId: string) => Effect.Effect<boolean>
  /** A user's effective permissions in an organization; `undefined` when not a member. */
  readonly permissionsOf: (userId: string, organizationId: string) => Effect.Effect<ReadonlyArray<string> | undefined>
}>() {}
