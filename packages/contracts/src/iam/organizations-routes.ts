import { defineRoutes } from "../Routes.js"
import { OrganizationPluginRoutes } from "./organization-plugin-routes.js"
import {
  BootstrapResponse,
  CreateInvitationRequest,
  CreateOrganizationRequest,
  Invitation,
  InvitationPage,
  InvitationParams,
  InvitationsParams,
  ListInvitationsQuery,
  OrganizationDetail,
  OrganizationSlugParams,
  OrgSetupRequest,
  OrgSetupResponse,
  RevokedInvitation
} from "./organizations.js"

const tags = ["identity: organizations"]
const guarded = { 400: null, 401: null, 403: null, 404: null } as const

/**
 * The documented organization routes (`/api/core/*`, the error envelope): the operator's create and
 * bootstrap, the web console's `org-setup`, reading an organization, and its invitations.
 */
export const CoreOrganizationRoutes = defineRoutes({
  createOrganizationForOwner: {
    method: "POST", path: "/api/core/organizations", summary: "Create an organization (and its platform) for a named owner",
    description: "The operator's organization creation: an organization (and its registry platform) whose owner is the user with `ownerEmail`, for a customer set up by hand. The static service key or an operator; a slug taken is 409.",
    changesTenant: true,
    auth: "operator", request: { body: CreateOrganizationRequest },
    responses: { 201: OrganizationDetail, 400: null, 401: null, 403: null, 409: null, 502: null },
    tags
  },
  getOrganizationBySlug: {
    method: "GET", path: "/api/core/organizations/:slug", summary: "An organization with its members",
    description: "An organization by its slug with its members and their roles. Needs `org:read` in it; another organization answers 404.",
    auth: "caller", permission: "org:read", tenant: "organization", request: { params: OrganizationSlugParams },
    responses: { 200: OrganizationDetail, ...guarded },
    tags
  },
  bootstrap: {
    method: "POST", path: "/api/core/bootstrap", summary: "Create the core-operator organization (once; later calls answer it)",
    description: "Creates the `core-operator` organization, whose members are operators. The first call creates it; later calls answer the same organization. The static service key or an operator (`core-server bootstrap --email` is the usual way).",
    changesTenant: true,
    auth: "operator",
    responses: { 200: BootstrapResponse, 201: BootstrapResponse, 401: null, 403: null },
    tags
  },
  orgSetup: {
    method: "POST", path: "/api/core/org-setup", summary: "Create an organization and its registry platform atomically (the web console's call)",
    changesTenant: true,
    description: "The session cookie only (no bearer): a bearer token or an API key gets 401 naming POST /api/auth/organization/create, which also creates the platform. If the registry step fails, the organization is rolled back.",
    auth: "session-cookie", bearerAlternative: "POST /api/auth/organization/create", request: { body: OrgSetupRequest },
    responses: { 201: OrgSetupResponse, 400: null, 401: null, 409: null, 451: null, 502: null },
    tags
  },
  listOrganizationInvitations: {
    method: "GET", path: "/api/core/organizations/:orgId/invitations", summary: "A page of an organization's invitations",
    description: "A cursor-paged list of an organization's invitations (default 50 a page) with status, role and expiry. Needs `members:read`.",
    auth: "caller", permission: "members:read", tenant: "organization",
    request: { params: InvitationsParams, query: ListInvitationsQuery },
    responses: { 200: InvitationPage, ...guarded },
    tags
  },
  createOrganizationInvitation: {
    method: "POST", path: "/api/core/organizations/:orgId/invitations", summary: "Invite an email to an organization",
    description: "Invites an email to an organization with a role and mails the link. Needs `members:manage`; a pending invitation for the same email is 409.",
    changesTenant: true,
    auth: "caller", permission: "members:manage", tenant: "organization",
    request: { params: InvitationsParams, body: CreateInvitationRequest },
    responses: { 201: Invitation, ...guarded, 409: null },
    tags
  },
  revokeOrganizationInvitation: {
    method: "DELETE", path: "/api/core/organizations/:orgId/invitations/:invitationId", summary: "Revoke a pending invitation",
    description: "Revokes a pending invitation of an organization; one already accepted, rejected or revoked is 409. Needs `members:manage`.",
    changesTenant: true,
    auth: "caller", permission: "members:manage", tenant: "organization", request: { params: InvitationParams },
    responses: { 200: RevokedInvitation, ...guarded, 409: null },
    tags
  }
})

/** Every organization route of the identity service: the better-auth plugin's and the documented ones. */
export const OrganizationRoutes = { ...OrganizationPluginRoutes, ...CoreOrganizationRoutes } as const
