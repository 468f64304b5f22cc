import { z } from "zod"
import { BoundedId, EmailAddress, SLUG_MAX_LENGTH } from "../Bounds.js"
import { cursorList, InvitationsCursorQuery } from "../Pagination.js"
import { naming } from "../PathRecords.js"

/** Organization name: 1 to 100 characters. */
export const OrganizationName = z.string().min(1).max(100)

/** Organization slug: 1 to 63 characters of `a-z`, `0-9` and `-`. */
export const OrganizationSlug = z.string().min(1).max(63).regex(/^[a-z0-9-]+$/, "Must match ^[a-z0-9-]+$")

/** Roles a member holds inside an organization. */
export const OrganizationRole = z.enum(["owner", "admin", "member"])
export type OrganizationRole = z.infer<typeof OrganizationRole>

/** `core-operator` is the one organization whose members are platform operators. */
export const OrganizationType = z.enum(["core-operator", "tenant"])
export type OrganizationType = z.infer<typeof OrganizationType>

/** Lifecycle of an invitation. A revoked (`DELETE`) invitation is `canceled`. */
export const InvitationStatus = z.enum(["pending", "accepted", "rejected", "canceled", "expired"])
export type InvitationStatus = z.infer<typeof InvitationStatus>

/** The public face of a user inside organization answers. */
export const MemberUser = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  image: z.string().nullable()
})
export type MemberUser = z.infer<typeof MemberUser>

/** `POST /api/core/organizations` (operator or static key). */
export const CreateOrganizationRequest = z.object({
  name: OrganizationName,
  slug: OrganizationSlug,
  ownerId: BoundedId,
  orgType: OrganizationType.default("tenant")
})
export type CreateOrganizationRequest = z.infer<typeof CreateOrganizationRequest>

/** An organization as the documented `/api/core/*` routes answer it. Timestamps are ISO 8601. */
export const Organization = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  orgType: OrganizationType,
  logo: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  platformId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string()
})
export type Organization = z.infer<typeof Organization>

/** One membership, with its user. */
export const OrganizationMember = z.object({
  id: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  role: OrganizationRole,
  createdAt: z.string(),
  user: MemberUser
})
export type OrganizationMember = z.infer<typeof OrganizationMember>

/** `GET /api/core/organizations/{slug}` and the answer of `POST /api/core/organizations`. */
export const OrganizationDetail = Organization.extend({ members: z.array(OrganizationMember) })
export type OrganizationDetail = z.infer<typeof OrganizationDetail>

/** Path of `GET /api/core/organizations/{slug}`. */
export const OrganizationSlugParams = z.object({ slug: naming(z.string().min(1).max(SLUG_MAX_LENGTH), "Organization not found") })

/** `POST /api/core/org-setup` (session cookie only). */
export const OrgSetupRequest = z.object({ name: OrganizationName, slug: OrganizationSlug })
export type OrgSetupRequest = z.infer<typeof OrgSetupRequest>

/** 201 answer of `POST /api/core/org-setup`. */
export const OrgSetupResponse = z.object({
  orgId: z.string(),
  platformId: z.string(),
  slug: z.string(),
  name: z.string()
})
export type OrgSetupResponse = z.infer<typeof OrgSetupResponse>

/** `POST /api/core/bootstrap` answers the operator organization (201 when created, 200 after). */
export const BootstrapResponse = Organization
export type BootstrapResponse = z.infer<typeof BootstrapResponse>

/** An invitation on the documented routes: `expiresAt` and `createdAt` are epoch milliseconds. */
export const Invitation = z.object({
  id: z.string(),
  organizationId: z.string(),
  email: z.string(),
  role: OrganizationRole,
  status: InvitationStatus,
  expiresAt: z.number(),
  inviterId: z.string(),
  createdAt: z.number()
})
export type Invitation = z.infer<typeof Invitation>

/** Path of the invitation collection routes. */
export const InvitationsParams = z.object({ orgId: naming(BoundedId, "Organization not found") })

/** Path of `DELETE /api/core/organizations/{orgId}/invitations/{invitationId}`. */
export const InvitationParams = z.object({ orgId: naming(BoundedId, "Invitation not found"), invitationId: naming(BoundedId, "Invitation not found") })

/** Query of `GET /api/core/organizations/{orgId}/invitations`: `cursor`, `limit` (default 50, 1 to 100). */
export const ListInvitationsQuery = InvitationsCursorQuery
export type ListInvitationsQuery = z.infer<typeof ListInvitationsQuery>

/** A page of invitations. `cursor` is empty on the last page. */
export const InvitationPage = cursorList(Invitation)
export type InvitationPage = z.infer<typeof InvitationPage>

/** `POST /api/core/organizations/{orgId}/invitations`. */
export const CreateInvitationRequest = z.object({
  email: EmailAddress,
  role: OrganizationRole.default("member"),
  inviterId: BoundedId.optional()
})
export type CreateInvitationRequest = z.infer<typeof CreateInvitationRequest>

/** Answer of `DELETE /api/core/organizations/{orgId}/invitations/{invitationId}`. */
export const RevokedInvitation = z.object({ id: z.string() })
export type RevokedInvitation = z.infer<typeof RevokedInvitation>
