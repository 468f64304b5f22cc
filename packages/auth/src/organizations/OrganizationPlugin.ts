import { Iam } from "@core/contracts"
import { type ApiKeyCaller, Route, type UserCaller } from "@core/kernel"
import { Effect, Option } from "effect"
import { json } from "../accounts/BetterAuth.js"
import { Invitations } from "./Invitations.js"
import { Members } from "./Members.js"
import { MEMBERS_LIMIT, Organizations } from "./Organizations.js"
import * as View from "./OrganizationViews.js"

const Routes = Iam.OrganizationPluginRoutes

type ScopedCaller = UserCaller | ApiKeyCaller

/**
 * Every plugin answer concerns one caller, so none is cached (`json` of `BetterAuth` adds
 * `Cache-Control: no-store`, as better-auth does).
 */
const listOrganizations = (caller: ScopedCaller) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    return json((yield* organizations.listMine(caller)).map(View.pluginOrganization))
  })

/** The organization with its members and, for who may list them, its invitations; `null` without one. */
const fullOrganization = (caller: ScopedCaller, selector: Iam.PluginOrganizationSelector) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const invitations = yield* Invitations
    const found = yield* organizations.get(caller, selector)
    if (Option.isNone(found)) return json(null)
    const { members } = yield* organizations.withMembers(found.value)
    const pending = yield* invitations.list(caller, found.value.id).pipe(
      Effect.catchTag("OrganizationError", () => Effect.succeed([]))
    )
    return json({
      ...View.pluginOrganization(found.value),
      members: members.slice(0, selector.membersLimit ?? MEMBERS_LIMIT).map((m) => View.pluginMember(m)),
      invitations: pending.map(View.pluginInvitation)
    })
  })

const listMembers = (caller: ScopedCaller, query: Iam.PluginListMembersQuery) =>
  Effect.gen(function*() {
    const members = yield* Members
    const page = yield* members.list(caller, query, query)
    return json({ members: page.members.map((m) => View.pluginMember(m)), total: page.total })
  })

const getInvitation = (caller: UserCaller, id: string) =>
  Effect.gen(function*() {
    const invitations = yield* Invitations
    const detail = yield* invitations.get(caller, id)
    return json({
      ...View.pluginInvitation(detail.invitation),
      organizationName: detail.organization.name,
      organizationSlug: detail.organization.slug,
      inviterEmail: detail.inviterEmail
    })
  })

const listInvitations = (caller: ScopedCaller, selector: { readonly organizationId?: string | undefined }) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const invitations = yield* Invitations
    const organization = yield* organizations.selectRequired(caller, selector)
    return json((yield* invitations.list(caller, organization.id)).map(View.pluginInvitation))
  })

const organizationHandlers = [
  Route.handle(Routes.createOrganization, ({ caller, body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const result = yield* organizations.create(caller, body)
      return json({
        ...View.pluginOrganization(result.organization),
        members: result.owner === null ? [] : [View.pluginMember(result.owner, false)]
      })
    })),
  Route.handle(Routes.listOrganizations, ({ caller }) => listOrganizations(caller)),
  Route.handle(Routes.listOrganizationsPost, ({ caller }) => listOrganizations(caller)),
  Route.handle(Routes.setActiveOrganization, ({ caller, body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const active = yield* organizations.setActive(caller, body)
      return json(active === null ? null : View.pluginOrganization(active))
    })),
  Route.handle(Routes.getFullOrganization, ({ caller, query }) => fullOrganization(caller, query)),
  Route.handle(Routes.getFullOrganizationPost, ({ caller, body }) => fullOrganization(caller, body ?? {})),
  Route.handle(Routes.checkOrganizationSlug, ({ body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      yield* organizations.checkSlug(body.slug)
      return json({ status: true })
    })),
  Route.handle(Routes.updateOrganization, ({ caller, body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      return json(View.pluginOrganization(yield* organizations.update(caller, { organizationId: body.organizationId }, body.data)))
    })),
  Route.handle(Routes.deleteOrganization, ({ caller, body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      return json(View.pluginOrganization(yield* organizations.remove(caller, body.organizationId)))
    }))
]

const memberHandlers = [
  Route.handle(Routes.listMembers, ({ caller, query }) => listMembers(caller, query)),
  Route.handle(Routes.listMembersPost, ({ caller, body }) => listMembers(caller, body ?? {})),
  Route.handle(Routes.getActiveMember, ({ caller }) =>
    Effect.gen(function*() {
      const members = yield* Members
      return json(View.pluginMember(yield* members.active(caller)))
    })),
  Route.handle(Routes.removeMember, ({ caller, body }) =>
    Effect.gen(function*() {
      const members = yield* Members
      return json({ member: View.pluginMember(yield* members.remove(caller, body), false) })
    })),
  Route.handle(Routes.updateMemberRole, ({ caller, body }) =>
    Effect.gen(function*() {
      const members = yield* Members
      return json(View.pluginMember(yield* members.updateRole(caller, body)))
    })),
  Route.handle(Routes.leaveOrganization, ({ caller, body }) =>
    Effect.gen(function*() {
      const members = yield* Members
      return json(View.pluginMember(yield* members.leave(caller, body.organizationId)))
    }))
]

const invitationHandlers = [
  Route.handle(Routes.inviteMember, ({ caller, body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const invitations = yield* Invitations
      const organization = yield* organizations.selectRequired(caller, body)
      const created = yield* invitations.create(caller, {
        organizationId: organization.id,
        email: body.email,
        role: body.role,
        resend: body.resend
      })
      return json(View.pluginInvitation(created))
    })),
  Route.handle(Routes.acceptInvitation, ({ caller, body }) =>
    Effect.gen(function*() {
      const invitations = yield* Invitations
      const accepted = yield* invitations.accept(caller, body.invitationId)
      return json({ invitation: View.pluginInvitation(accepted.invitation), member: View.pluginMember(accepted.member, false) })
    })),
  Route.handle(Routes.rejectInvitation, ({ caller, body }) =>
    Effect.gen(function*() {
      const invitations = yield* Invitations
      return json({ invitation: View.pluginInvitation(yield* invitations.reject(caller, body.invitationId)), member: null })
    })),
  Route.handle(Routes.cancelInvitation, ({ caller, body }) =>
    Effect.gen(function*() {
      const invitations = yield* Invitations
      return json(View.pluginInvitation(yield* invitations.cancel(caller, body.invitationId)))
    })),
  Route.handle(Routes.getInvitation, ({ caller, query }) => getInvitation(caller, query.id)),
  Route.handle(Routes.getInvitationPost, ({ caller, body }) => getInvitation(caller, body.id)),
  Route.handle(Routes.listInvitations, ({ caller, query }) => listInvitations(caller, query)),
  Route.handle(Routes.listInvitationsPost, ({ caller, body }) => listInvitations(caller, body ?? {}))
]

/**
 * The better-auth organization plugin's routes (`/api/auth/organization/*`), one handler per route
 * of `Iam.OrganizationPluginRoutes`; served with better-auth's `{ code, message }` error renderer.
 */
export const OrganizationPluginHandlers = [...organizationHandlers, ...memberHandlers, ...invitationHandlers]
