import type { HttpServerRequest } from "@effect/platform"
import { Context, type Effect } from "effect"
import type { Unauthorized } from "./Errors.js"

/** A user's effective role: `operator` for the operator organization's members, else its role in its organization. */
export type EffectiveRole = "owner" | "admin" | "member" | "operator"

/**
 * A signed-in user: a session presented as a bearer or the `core.session_token` cookie.
 *
 * `platformId`, `role` and `permissions` are what the gateway already knows of the session (identity's
 * `/api/core/session` answer) and signs into `X-Core-Identity`; a caller resolved from the database
 * (identity's own `Callers`) leaves them out, and `Policy` then asks the `Callers` facts instead.
 */
export interface UserCaller {
  readonly kind: "user"
  readonly userId: string
  readonly sessionId: string
  readonly email: string
  /** The session's active organization, the tenant it acts in; `null` outside any. */
  readonly organizationId: string | null
  /** How the session token arrived. */
  readonly via: "bearer" | "cookie"
  /** The platform of `organizationId`, when known; `null` outside any tenant. */
  readonly platformId?: string | null
  /**
   * The effective role, when known: `operator` for an operator (wherever it acts), else its role in
   * `organizationId`; `null` for a user who is neither an operator nor in a tenant.
   */
  readonly role?: EffectiveRole | null
  /** Its effective permissions in `organizationId` (wildcards allowed), when known. */
  readonly permissions?: ReadonlyArray<string>
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
 * Whoever calls a route, resolved once per request: from the gateway's signed `X-Core-Identity`
 * (`ForwardedIdentity`, `ForwardedCallers`), or from the presented credentials through identity's
 * `Callers`. Operators are users: a user's `role` says so when it is known, else
 * `Callers.isOperator` is asked when a route or a policy needs it (`Policy`).
 */
export type Caller = UserCaller | ApiKeyCaller | ServiceCaller

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
