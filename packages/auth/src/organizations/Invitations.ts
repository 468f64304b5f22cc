import { Cursor, EventOutbox, Ids, type InvalidState, type ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import { AuthUrls } from "../accounts/AuthUrls.js"
import type { Caller, UserCaller } from "@core/kernel"
import { Access } from "../authorization/Access.js"
import { creatorUserOf } from "../authorization/ApiKeys.js"
import { ApiKeysRepo } from "../authorization/ApiKeysRepo.js"
import { type InvitationRow, InvitationsRepo } from "./InvitationsRepo.js"
import * as View from "./OrganizationViews.js"
import { statusAt } from "./OrganizationViews.js"
import { deliver, Mailer } from "../mail/Mailer.js"
import { Members } from "./Members.js"
import { type MemberRole, type MemberRow, MembersRepo } from "./MembersRepo.js"
import { fail, type OrganizationError, requireIn } from "./OrganizationErrors.js"
import { type OrganizationRow, OrganizationsRepo } from "./OrganizationsRepo.js"
import { invalidBody, invitationNotPending } from "../Errors.js"

/** How long an invitation stays valid: 48 hours, better-auth's default. */
export const INVITATION_TTL_MILLIS = 48 * 60 * 60 * 1000

/** A new invitation. `inviterId` lets the service key or an operator invite on a member's behalf. */
export interface InviteInput {
  readonly organizationId: string
  readonly email: string
  readonly role: MemberRole
  readonly inviterId?: string | undefined
  /** Renew a pending invitation instead of refusing a second one. */
  readonly resend?: boolean | undefined
}

/** An invitation as its recipient sees it. */
export interface InvitationDetail {
  readonly invitation: InvitationRow
  readonly organization: OrganizationRow
  readonly inviterEmail: string
}

/** The status an invitation reads as at `now` (its view's). */
export { statusAt }

const InvitationCursor = Cursor.CreatedAtId

/** Invitations: create (and mail), list, read, accept, reject, cancel. */
export class Invitations extends Effect.Service<Invitations>()("@core/auth/Invitations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* InvitationsRepo
    const membersRepo = yield* MembersRepo
    const members = yield* Members
    const organizations = yield* OrganizationsRepo
    const access = yield* Access
    const audit = yield* AuditLog
    const mailer = yield* Mailer
    const urls = yield* AuthUrls
    const keys = yield* ApiKeysRepo
    const ids = yield* Ids.Ids

    const now = Clock.currentTimeMillis
    const organizationOf = (id: string) =>
      Effect.flatMap(organizations.findById(id), Option.match({
        onNone: () => fail("ORGANIZATION_NOT_FOUND"),
        onSome: Effect.succeed
      }))

    const record = (caller: Caller, action: string, invitation: InvitationRow, metadata: Record<string, unknown> = {}) =>
      audit.record({
        ...actorOf(caller),
        action,
        organizationId: invitation.organizationId,
        targetType: "invitation",
        targetId: invitation.id,
        metadata: { role: invitation.role, ...metadata }
      })

    const inviterRequired = (message: string) =>
      invalidBody("inviterId", message)

    /** The user who created an API key, when a user did (a key made by the service key or a key has none). */
    const creatorOf = (keyId: string) => Effect.map(keys.find(keyId), (key) => (key === null ? undefined : creatorUserOf(key)))

    /**
     * Who invites: a member inviting as themselves; the service key and operators on behalf of the
     * member named by `inviterId`; an API key on behalf of that member or, by default, of the user who
     * created it (docs/decisions/0172-api-key-callers.md). Anyone invited for must be a member.
     */
    const inviterOf = Effect.fn("Invitations.inviterOf")(function*(caller: Caller, input: InviteInput) {
      const onBehalf = yield* access.isPrivileged(caller)
      if (caller.kind === "user" && !onBehalf) {
        if (input.inviterId !== undefined && input.inviterId !== caller.userId) return yield* inviterRequired("Must be your own user id")
        return caller.userId
      }
      const inviterId = input.inviterId ??
        (caller.kind === "user" ? caller.userId : caller.kind === "apikey" ? yield* creatorOf(caller.keyId) : undefined)
      if (inviterId === undefined) {
        return yield* inviterRequired(
          caller.kind === "apikey" ? "Required when the API key was not created by a user" : "Required when the service key invites"
        )
      }
      if (Option.isNone(yield* membersRepo.find(input.organizationId, inviterId))) {
        return yield* fail("INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION")
      }
      return inviterId
    })

    const mail = (invitation: InvitationRow, organization: OrganizationRow) => Effect.flatMap(urls.currentBase, (at) => {
      const link = new URL(`/accept-invitation/${invitation.id}`, at).toString()
      return deliver(mailer, {
        to: invitation.email,
        subject: `You are invited to join ${organization.name}`,
        text: `You have been invited to join ${organization.name} on Core as ${invitation.role}.\n\n` +
          `Accept the invitation: ${link}\n\nThe invitation expires in 48 hours. If you did not expect it, ignore this mail.\n`,
        link
      })
    })

    /** Invite an email to an organization (`members:manage`; only owners invite owners). */
    const create: (caller: Caller, input: InviteInput) => Effect.Effect<InvitationRow, OrganizationError | ValidationError> =
      Effect.fn("Invitations.create")(function*(caller: Caller, input: InviteInput) {
        const organization = yield* organizationOf(input.organizationId)
        yield* requireIn(access, caller, organization.id, "members:manage", "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION")
        const inviterId = yield* inviterOf(caller, input)
        if (input.role === "owner" && !(yield* members.actsAsOwner(caller, organization.id))) {
          return yield* fail("YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE")
        }
        const email = input.email.toLowerCase()
        if (Option.isSome(yield* membersRepo.findByEmail(organization.id, email))) {
          return yield* fail("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION")
        }
        const at = yield* now
        const expiresAt = new Date(at + INVITATION_TTL_MILLIS)
        yield* repo.expireStale(organization.id, email, new Date(at))
        const id = yield* ids.make("inv")
        // The invitation and `member.invited` in one transaction (a resend renews it and tells nothing new).
        const inserted = yield* sql.withTransaction(Effect.tap(
          repo.insert({ id, organizationId: organization.id, email, role: input.role, inviterId, expiresAt, createdAt: new Date(at) }),
          (row) =>
            Option.isSome(row)
              ? EventOutbox.record({ type: "member.invited", organizationId: organization.id, data: View.invitation(row.value, at) })
              : Effect.void
        )).pipe(Effect.catchTag("SqlError", Effect.die))
        if (Option.isSome(inserted)) {
          yield* mail(inserted.value, organization)
          yield* record(caller, "invitation.create", inserted.value, { email })
          return inserted.value
        }
        // One is pending already (perhaps inserted by a parallel call a moment ago): the database's
        // one-pending index refused a second (docs/decisions/0195-one-pending-invitation.md).
        if (input.resend !== true) return yield* fail("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION")
        const pending = yield* repo.findPending(organization.id, email, new Date(at))
        if (Option.isNone(pending)) return yield* fail("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION")
        const invitation = Option.getOrElse(yield* repo.extend(pending.value.id, expiresAt), () => pending.value)
        yield* mail(invitation, organization)
        yield* record(caller, "invitation.resend", invitation, { email })
        return invitation
      })

    /** Every invitation of an organization (`members:read`). */
    const list: (caller: Caller, organizationId: string) => Effect.Effect<ReadonlyArray<InvitationRow>, OrganizationError> =
      Effect.fn("Invitations.list")(function*(caller: Caller, organizationId: string) {
        yield* organizationOf(organizationId)
        yield* requireIn(access, caller, organizationId, "members:read", "YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS")
        return yield* repo.listByOrganization(organizationId)
      })

    /** A page of invitations, oldest first; `cursor` is empty on the last page. */
    const page: (
      caller: Caller,
      organizationId: string,
      query: { readonly cursor?: string | undefined; readonly limit: number }
    ) => Effect.Effect<{ readonly data: ReadonlyArray<InvitationRow>; readonly cursor: string }, OrganizationError | ValidationError> =
      Effect.fn("Invitations.page")(function*(
        caller: Caller,
        organizationId: string,
        query: { readonly cursor?: string | undefined; readonly limit: number }
      ) {
        const after = yield* Cursor.decodeOptional(InvitationCursor, query.cursor)
        yield* organizationOf(organizationId)
        yield* requireIn(access, caller, organizationId, "members:read", "YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS")
        const rows = yield* repo.page(
          organizationId,
          after === undefined ? null : { createdAt: new Date(after.createdAt), id: after.id },
          query.limit + 1
        )
        const { data, nextCursor } = Cursor.page(rows, query.limit, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }))
        return { data, cursor: nextCursor ?? "" }
      })

    /**
     * A pending, unexpired invitation addressed to the caller. One addressed to someone else reads
     * as `INVITATION_NOT_FOUND`, like an id that names nothing: the answer never tells that it
     * exists (docs/decisions/0562-invitations-of-others-not-found.md).
     */
    const addressedTo = (caller: UserCaller, invitationId: string) =>
      Effect.gen(function*() {
        const found = yield* repo.findById(invitationId)
        if (
          Option.isNone(found) || statusAt(found.value, yield* now) !== "pending" ||
          found.value.email.toLowerCase() !== caller.email.toLowerCase()
        ) return yield* fail("INVITATION_NOT_FOUND")
        return found.value
      })

    /** The invitation with its organization and inviter, for its recipient. */
    const get: (caller: UserCaller, invitationId: string) => Effect.Effect<InvitationDetail, OrganizationError> =
      Effect.fn("Invitations.get")(function*(caller: UserCaller, invitationId: string) {
        const invitation = yield* addressedTo(caller, invitationId)
        const organization = yield* organizationOf(invitation.organizationId)
        const inviter = yield* membersRepo.find(invitation.organizationId, invitation.inviterId)
        if (Option.isNone(inviter)) return yield* fail("INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION")
        return { invitation, organization, inviterEmail: inviter.value.user.email }
      })

    /** Accept: the caller joins with the invited role, and the organization becomes active. */
    const accept: (
      caller: UserCaller,
      invitationId: string
    ) => Effect.Effect<{ readonly invitation: InvitationRow; readonly member: MemberRow }, OrganizationError> =
      Effect.fn("Invitations.accept")(function*(caller: UserCaller, invitationId: string) {
        yield* addressedTo(caller, invitationId)
        const at = new Date(yield* now)
        const accepted = yield* sql.withTransaction(Effect.gen(function*() {
          const invitation = yield* Effect.flatMap(repo.transition(invitationId, "accepted"), Option.match({
            onNone: () => fail("INVITATION_NOT_FOUND"),
            onSome: Effect.succeed
          }))
          const member = yield* membersRepo.insert({
            id: yield* ids.make("mem"),
            organizationId: invitation.organizationId,
            userId: caller.userId,
            role: invitation.role,
            now: at
          })
          if (Option.isNone(member)) return yield* fail("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION")
          yield* organizations.setActiveOrganization(caller.sessionId, invitation.organizationId, at)
          yield* EventOutbox.record({ type: "member.joined", organizationId: invitation.organizationId, data: View.member(member.value) })
          return { invitation, member: member.value }
        })).pipe(Effect.catchTag("SqlError", Effect.die))
        yield* record(caller, "invitation.accept", accepted.invitation)
        yield* audit.record({
          ...actorOf(caller),
          action: "member.add",
          organizationId: accepted.member.organizationId,
          targetType: "user",
          targetId: caller.userId,
          metadata: { memberId: accepted.member.id, role: accepted.member.role, invitationId }
        })
        yield* access.invalidate(accepted.member.organizationId, caller.userId)
        return accepted
      })

    /** Reject an invitation addressed to the caller. */
    const reject: (caller: UserCaller, invitationId: string) => Effect.Effect<InvitationRow, OrganizationError> =
      Effect.fn("Invitations.reject")(function*(caller: UserCaller, invitationId: string) {
        yield* addressedTo(caller, invitationId)
        const rejected = yield* Effect.flatMap(repo.transition(invitationId, "rejected"), Option.match({
          onNone: () => fail("INVITATION_NOT_FOUND"),
          onSome: Effect.succeed
        }))
        yield* record(caller, "invitation.reject", rejected)
        return rejected
      })

    /**
     * Cancel (revoke) a pending invitation (`members:manage`). Another organization's invitation
     * reads as `INVITATION_NOT_FOUND`; one no longer pending fails with `InvalidState`.
     */
    const cancel: (
      caller: Caller,
      invitationId: string,
      organizationId?: string
    ) => Effect.Effect<InvitationRow, OrganizationError | InvalidState> =
      Effect.fn("Invitations.cancel")(function*(caller: Caller, invitationId: string, organizationId?: string) {
        const found = yield* repo.findById(invitationId)
        if (Option.isNone(found) || (organizationId !== undefined && found.value.organizationId !== organizationId)) {
          return yield* fail("INVITATION_NOT_FOUND")
        }
        yield* requireIn(
          access,
          caller,
          found.value.organizationId,
          "members:manage",
          "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION",
          "INVITATION_NOT_FOUND"
        )
        const from = statusAt(found.value, yield* now)
        const canceled = from === "pending" ? yield* repo.transition(invitationId, "canceled") : Option.none()
        if (Option.isNone(canceled)) {
          return yield* invitationNotPending(from)
        }
        yield* record(caller, "invitation.cancel", canceled.value)
        return canceled.value
      })

    return { create, list, page, get, accept, reject, cancel } as const
  }),
  dependencies: [InvitationsRepo.Default, MembersRepo.Default, Members.Default, OrganizationsRepo.Default, ApiKeysRepo.Default]
}) {}
