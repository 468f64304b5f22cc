import type { HttpServerRequest } from "@effect/platform"
import { type CallerKind, type Permission, permissionCovers } from "@core/contracts"
import { Context, Effect } from "effect"
import { Forbidden, NotFound, Unauthorized } from "./Errors.js"

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
 * the operator organization is asked of `Callers.isOperator` when a route or a policy needs it.
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

/** Whether a set of held permissions (wildcards allowed) covers `required`. */
export const allows = (held: ReadonlyArray<string>, required: string): boolean =>
  held.some((permission) => permissionCovers(permission, required))

/** Whether the caller is the static service key or an operator. */
export const isPrivileged = (caller: Caller): Effect.Effect<boolean, never, Callers> =>
  caller.kind === "service"
    ? Effect.succeed(true)
    : caller.kind === "apikey"
    ? Effect.succeed(false)
    : Effect.flatMap(Callers, (callers) => callers.isOperator(caller.userId))

const operatorOnly = new Forbidden({ message: "This action needs the operator role or the service key" })

/** Passes for the static service key or an operator; else 403 `FORBIDDEN`. */
export const requireOperator = (caller: Caller): Effect.Effect<void, Forbidden, Callers> =>
  Effect.flatMap(isPrivileged(caller), (privileged) => (privileged ? Effect.void : Effect.fail(operatorOnly)))

/**
 * The permissions a caller holds in an organization: every one for the service key and operators
 * (`["*"]`), the key's own in its organization for an API key, the effective permissions of a
 * member for a user; `undefined` when the caller is not in the organization at all.
 */
export const permissionsIn = (
  caller: Caller,
  organizationId: string
): Effect.Effect<ReadonlyArray<string> | undefined, never, Callers> =>
  Effect.gen(function*() {
    if (caller.kind === "apikey") return caller.organizationId === organizationId ? caller.permissions : undefined
    if (yield* isPrivileged(caller)) return ["*"]
    if (caller.kind !== "user") return undefined
    return yield* (yield* Callers).permissionsOf(caller.userId, organizationId)
  })

/**
 * Passes when the caller holds `permission` in the organization (the service key and operators
 * always do). A caller outside the organization gets 404 `NOT_FOUND` — another tenant's
 * organization is never revealed — and a member lacking the permission 403 `FORBIDDEN`.
 *
 * @example
 * yield* Caller.requirePermission(caller, input.orgId, "members:manage")
 */
export const requirePermission = (
  caller: Caller,
  organizationId: string,
  permission: Permission,
  notFound: NotFound = new NotFound({ message: "Organization not found" })
): Effect.Effect<void, Forbidden | NotFound, Callers> =>
  Effect.flatMap(permissionsIn(caller, organizationId), (held): Effect.Effect<void, Forbidden | NotFound> => {
    if (held === undefined) return Effect.fail(notFound)
    return allows(held, permission) ? Effect.void : Effect.fail(new Forbidden({ message: `Missing permission ${permission}` }))
  }).pipe(Effect.withSpan("Caller.requirePermission", { attributes: { permission } }))

/**
 * Tenant scoping: a record that belongs to another organization than the caller may act in answers
 * 404, as if it did not exist. The service key and operators see every tenant.
 */
export const requireTenant = (
  caller: Caller,
  organizationId: string | null,
  notFound: NotFound
): Effect.Effect<void, NotFound, Callers> =>
  organizationId === null
    ? Effect.fail(notFound)
    : Effect.flatMap(permissionsIn(caller, organizationId), (held) => (held === undefined ? Effect.fail(notFound) : Effect.void))

const kindOf = (caller: Caller): CallerKind => caller.kind

/** Whether a caller is one of the kinds a route accepts. */
export const isAccepted = (caller: Caller, kinds: ReadonlyArray<CallerKind>): boolean => kinds.includes(kindOf(caller))

/** The 401 of a route called without credentials. */
export const authenticationRequired = new Unauthorized({ message: "Authentication required" })

/** The actor of an audit entry for a caller. */
export const actorOf = (caller: Caller): { readonly actorId: string | null; readonly actorType: "user" | "apikey" | "service" } =>
  caller.kind === "user"
    ? { actorId: caller.userId, actorType: "user" }
    : caller.kind === "apikey"
    ? { actorId: caller.keyId, actorType: "apikey" }
    : { actorId: null, actorType: "service" }
