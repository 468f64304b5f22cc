import { EventOutbox, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller, UserCaller } from "@core/kernel"
import { Access } from "../authorization/Access.js"
import { type MemberRole, type MemberRow, MembersRepo } from "./MembersRepo.js"
import { fail, type OrganizationError, requireIn } from "./OrganizationErrors.js"
import { Organizations, type OrganizationSelector } from "./Organizations.js"
import { OrganizationsRepo } from "./OrganizationsRepo.js"
import * as View from "./OrganizationViews.js"
import type { Actor } from "./OrgSetup.js"

/**
 * Memberships: listing, adding (invitations, bootstrap), removal, role changes and leaving.
 * An organization never loses its last owner; only owners (and operators) touch owners.
 */
export class Members extends Effect.Service<Members>()("@core/auth/Members", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* MembersRepo
    const organizationsRepo = yield* OrganizationsRepo
    const organizations = yield* Organizations
    const access = yield* Access
    const audit = yield* AuditLog
    const ids = yield* Ids.Ids

    /**
     * Whether the caller may act on owners: the service, an operator, or an owner of the organization;
     * never an API key, which is no member (docs/decisions/0172-api-key-callers.md).
     */
    const actsAsOwner = (caller: Caller, organizationId: string) =>
      Effect.gen(function*() {
        if (yield* access.isPrivileged(caller)) return true
        if (caller.kind !== "user") return false
        const membership = yield* repo.find(organizationId, caller.userId)
        return Option.isSome(membership) && membership.value.role === "owner"
      })

    /** Lock the organization row so concurrent owner changes see each other (last-owner rule). */
    const lockedOwnerCount = (organizationId: string) =>
      Effect.zipRight(organizationsRepo.lock(organizationId), repo.countOwners(organizationId))

    const record = (actor: Actor, action: string, member: MemberRow, metadata: Record<string, unknown>) =>
      audit.record({
        ...actor,
        action,
        organizationId: member.organizationId,
        targetType: "user",
        targetId: member.userId,
        metadata: { memberId: member.id, ...metadata }
      })

    /** A page of the selected organization's members (`members:read`). */
    const list = Effect.fn("Members.list")(function*(
      caller: Caller,
      selector: OrganizationSelector,
      page: { readonly limit?: number | undefined; readonly offset?: number | undefined }
    ) {
      const organization = yield* organizations.readable(caller, selector, "members:read")
      return yield* repo.list(organization.id, { limit: page.limit ?? 100, offset: page.offset ?? 0 })
    })

    /** The caller's membership in its active organization. */
    const active = (caller: UserCaller): Effect.Effect<MemberRow, OrganizationError> =>
      Effect.gen(function*() {
        if (caller.organizationId === null) return yield* fail("NO_ACTIVE_ORGANIZATION")
        const found = yield* repo.find(caller.organizationId, caller.userId)
        return Option.isSome(found) ? found.value : yield* fail("MEMBER_NOT_FOUND")
      })

    /** Add a user to an organization; `USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION` if they are one. */
    const add = Effect.fn("Members.add")(function*(organizationId: string, userId: string, role: MemberRole, actor: Actor) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const id = yield* ids.make("mem")
      const inserted = yield* sql.withTransaction(Effect.tap(
        repo.insert({ id, organizationId, userId, role, now }),
        (row) => (Option.isSome(row) ? EventOutbox.record({ type: "member.joined", organizationId, data: View.member(row.value) }) : Effect.void)
      )).pipe(Effect.catchTag("SqlError", Effect.die))
      if (Option.isNone(inserted)) return yield* fail("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION")
      const member = inserted.value
      yield* record(actor, "member.add", member, { role })
      yield* access.invalidate(organizationId, userId)
      return member
    })

    /** The member `idOrEmail` names in the organization, else `MEMBER_NOT_FOUND`. */
    const target = (organizationId: string, idOrEmail: string) =>
      Effect.flatMap(
        idOrEmail.includes("@") ? repo.findByEmail(organizationId, idOrEmail) : repo.findById(idOrEmail),
        (found) =>
          Option.isSome(found) && found.value.organizationId === organizationId
            ? Effect.succeed(found.value)
            : fail("MEMBER_NOT_FOUND")
      )

    /** End a membership and record `member.removed`, on the caller's transaction. */
    const removeAndForget = (member: MemberRow) =>
      Effect.all([
        repo.remove(member.id),
        organizationsRepo.clearActiveOrganization(member.organizationId, member.userId),
        EventOutbox.record({
          type: "member.removed",
          organizationId: member.organizationId,
          data: { id: member.id, organizationId: member.organizationId, userId: member.userId, role: member.role }
        })
      ], { discard: true })

    /** Remove a member (`members:manage`; owners only by owners; never the last owner). */
    const remove = Effect.fn("Members.remove")(function*(
      caller: Caller,
      input: { readonly memberIdOrEmail: string; readonly organizationId?: string | undefined }
    ) {
      const organization = yield* organizations.selectRequired(caller, { organizationId: input.organizationId })
      yield* requireIn(access, caller, organization.id, "members:manage", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER")
      const member = yield* target(organization.id, input.memberIdOrEmail)
      if (member.role === "owner" && !(yield* actsAsOwner(caller, organization.id))) {
        return yield* fail("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER")
      }
      yield* sql.withTransaction(Effect.gen(function*() {
        if (member.role === "owner" && (yield* lockedOwnerCount(organization.id)) <= 1) {
          return yield* fail("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER")
        }
        yield* removeAndForget(member)
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* record(actorOf(caller), "member.remove", member, { role: member.role })
      yield* access.invalidate(organization.id, member.userId)
      return member
    })

    /** Change a member's role (`members:manage`; owner changes by owners; never the last owner away). */
    const updateRole = Effect.fn("Members.updateRole")(function*(
      caller: Caller,
      input: { readonly memberId: string; readonly role: MemberRole; readonly organizationId?: string | undefined }
    ) {
      const organization = yield* organizations.selectRequired(caller, { organizationId: input.organizationId })
      yield* requireIn(access, caller, organization.id, "members:manage", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER")
      const member = yield* target(organization.id, input.memberId)
      const touchesOwner = member.role === "owner" || input.role === "owner"
      if (touchesOwner && !(yield* actsAsOwner(caller, organization.id))) {
        return yield* fail("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER")
      }
      const updated = yield* sql.withTransaction(Effect.gen(function*() {
        if (member.role === "owner" && input.role !== "owner" && (yield* lockedOwnerCount(organization.id)) <= 1) {
          return yield* fail("YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER")
        }
        return yield* Effect.flatMap(repo.updateRole(member.id, input.role), Option.match({
          onNone: () => fail("MEMBER_NOT_FOUND"),
          onSome: Effect.succeed
        }))
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* record(actorOf(caller), "member.role_change", updated, { from: member.role, to: updated.role })
      yield* access.invalidate(organization.id, member.userId)
      return updated
    })

    /** Leave an organization; the only owner cannot. */
    const leave: (caller: UserCaller, organizationId: string) => Effect.Effect<MemberRow, OrganizationError> =
      Effect.fn("Members.leave")(function*(caller: UserCaller, organizationId: string) {
        const found = yield* repo.find(organizationId, caller.userId)
        if (Option.isNone(found)) return yield* fail("ORGANIZATION_NOT_FOUND")
        const member = found.value
        yield* sql.withTransaction(Effect.gen(function*() {
          if (member.role === "owner" && (yield* lockedOwnerCount(organizationId)) <= 1) {
            return yield* fail("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER")
          }
          yield* removeAndForget(member)
        })).pipe(Effect.catchTag("SqlError", Effect.die))
        yield* record(actorOf(caller), "member.leave", member, { role: member.role })
        yield* access.invalidate(organizationId, caller.userId)
        return member
      })

    return { list, active, add, remove, updateRole, leave, actsAsOwner } as const
  }),
  dependencies: [MembersRepo.Default, OrganizationsRepo.Default, Organizations.Default]
}) {}
