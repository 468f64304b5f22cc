import { z } from "zod"
import { BoundedId, EMAIL_MAX_LENGTH, EmailAddress, FreeText, Metadata, SLUG_MAX_LENGTH } from "../Bounds.js"
import { MemberUser, OrganizationName, OrganizationRole, OrganizationSlug } from "./organizations.js"

/**
 * The better-auth organization plugin's routes (`/api/auth/organization/*`): its request and answer
 * shapes, with the seed's name and slug rules. Timestamps are ISO 8601 strings (JSON dates).
 */

/** Error codes of the organization plugin, as better-auth names them; bodies are `{ code, message }`. */
export const OrganizationErrorCodes = {
  ORGANIZATION_ALREADY_EXISTS: "Organization already exists",
  ORGANIZATION_SLUG_ALREADY_TAKEN: "Organization slug already taken",
  ORGANIZATION_NOT_FOUND: "Organization not found",
  NO_ACTIVE_ORGANIZATION: "No active organization",
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: "User is already a member of this organization",
  MEMBER_NOT_FOUND: "Member not found",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: "You are not allowed to update this organization",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: "You are not allowed to delete this organization",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: "You cannot leave the organization as the only owner",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: "You cannot leave the organization without an owner",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: "You are not allowed to delete this member",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: "You are not allowed to update this member",
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: "You are not allowed to invite users to this organization",
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: "You are not allowed to invite a user with this role",
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: "User is already invited to this organization",
  INVITATION_NOT_FOUND: "Invitation not found",
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: "You are not the recipient of the invitation",
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: "You are not allowed to cancel this invitation",
  YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS: "You are not allowed to list invitations for this organization",
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: "You are not a member of this organization",
  YOU_ARE_NOT_ALLOWED_TO_READ_THIS_ORGANIZATION: "You are not allowed to read this organization",
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: "Inviter is no longer a member of the organization"
} as const
export type OrganizationErrorCode = keyof typeof OrganizationErrorCodes

/** An organization as better-auth answers it. */
export const PluginOrganization = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  logo: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string()
})
export type PluginOrganization = z.infer<typeof PluginOrganization>

/** A membership as better-auth answers it; `user` is present where better-auth joins it. */
export const PluginMember = z.object({
  id: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  role: OrganizationRole,
  createdAt: z.string(),
  user: MemberUser.optional()
})
export type PluginMember = z.infer<typeof PluginMember>

/** An invitation as better-auth answers it (`expiresAt` and `createdAt` as ISO strings). */
export const PluginInvitation = z.object({
  id: z.string(),
  organizationId: z.string(),
  email: z.string(),
  role: OrganizationRole,
  status: z.string(),
  inviterId: z.string(),
  expiresAt: z.string(),
  createdAt: z.string()
})
export type PluginInvitation = z.infer<typeof PluginInvitation>

/** `create` answers the organization with its first member (the creator, `owner`). */
export const PluginOrganizationWithMembers = PluginOrganization.extend({ members: z.array(PluginMember) })
export type PluginOrganizationWithMembers = z.infer<typeof PluginOrganizationWithMembers>

/** `get-full-organization`: the organization with members and (for who may see them) invitations. */
export const PluginFullOrganization = PluginOrganization.extend({
  members: z.array(PluginMember),
  invitations: z.array(PluginInvitation)
})
export type PluginFullOrganization = z.infer<typeof PluginFullOrganization>

/** `get-invitation` adds the organization's name and slug and the inviter's email. */
export const PluginInvitationDetail = PluginInvitation.extend({
  organizationName: z.string(),
  organizationSlug: z.string(),
  inviterEmail: z.string()
})
export type PluginInvitationDetail = z.infer<typeof PluginInvitationDetail>

const optionalId = BoundedId.optional()
const optionalSlug = z.string().min(1).max(SLUG_MAX_LENGTH).optional()

/** `POST /api/auth/organization/create`. */
export const PluginCreateOrganizationBody = z.object({
  name: OrganizationName,
  slug: OrganizationSlug,
  logo: FreeText.nullish(),
  metadata: Metadata.optional(),
  keepCurrentActiveOrganization: z.boolean().optional()
})
export type PluginCreateOrganizationBody = z.infer<typeof PluginCreateOrganizationBody>

