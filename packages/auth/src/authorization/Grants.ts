import type { Iam } from "@core/contracts"
import { type Forbidden, Ids, type NotFound, type ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller } from "@core/kernel"
import { Access } from "./Access.js"
import { Delegation } from "./Delegation.js"
import { type GrantRow, GrantsRepo } from "./GrantsRepo.js"
import { MANAGE_PERMISSION, READ_PERMISSION } from "./RoleMappings.js"
import { grantNotFound, invalidBody, notAMember, onlyOwnersLiftDenials } from "../Errors.js"

const toGrant = (row: GrantRow, nowSeconds: number): Iam.Grant => ({
  ...row,
  active: row.expiresAt === null || row.expiresAt > nowSeconds
})

const nowSeconds = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))

/**
 * Per-user grants (`granted: true`) and denials (`false`) of one permission in one organization,
 * optionally expiring (`expiresAt`, epoch seconds). Same callers as role mappings.
 */
export class Grants extends Effect.Service<Grants>()("@core/auth/Grants", {
  effect: Effect.gen(function*() {
    const repo = yield* GrantsRepo
    const delegation = yield* Delegation
    const access = yield* Access
    const audit = yield* AuditLog
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient

    const list = (caller: Caller, query: Iam.ListGrantsQuery): Effect.Effect<ReadonlyArray<Iam.Grant>, Forbidden | NotFound> =>
      Effect.gen(function*() {
        yield* delegation.requireInOrganization(caller, query.orgId, READ_PERMISSION)
        const rows = yield* repo.list(query.orgId, query.userId)
        const now = yield* nowSeconds
        return rows.map((row) => toGrant(row, now))
      })

    /**
     * Grant or deny a permission to a member. The caller must hold the permission; `grantedBy`
     * must be the caller's own user id (the service key may name anyone); only a caller holding
     * `*` may deny something to an owner.
     */
    const create: (
      caller: Caller,
      input: Iam.CreateGrantRequest
    ) => Effect.Effect<Iam.Grant, Forbidden | NotFound | ValidationError> = Effect.fn("Grants.create")(
      function*(caller: Caller, input: Iam.CreateGrantRequest) {
        yield* delegation.requireInOrganization(caller, input.orgId, MANAGE_PERMISSION)
        if (caller.kind === "user" && input.grantedBy !== caller.userId) {
          return yield* invalidBody("grantedBy", "Must be the id of the calling user")
        }
        const role = yield* repo.memberRole(input.orgId, input.userId)
        if (role === null) return yield* notAMember
        yield* delegation.requireHolds(
          caller,
          input.orgId,
          !input.granted && role === "owner" ? ["*", input.permission] : [input.permission]
        )
        const id = yield* ids.make("grt")
        const now = yield* Clock.currentTimeMillis
        const row = yield* sql.withTransaction(Effect.zipLeft(
          repo.insert({
            id,
            orgId: input.orgId,
            userId: input.userId,
            permission: input.permission,
            granted: input.granted,
            grantedBy: input.grantedBy,
            expiresAt: input.expiresAt ?? null,
            createdAt: new Date(now).toISOString()
          }),
          audit.record({
            action: input.granted ? "grant.create" : "grant.deny",
            ...actorOf(caller),
            organizationId: input.orgId,
            targetType: "user",
            targetId: input.userId,
            metadata: { grantId: id, permission: input.permission, granted: input.granted, expiresAt: input.expiresAt ?? null }
          })
        )).pipe(Effect.orDie)
        yield* access.invalidate(input.orgId, input.userId)
        return toGrant(row, Math.floor(now / 1000))
      }
    )

    /**
     * Whether the caller may lift a denial of `userId`: `members:manage` is enough, as lifting hands
     * nothing out the caller's role mappings did not already give; a denial of an owner, or of the
     * caller itself, needs an owner (or the service key, or an operator), so an admin cannot undo
     * what an owner took from it (docs/decisions/0197-denials-and-listing-grants.md).
     */
    const mayLift = (caller: Caller, orgId: string, userId: string) =>
      Effect.gen(function*() {
        if (yield* access.isPrivileged(caller)) return true
        const self = caller.kind === "user" && caller.userId === userId
        if (!self && (yield* repo.memberRole(orgId, userId)) !== "owner") return true
        return caller.kind === "user" && (yield* repo.memberRole(orgId, caller.userId)) === "owner"
      })

    /**
     * Delete a grant or denial (`members:manage`). Lifting a denial does not need the denied
     * permission — an owner who denied itself one could not lift it otherwise — but see `mayLift`.
     */
    const remove: (caller: Caller, id: string) => Effect.Effect<void, Forbidden | NotFound> = Effect.fn("Grants.remove")(
      function*(caller: Caller, id: string) {
        const grant = yield* repo.find(id)
        if (grant === null) return yield* grantNotFound
        yield* delegation.requireInOrganization(caller, grant.orgId, MANAGE_PERMISSION).pipe(
          Effect.catchTag("NotFound", () => grantNotFound)
        )
        if (!grant.granted && !(yield* mayLift(caller, grant.orgId, grant.userId))) {
          return yield* onlyOwnersLiftDenials
        }
        yield* sql.withTransaction(Effect.zipRight(
          repo.remove(id),
          audit.record({
            action: "grant.delete",
            ...actorOf(caller),
            organizationId: grant.orgId,
            targetType: "user",
            targetId: grant.userId,
            metadata: { grantId: id, permission: grant.permission, granted: grant.granted }
          })
        )).pipe(Effect.orDie)
        yield* access.invalidate(grant.orgId, grant.userId)
      }
    )

    return { list, create, remove } as const
  }),
  dependencies: [GrantsRepo.Default]
}) {}
