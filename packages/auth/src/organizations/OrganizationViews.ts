import type { Iam } from "@core/contracts"
import type { InvitationRow, InvitationState } from "./InvitationsRepo.js"
import type { MemberRow } from "./MembersRepo.js"
import type { OrganizationWithMembers } from "./Organizations.js"
import type { OrganizationRow } from "./OrganizationsRepo.js"

const userView = (member: MemberRow): Iam.MemberUser => ({
  id: member.user.id,
  name: member.user.name,
  email: member.user.email,
  image: member.user.image
})

/** An organization as better-auth answers it. */
export const pluginOrganization = (row: OrganizationRow): Iam.PluginOrganization => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  logo: row.logo,
  metadata: row.metadata,
  createdAt: row.createdAt.toISOString()
})

/** A membership as better-auth answers it, with its user where better-auth joins it. */
export const pluginMember = (row: MemberRow, withUser = true): Iam.PluginMember => ({
  id: row.id,
  organizationId: row.organizationId,
  userId: row.userId,
  role: row.role,
  createdAt: row.createdAt.toISOString(),
  ...(withUser ? { user: userView(row) } : {})
})

/** An invitation as better-auth answers it (its stored status, ISO timestamps). */
export const pluginInvitation = (row: InvitationRow): Iam.PluginInvitation => ({
  id: row.id,
  organizationId: row.organizationId,
  email: row.email,
  role: row.role,
  status: row.status,
  inviterId: row.inviterId,
  expiresAt: row.expiresAt.toISOString(),
  createdAt: row.createdAt.toISOString()
})

/** An organization on the documented routes. */
export const organization = (row: OrganizationRow): Iam.Organization => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  orgType: row.orgType,
  logo: row.logo,
  metadata: row.metadata,
  platformId: row.platformId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString()
})

/** A membership on the documented routes. */
export const member = (row: MemberRow): Iam.OrganizationMember => ({
  id: row.id,
  organizationId: row.organizationId,
  userId: row.userId,
  role: row.role,
  createdAt: row.createdAt.toISOString(),
  user: userView(row)
})

/** An organization with its members on the documented routes. */
export const organizationDetail = (value: OrganizationWithMembers): Iam.OrganizationDetail => ({
  ...organization(value.organization),
  members: value.members.map(member)
})

/** The status an invitation reads as at `now`: a pending one past its expiry is `expired`. */
export const statusAt = (invitation: InvitationRow, now: number): InvitationState =>
  invitation.status === "pending" && invitation.expiresAt.getTime() <= now ? "expired" : invitation.status

/** An invitation on the documented routes: epoch milliseconds, and `expired` once past its expiry. */
export const invitation = (row: InvitationRow, now: number): Iam.Invitation => ({
  id: row.id,
  organizationId: row.organizationId,
  email: row.email,
  role: row.role,
  status: statusAt(row, now),
  expiresAt: row.expiresAt.getTime(),
  inviterId: row.inviterId,
  createdAt: row.createdAt.getTime()
})