/** `POST /api/auth/organization/update`. */
export const PluginUpdateOrganizationBody = z.object({
  data: z.object({
    name: OrganizationName.optional(),
    slug: OrganizationSlug.optional(),
    logo: FreeText.nullish(),
    metadata: Metadata.optional()
  }),
  organizationId: optionalId
})
export type PluginUpdateOrganizationBody = z.infer<typeof PluginUpdateOrganizationBody>

/** `POST /api/auth/organization/delete` and `leave`. */
export const PluginOrganizationIdBody = z.object({ organizationId: BoundedId })
export type PluginOrganizationIdBody = z.infer<typeof PluginOrganizationIdBody>

/** `POST /api/auth/organization/check-slug`. */
export const PluginCheckSlugBody = z.object({ slug: OrganizationSlug })

/** `POST /api/auth/organization/set-active`: `organizationId: null` clears the active organization. */
export const PluginSetActiveBody = z.object({
  organizationId: BoundedId.nullable().optional(),
  organizationSlug: optionalSlug
})
export type PluginSetActiveBody = z.infer<typeof PluginSetActiveBody>

/** Which organization a read route is about (query on GET, body on POST); default the active one. */
export const PluginOrganizationSelector = z.object({
  organizationId: optionalId,
  organizationSlug: optionalSlug,
  membersLimit: z.coerce.number().int().min(1).max(1000).optional()
})
export type PluginOrganizationSelector = z.infer<typeof PluginOrganizationSelector>

/** `list-members` query or body. */
export const PluginListMembersQuery = z.object({
  organizationId: optionalId,
  organizationSlug: optionalSlug,
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional()
})
export type PluginListMembersQuery = z.infer<typeof PluginListMembersQuery>

/** `list-members` answer. */
export const PluginMemberList = z.object({ members: z.array(PluginMember), total: z.number() })
export type PluginMemberList = z.infer<typeof PluginMemberList>

/** `accept-invitation` answer: the accepted invitation and the new membership. */
export const PluginAcceptedInvitation = z.object({ invitation: PluginInvitation, member: PluginMember })
export type PluginAcceptedInvitation = z.infer<typeof PluginAcceptedInvitation>

/** `reject-invitation` answer (`member` is always `null`). */
export const PluginRejectedInvitation = z.object({ invitation: PluginInvitation, member: z.null() })
export type PluginRejectedInvitation = z.infer<typeof PluginRejectedInvitation>

/** `remove-member` answer. */
export const PluginRemovedMember = z.object({ member: PluginMember })
export type PluginRemovedMember = z.infer<typeof PluginRemovedMember>

/** `POST /api/auth/organization/invite-member`. */
export const PluginInviteMemberBody = z.object({
  email: EmailAddress,
  role: OrganizationRole,
  organizationId: optionalId,
  resend: z.boolean().optional()
})
export type PluginInviteMemberBody = z.infer<typeof PluginInviteMemberBody>

/** `accept-invitation`, `reject-invitation`, `cancel-invitation`. */
export const PluginInvitationIdBody = z.object({ invitationId: BoundedId })

/** `get-invitation` query. */
export const PluginGetInvitationQuery = z.object({ id: BoundedId })

/** `list-invitations` query. */
export const PluginListInvitationsQuery = z.object({ organizationId: optionalId })

/** `POST /api/auth/organization/remove-member`. */
export const PluginRemoveMemberBody = z.object({ memberIdOrEmail: z.string().min(1).max(EMAIL_MAX_LENGTH), organizationId: optionalId })
export type PluginRemoveMemberBody = z.infer<typeof PluginRemoveMemberBody>

/** `POST /api/auth/organization/update-member-role`. */
export const PluginUpdateMemberRoleBody = z.object({
  memberId: BoundedId,
  role: OrganizationRole,
  organizationId: optionalId
})
export type PluginUpdateMemberRoleBody = z.infer<typeof PluginUpdateMemberRoleBody>

/** `list` answer: the caller's organizations. */
export const PluginOrganizationList = z.array(PluginOrganization)
export type PluginOrganizationList = z.infer<typeof PluginOrganizationList>

/** `list-invitations` answer: the organization's invitations. */
export const PluginInvitationList = z.array(PluginInvitation)
export type PluginInvitationList = z.infer<typeof PluginInvitationList>
