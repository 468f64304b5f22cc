import { defineRoutes, type ResponseSpec } from "../Routes.js"
import { AuthErrorBody, AuthUnauthorizedBody, StatusResponse } from "./accounts.js"
import {
  PluginAcceptedInvitation,
  PluginCheckSlugBody,
  PluginCreateOrganizationBody,
  PluginFullOrganization,
  PluginGetInvitationQuery,
  PluginInvitation,
  PluginInvitationDetail,
  PluginInvitationIdBody,
  PluginInvitationList,
  PluginInviteMemberBody,
  PluginListInvitationsQuery,
  PluginListMembersQuery,
  PluginMember,
  PluginMemberList,
  PluginOrganization,
  PluginOrganizationIdBody,
  PluginOrganizationList,
  PluginOrganizationSelector,
  PluginOrganizationWithMembers,
  PluginRejectedInvitation,
  PluginRemovedMember,
  PluginRemoveMemberBody,
  PluginSetActiveBody,
  PluginUpdateMemberRoleBody,
  PluginUpdateOrganizationBody
} from "./organization-plugin.js"

const tags = ["identity: organizations"]
/** A person's own session: creating organizations, the active organization, invitations addressed to them. */
const base = { auth: "caller", callers: ["user"], tags } as const
/**
 * Reads and writes scoped to one organization: users by their membership, API keys in their own
 * organization by their own permissions (docs/decisions/0172-api-key-callers.md).
 */
const scoped = { ...base, callers: ["user", "apikey"] } as const

/** An error of the plugin's routes: better-auth's `{ code, message }` (`OrganizationErrorCodes`). */
const pluginError = (description: string): ResponseSpec => ({ description, schema: AuthErrorBody })
const errors = {
  400: pluginError("VALIDATION_ERROR, NO_ACTIVE_ORGANIZATION, or a rule of the route"),
  401: {
    description: "UNAUTHORIZED: no live session (nor, where one is accepted, a valid API key); the gateway's error envelope when it refuses the request first",
    schema: AuthUnauthorizedBody
  },
  403: pluginError("YOU_ARE_NOT_ALLOWED_TO_…: the caller lacks the permission"),
  404: pluginError("ORGANIZATION_NOT_FOUND, MEMBER_NOT_FOUND, INVITATION_NOT_FOUND (also another tenant's)")
}
const upstream = { 502: pluginError("UPSTREAM_UNAVAILABLE: the registry could not create the platform") }

/** The read routes better-auth serves with GET and the seed lists with POST: both are served. */
const list = {
  ...scoped, path: "/api/auth/organization/list", summary: "The caller's organizations (an API key's: its own)",
  description: "The organizations the calling user is a member of, in better-auth's shape; for an API key, the one organization it belongs to. Served with GET (better-auth's client) and POST (the specification).",
  responses: { 200: PluginOrganizationList, 401: errors[401] }
} as const
const full = {
  ...scoped, path: "/api/auth/organization/get-full-organization", permission: "org:read", tenant: "organization",
  summary: "An organization (default: the active one) with members and invitations, or null",
  description: "An organization with its members and pending invitations, by `organizationId` or `organizationSlug`, else the session's active one; null when none is active. Needs `org:read` in it; another tenant's organization answers 404. Served with GET and POST.",
  responses: { 200: PluginFullOrganization.nullable(), ...errors }
} as const
const members = {
  ...scoped, path: "/api/auth/organization/list-members", permission: "members:read", tenant: "organization",
  summary: "A page of an organization's members (default: the active one)",
  description: "A page of an organization's members, each with its user and role, by `organizationId` (default: the active one). Needs `members:read`. Served with GET and POST.",
  responses: { 200: PluginMemberList, ...errors }
} as const
const invitation = {
  ...base, path: "/api/auth/organization/get-invitation", summary: "An invitation addressed to the caller",
  description: "One invitation addressed to the calling user's email, with its organization and inviter, for an invitation page; someone else's answers 404. Served with GET and POST.",
  responses: { 200: PluginInvitationDetail, ...errors }
} as const
const invitations = {
  ...scoped, path: "/api/auth/organization/list-invitations", permission: "members:read", tenant: "organization",
  summary: "An organization's invitations (default: the active one)",
  description: "An organization's invitations with their status and expiry, by `organizationId` (default: the active one). Needs `members:read`. Served with GET and POST.",
  responses: { 200: PluginInvitationList, ...errors }
} as const

