import type { CallerKind, Permission } from "@core/contracts"
import { permissionCovers } from "@core/contracts"
import { Effect } from "effect"
import { type Caller, Callers, type UserCaller } from "./Caller.js"
import { Forbidden, NotFound, Unauthorized } from "./Errors.js"

/**
 * Who may do what, once for every service: checks over the one `Caller` and the permission
 * catalogue. The two facts only identity knows (operator membership, a member's effective
 * permissions) come from the caller itself when it carries them (a user's `role` and its
 * `permissions` in its own organization, as the gateway signs them), else from the `Callers` port.
 */

/** The facts a policy asks of identity. */
export type Facts = Pick<Callers["Type"], "isOperator" | "permissionsOf">

/** Whether a set of held permissions (wildcards allowed) covers `required`. */
export const allows = (held: ReadonlyArray<string>, required: string): boolean =>
  held.some((permission) => permissionCovers(permission, required))

/**
 * The 403 of a missing permission: it names the permission and how to get it — an API key holds
 * what it was created with, so a new key is needed; a member asks for a grant (decision 0597).
 */
export const missingPermission = (caller: Caller, permission: string): Forbidden =>
  new Forbidden({
    message: caller.kind === "apikey"
      ? `Missing permission ${permission}: create a key with --permission ${permission} (core keys create), or ask an owner for one`
      : `Missing permission ${permission}: ask an owner or admin of the organization to grant it (core grants create --permission ${permission})`
  })

const operatorOnly = new Forbidden({ message: "This action needs the operator role or the service key" })
const organizationNotFound = new NotFound({ message: "Organization not found" })

/** The checks over given facts (identity builds its `Access` on them; services use the functions below). */
export const make = (facts: Facts) => {
  /**
   * Whether the caller is the static service key or an operator: a user whose effective role is
   * known is an operator exactly when it is `operator`; otherwise the facts are asked.
   */
  const isPrivileged = (caller: Caller): Effect.Effect<boolean> =>
    caller.kind === "service"
      ? Effect.succeed(true)
      : caller.kind === "apikey"
      ? Effect.succeed(false)
      : caller.role !== undefined
      ? Effect.succeed(caller.role === "operator")
      : facts.isOperator(caller.userId)

  /** A user's permissions in an organization: its own when it carries them for that organization, else the facts'. */
  const memberPermissions = (caller: UserCaller, organizationId: string): Effect.Effect<ReadonlyArray<string> | undefined> =>
    caller.permissions !== undefined && caller.organizationId === organizationId
      ? Effect.succeed(caller.permissions)
      : facts.permissionsOf(caller.userId, organizationId)

  /** Passes for the static service key or an operator; else 403 `FORBIDDEN`. */
  const requireOperator = (caller: Caller): Effect.Effect<void, Forbidden> =>
    Effect.flatMap(isPrivileged(caller), (privileged) => (privileged ? Effect.void : Effect.fail(operatorOnly)))

  /**
   * The permissions a caller holds in an organization: every one (`["*"]`) for the service key and
   * operators, the key's own in its organization for an API key, a member's effective permissions
   * for a user; `undefined` when the caller is not in the organization at all.
   */
  const permissionsIn = (caller: Caller, organizationId: string): Effect.Effect<ReadonlyArray<string> | undefined> => {
    if (caller.kind === "apikey") return Effect.succeed(caller.organizationId === organizationId ? caller.permissions : undefined)
    return Effect.flatMap(isPrivileged(caller), (privileged) =>
      privileged ? Effect.succeed(["*"]) : caller.kind === "user" ? memberPermissions(caller, organizationId) : Effect.succeed(undefined))
  }

  /**
   * Passes when the caller holds `permission` in the organization. A caller outside it gets 404
   * `NOT_FOUND` (another tenant's organization is never revealed), a member lacking it 403.
   */
  const requirePermission = (
    caller: Caller,
    organizationId: string,
    permission: Permission | string,
    notFound: NotFound = organizationNotFound
  ): Effect.Effect<void, Forbidden | NotFound> =>
    Effect.flatMap(permissionsIn(caller, organizationId), (held): Effect.Effect<void, Forbidden | NotFound> => {
      if (held === undefined) return Effect.fail(notFound)
      return allows(held, permission) ? Effect.void : Effect.fail(missingPermission(caller, permission))
    }).pipe(Effect.withSpan("Policy.requirePermission", { attributes: { permission } }))

  /**
   * Tenant scoping: a record of another organization than the caller may act in answers 404, as if
   * it did not exist. The service key and operators see every tenant.
   */
  const requireTenant = (caller: Caller, organizationId: string | null, notFound: NotFound): Effect.Effect<void, NotFound> =>
    organizationId === null
      ? Effect.fail(notFound)
      : Effect.flatMap(permissionsIn(caller, organizationId), (held) => (held === undefined ? Effect.fail(notFound) : Effect.void))

  return { isPrivileged, requireOperator, permissionsIn, requirePermission, requireTenant } as const
}

const withPolicy = <A, E>(use: (policy: ReturnType<typeof make>) => Effect.Effect<A, E>): Effect.Effect<A, E, Callers> =>
  Effect.flatMap(Callers, (callers) => use(make(callers)))

/** Whether the caller is the static service key or an operator. */
export const isPrivileged = (caller: Caller) => withPolicy((policy) => policy.isPrivileged(caller))

/** Passes for the static service key or an operator; else 403 `FORBIDDEN`. */
export const requireOperator = (caller: Caller) => withPolicy((policy) => policy.requireOperator(caller))

/** The permissions a caller holds in an organization; `undefined` outside it. */
export const permissionsIn = (caller: Caller, organizationId: string) =>
  withPolicy((policy) => policy.permissionsIn(caller, organizationId))

/**
 * Passes when the caller holds `permission` in the organization (the service key and operators
 * always do); 404 outside the organization, 403 for a member lacking it.
 *
 * @example
 * yield* Policy.requirePermission(caller, input.orgId, "members:manage")
 */
export const requirePermission = (caller: Caller, organizationId: string, permission: Permission, notFound?: NotFound) =>
  withPolicy((policy) => policy.requirePermission(caller, organizationId, permission, notFound))

/** Another tenant's record answers 404 (see `make`). */
export const requireTenant = (caller: Caller, organizationId: string | null, notFound: NotFound) =>
  withPolicy((policy) => policy.requireTenant(caller, organizationId, notFound))

/** Whether a caller is one of the kinds a route accepts. */
export const isAccepted = (caller: Caller, kinds: ReadonlyArray<CallerKind>): boolean => kinds.includes(caller.kind)

/**
 * The message of a 401 for a request without credentials, saying what would pass: the same at the
 * gateway and in every service, also while the development bypass is on (it lets requests without
 * credentials through the gateway, not into the routes that need a caller; docs/decisions/0582).
 */
export const AUTHENTICATION_REQUIRED =
  "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)"

/** The 401 of a route called without credentials ({@link AUTHENTICATION_REQUIRED}). */
export const authenticationRequired = new Unauthorized({ message: AUTHENTICATION_REQUIRED })

/** The actor of an audit entry for a caller: a user, an API key (its id), or the service. */
export const actorOf = (caller: Caller): { readonly actorId: string | null; readonly actorType: "user" | "apikey" | "service" } =>
  caller.kind === "user"
    ? { actorId: caller.userId, actorType: "user" }
    : caller.kind === "apikey"
    ? { actorId: caller.keyId, actorType: "apikey" }
    : { actorId: null, actorType: "service" }
