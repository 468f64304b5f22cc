import type { Iam } from "@core/contracts"
import { type Forbidden, type NotFound } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller } from "@core/kernel"
import { Access } from "./Access.js"
import { Delegation } from "./Delegation.js"
import { RoleMappingsRepo } from "./RoleMappingsRepo.js"
import { roleMappingNotFound } from "../Errors.js"

/** Who may change an organization's role mappings and grants: its owner/admin, operators, the service. */
export const MANAGE_PERMISSION = "members:manage"

/**
 * Who may list them: `members:read`, as the permission catalogue says ("List members, invitations,
 * role mappings and grants"; docs/decisions/0197-denials-and-listing-grants.md).
 */
export const READ_PERMISSION = "members:read"

/** The owner role's mapping changes only by callers holding `*` (so no admin can lock owners out). */
const OWNER_ROLE = "owner"

/** Per-organization role-to-permission mappings: list, upsert, delete. */
export class RoleMappings extends Effect.Service<RoleMappings>()("@core/auth/RoleMappings", {
  effect: Effect.gen(function*() {
    const repo = yield* RoleMappingsRepo
    const delegation = yield* Delegation
    const access = yield* Access
    const audit = yield* AuditLog
    const sql = yield* SqlClient.SqlClient

    const list = (caller: Caller, organizationId: string): Effect.Effect<ReadonlyArray<Iam.RoleMapping>, Forbidden | NotFound> =>
      Effect.zipRight(delegation.requireInOrganization(caller, organizationId, READ_PERMISSION), repo.list(organizationId))

    /** Create or replace a role's permissions; the caller must hold every permission it hands out. */
    const upsert: (
      caller: Caller,
      input: Iam.UpsertRoleMappingRequest
    ) => Effect.Effect<Iam.RoleMapping, Forbidden | NotFound> = Effect.fn("RoleMappings.upsert")(
      function*(caller: Caller, input: Iam.UpsertRoleMappingRequest) {
        yield* delegation.requireInOrganization(caller, input.orgId, MANAGE_PERMISSION)
        const permissions = [...new Set(input.permissions)].sort()
        yield* delegation.requireHolds(caller, input.orgId, input.role === OWNER_ROLE ? ["*", ...permissions] : permissions)
        const previous = yield* repo.find(input.orgId, input.role)
        const now = yield* Clock.currentTimeMillis
        const mapping = yield* sql.withTransaction(Effect.zipLeft(
          repo.upsert(input.orgId, input.role, permissions, new Date(now)),
          audit.record({
            action: "role.upsert",
            ...actorOf(caller),
            organizationId: input.orgId,
            targetType: "role",
            targetId: input.role,
            metadata: { permissions, previous: previous?.permissions ?? null }
          })
        )).pipe(Effect.orDie)
        yield* access.invalidate(input.orgId)
        return mapping
      }
    )

    /** Delete a role's mapping; its members then hold only their grants. */
    const remove: (
      caller: Caller,
      organizationId: string,
      role: string
    ) => Effect.Effect<void, Forbidden | NotFound> = Effect.fn("RoleMappings.remove")(
      function*(caller: Caller, organizationId: string, role: string) {
        yield* delegation.requireInOrganization(caller, organizationId, MANAGE_PERMISSION)
        const previous = yield* repo.find(organizationId, role)
        if (previous === null) return yield* roleMappingNotFound
        if (role === OWNER_ROLE) yield* delegation.requireHolds(caller, organizationId, ["*"])
        yield* sql.withTransaction(Effect.zipRight(
          repo.remove(organizationId, role),
          audit.record({
            action: "role.delete",
            ...actorOf(caller),
            organizationId,
            targetType: "role",
            targetId: role,
            metadata: { previous: previous.permissions }
          })
        )).pipe(Effect.orDie)
        yield* access.invalidate(organizationId)
      }
    )

    return { list, upsert, remove } as const
  }),
  dependencies: [RoleMappingsRepo.Default]
}) {}