/**
 * The better-auth organization plugin's routes (`/api/auth/organization/*`), answering that library's
 * shapes and `{ code, message }` errors: for signed-in users (a session by bearer or cookie), and —
 * on the routes about one organization — for API keys in their own organization. Every `POST` here
 * declares `changesTenant` (the gateway drops the caller's cached answers after it), the reads
 * served by `POST` too: the gateway treated the whole prefix so before the flag existed (0171).
 */
export const OrganizationPluginRoutes = defineRoutes({
  createOrganization: {
    ...base, method: "POST", path: "/api/auth/organization/create", summary: "Create an organization (and its platform); the caller owns it",
    description: "better-auth's organization/create: an organization with `name` and `slug`, the caller its owner, set up as org-setup does (its registry platform on tier `free`, the default role mappings), and made the session's active organization. A slug taken is 409; an owner of a suspended platform gets 451.",
    changesTenant: true,
    request: { body: PluginCreateOrganizationBody },
    responses: {
      200: PluginOrganizationWithMembers, 400: errors[400], 401: errors[401],
      409: pluginError("ORGANIZATION_ALREADY_EXISTS: the slug is taken"),
      451: pluginError("PLATFORM_SUSPENDED: the caller owns a suspended platform, whose owners create no organization"), ...upstream
    }
  },
  listOrganizations: { ...list, method: "GET" },
  listOrganizationsPost: { ...list, method: "POST", changesTenant: true },
  setActiveOrganization: {
    ...base, method: "POST", path: "/api/auth/organization/set-active", summary: "Choose the session's active organization (null clears it)",
    description: "Sets the organization the session acts in, so its platform becomes the session's platform; `organizationId: null` clears it. An organization the caller is not a member of answers 404. The gateway forgets its cached answer for the session at once.",
    changesTenant: true,
    request: { body: PluginSetActiveBody },
    responses: { 200: PluginOrganization.nullable(), 400: errors[400], 401: errors[401], 404: errors[404] }
  },
  getFullOrganization: { ...full, method: "GET", request: { query: PluginOrganizationSelector } },
  getFullOrganizationPost: { ...full, method: "POST", changesTenant: true, request: { body: PluginOrganizationSelector.optional() } },
  checkOrganizationSlug: {
    ...base, method: "POST", path: "/api/auth/organization/check-slug", summary: "Whether a slug is free",
    description: "Whether `slug` is free for a new organization: { status: true } when it is, 400 ORGANIZATION_SLUG_ALREADY_TAKEN when not.",
    changesTenant: true,
    request: { body: PluginCheckSlugBody },
    responses: { 200: StatusResponse, 400: pluginError("VALIDATION_ERROR, ORGANIZATION_SLUG_ALREADY_TAKEN"), 401: errors[401] }
  },
  updateOrganization: {
    ...scoped, method: "POST", path: "/api/auth/organization/update", summary: "Rename, re-slug or change an organization's logo and metadata",
    description: "Changes an organization's name, slug, logo or metadata, by `organizationId` (default: the active one). Needs `org:update`; a slug another organization holds is refused.",
    changesTenant: true,
    permission: "org:update", tenant: "organization",
    request: { body: PluginUpdateOrganizationBody },
    responses: { 200: PluginOrganization, ...errors }
  },
  deleteOrganization: {
    ...scoped, method: "POST", path: "/api/auth/organization/delete", summary: "Delete an organization (never the operator organization)",
    description: "Deletes an organization with its memberships, invitations, role mappings and grants; the operator organization is never deleted. Needs `org:delete` (owners only by default).",
    changesTenant: true,
    permission: "org:delete", tenant: "organization",
    request: { body: PluginOrganizationIdBody },
    responses: {
      200: PluginOrganization, ...errors,
      451: pluginError("PLATFORM_SUSPENDED: its platform is suspended (operators and the static key may delete it)")
    }
  },
  listMembers: { ...members, method: "GET", request: { query: PluginListMembersQuery } },
  listMembersPost: { ...members, method: "POST", changesTenant: true, request: { body: PluginListMembersQuery.optional() } },
  getActiveMember: {
    ...base, method: "GET", path: "/api/auth/organization/get-active-member", summary: "The caller's membership in the active organization",
    description: "The caller's own membership in the session's active organization: member id, role and user. Without an active organization: 400 NO_ACTIVE_ORGANIZATION.",
    responses: { 200: PluginMember, ...errors }
  },
  removeMember: {
    ...scoped, method: "POST", path: "/api/auth/organization/remove-member", summary: "Remove a member by id or email (never the only owner)",
    description: "Removes a member from an organization by member id or email; the only owner is never removed. Needs `members:manage`; only an owner removes another owner.",
    changesTenant: true,
    permission: "members:manage", tenant: "organization",
    request: { body: PluginRemoveMemberBody },
    responses: { 200: PluginRemovedMember, ...errors }
  },
  updateMemberRole: {
    ...scoped, method: "POST", path: "/api/auth/organization/update-member-role", summary: "Change a member's role (owner changes by owners)",
    description: "Sets a member's role (`owner`, `admin` or `member`). Needs `members:manage`; only owners make or unmake owners, and the last owner keeps the role.",
    changesTenant: true,
    permission: "members:manage", tenant: "organization",
    request: { body: PluginUpdateMemberRoleBody },
    responses: { 200: PluginMember, ...errors }
  },
  leaveOrganization: {
    ...base, method: "POST", path: "/api/auth/organization/leave", summary: "Leave an organization (never as its only owner)",
    description: "The caller leaves an organization; its only owner cannot (transfer ownership first). Sessions acting in it lose it as their active organization.",
    changesTenant: true,
    request: { body: PluginOrganizationIdBody },
    responses: { 200: PluginMember, ...errors }
  },
  inviteMember: {
    ...scoped, method: "POST", path: "/api/auth/organization/invite-member", summary: "Invite an email to an organization (only owners invite owners)",
    description: "Invites an email address to an organization with a role and mails the link; the invitation lives 48 hours. Needs `members:manage`; only owners invite owners.",
    changesTenant: true,
    permission: "members:manage", tenant: "organization",
    request: { body: PluginInviteMemberBody },
    responses: { 200: PluginInvitation, ...errors }
  },
  acceptInvitation: {
    ...base, method: "POST", path: "/api/auth/organization/accept-invitation", summary: "Accept an invitation addressed to the caller",
    description: "The invited user accepts: it becomes a member with the invited role, and the organization becomes the session's active one. Only the user whose email the invitation names may accept; an expired or answered invitation is refused.",
    changesTenant: true,
    request: { body: PluginInvitationIdBody },
    responses: { 200: PluginAcceptedInvitation, ...errors }
  },
  rejectInvitation: {
    ...base, method: "POST", path: "/api/auth/organization/reject-invitation", summary: "Decline an invitation addressed to the caller",
    description: "The invited user declines an invitation addressed to its email; the invitation is marked rejected and its link stops working.",
    changesTenant: true,
    request: { body: PluginInvitationIdBody },
    responses: { 200: PluginRejectedInvitation, ...errors }
  },
  cancelInvitation: {
    ...scoped, method: "POST", path: "/api/auth/organization/cancel-invitation", summary: "Revoke a pending invitation",
    description: "Revokes a pending invitation, so its link no longer works. Needs `members:manage` in the invitation's organization.",
    changesTenant: true,
    permission: "members:manage", tenant: "organization",
    request: { body: PluginInvitationIdBody },
    responses: { 200: PluginInvitation, ...errors }
  },
  getInvitation: { ...invitation, method: "GET", request: { query: PluginGetInvitationQuery } },
  getInvitationPost: { ...invitation, method: "POST", changesTenant: true, request: { body: PluginGetInvitationQuery } },
  listInvitations: { ...invitations, method: "GET", request: { query: PluginListInvitationsQuery } },
  listInvitationsPost: { ...invitations, method: "POST", changesTenant: true, request: { body: PluginListInvitationsQuery.optional() } }
})
