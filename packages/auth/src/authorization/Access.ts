import { Context, type Effect } from "effect"
import type { Forbidden, NotFound } from "@core/kernel"
import type { Caller } from "@core/kernel"

/**
 * Decides who may do what. Implemented with role mappings, grants and operator membership
 * (authorization); used by organizations, keys and every guarded route.
 */
export class Access extends Context.Tag("@core/auth/Access")<Access, {
  /** Whether the user belongs to the `core-operator` organization. */
  readonly isOperator: (userId: string) => Effect.Effect<boolean>
  /** Whether the caller is the static service key or an operator. */
  readonly isPrivileged: (caller: Caller) => Effect.Effect<boolean>
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
  /** What the caller holds in an organization (`["*"]` when privileged, a key's own); `undefined` outside it. */
  readonly permissionsIn: (caller: Caller, organizationId: string) => Effect.Effect<ReadonlyArray<string> | undefined>
  /** The effective permissions of a user in an organization (mapping + grants − denials). */
  readonly effectivePermissions: (userId: string, organizationId: string) => Effect.Effect<ReadonlyArray<string>>
  /** Forget cached permissions after a role, grant or membership change. */
  readonly invalidate: (organizationId: string, userId?: string) => Effect.Effect<void>
}>() {}
