import type { Iam } from "@core/contracts"
import { OrganizationRouteRefs } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
import { UnauthorizedError } from "../errors.js"
import type { Transport } from "../transport.js"

/** Per-call options of the identity organization methods. */
export interface IamOrganizationCallOptions {
  readonly signal?: AbortSignal
  /** Extra headers, e.g. the `cookie` that `organizations.setup` needs. */
  readonly headers?: Readonly<Record<string, string>>
}

/** Query of the documented invitation list. */
export interface InvitationListQuery {
  readonly cursor?: string
  /** 1 to 100. @default 50 */
  readonly limit?: number
}

/**
 * Organizations, members and invitations of the identity service (under its gateway prefix), one
 * method per route of `Iam.OrganizationRoutes` (named in each method's comment): better-auth's
 * organization plugin (errors with its codes, e.g. `ORGANIZATION_ALREADY_EXISTS`) and the
 * documented routes (the error envelope).
 */
export interface IamOrganizations {
  readonly organizations: {
    /** `createOrganization`: the caller becomes owner; the organization gets a `free` platform. */
    readonly create: (input: Iam.PluginCreateOrganizationBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganizationWithMembers>
    /** `listOrganizations`: the caller's organizations. */
    readonly list: (options?: IamOrganizationCallOptions) => Promise<ReadonlyArray<Iam.PluginOrganization>>
    /** `setActiveOrganization`: `{ organizationId: null }` clears it. */
    readonly setActive: (input: Iam.PluginSetActiveBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganization | null>
    /** `getFullOrganization`: with members and invitations; the active one by default. */
    readonly getFull: (selector?: Iam.PluginOrganizationSelector, options?: IamOrganizationCallOptions) => Promise<Iam.PluginFullOrganization | null>
    /** `checkOrganizationSlug`: resolves when free, rejects `ORGANIZATION_SLUG_ALREADY_TAKEN`. */
    readonly checkSlug: (slug: string, options?: IamOrganizationCallOptions) => Promise<{ readonly status: boolean }>
    /** `updateOrganization` (`org:update`). */
    readonly update: (input: Iam.PluginUpdateOrganizationBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganization>
    /** `deleteOrganization` (`org:delete`: owners). */
    readonly delete: (organizationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganization>
    /** `createOrganizationForOwner` (static key or operator): a tenant (or the operator organization) for `ownerId`. */
    readonly createForOwner: (input: Iam.CreateOrganizationRequest, options?: IamOrganizationCallOptions) => Promise<Iam.OrganizationDetail>
    /** `getOrganizationBySlug` (its members, operators, the static key). */
    readonly get: (slug: string, options?: IamOrganizationCallOptions) => Promise<Iam.OrganizationDetail>
    /**
     * `orgSetup`: organization and platform at once. It takes the session cookie
     * only (a bearer is refused): in a browser send credentials, elsewhere pass
     * `headers: { cookie: "core.session_token=<token>" }`. With a bearer token, call
     * {@link create} instead (it creates the platform too). Its answer names the
     * organization `orgId`; the plugin's records call it `id`, and the routes that take
     * one call it `organizationId` (the seed's names; see the README).
     */
    readonly setup: (input: Iam.OrgSetupRequest, options?: IamOrganizationCallOptions) => Promise<Iam.OrgSetupResponse>
    /** `bootstrap` (static key or operator): the `core-operator` organization, created once. */
    readonly bootstrap: (options?: IamOrganizationCallOptions) => Promise<Iam.Organization>
  }
  readonly members: {
    /** `listMembers`: a page of members with their users, and the total. */
    readonly list: (query?: Iam.PluginListMembersQuery, options?: IamOrganizationCallOptions) => Promise<Iam.PluginMemberList>
    /** `getActiveMember`: the caller's membership in its active organization. */
    readonly active: (options?: IamOrganizationCallOptions) => Promise<Iam.PluginMember>
    /** `removeMember` (`members:manage`). */
    readonly remove: (input: Iam.PluginRemoveMemberBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginRemovedMember>
    /** `updateMemberRole` (`members:manage`; owners only by owners). */
    readonly updateRole: (input: Iam.PluginUpdateMemberRoleBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginMember>
    /** `leaveOrganization` (never the only owner). */
    readonly leave: (organizationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginMember>
  }
  readonly invitations: {
    /** `createOrganizationInvitation`: a 48-hour invitation, mailed. */
    readonly create: (orgId: string, input: { readonly email: string; readonly role?: Iam.OrganizationRole; readonly inviterId?: string }, options?: IamOrganizationCallOptions) => Promise<Iam.Invitation>
    /** `listOrganizationInvitations`: one page; `cursor` is `""` on the last. */
    readonly list: (orgId: string, query?: InvitationListQuery, options?: IamOrganizationCallOptions) => Promise<Iam.InvitationPage>
    /** Every invitation of the organization, page after page. */
    readonly all: (orgId: string, query?: Omit<InvitationListQuery, "cursor">, options?: IamOrganizationCallOptions) => AsyncGenerator<Iam.Invitation, void, undefined>
    /** `revokeOrganizationInvitation`: revoke a pending invitation. */
    readonly revoke: (orgId: string, invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.RevokedInvitation>
    /** `inviteMember` (`resend: true` renews a pending one). */
    readonly invite: (input: Iam.PluginInviteMemberBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginInvitation>
    /** `getInvitation`: for its recipient. */
    readonly get: (id: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginInvitationDetail>
    /** `acceptInvitation`: join, and make the organization active. */
    readonly accept: (invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginAcceptedInvitation>
    /** `rejectInvitation`. */
    readonly reject: (invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginRejectedInvitation>
    /** `cancelInvitation` (`members:manage`). */
    readonly cancel: (invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginInvitation>
    /** `listInvitations`: all of an organization's (the active one by default). */
    readonly listAll: (organizationId?: string, options?: IamOrganizationCallOptions) => Promise<ReadonlyArray<Iam.PluginInvitation>>
  }
}

const Routes: typeof OrganizationRouteRefs = OrganizationRouteRefs

/**
 * A 401 of `organizations.setup` sent without a cookie says what to do in the SDK's terms (the
 * server's message names the route; decision 0199).
 */
const withoutCookie = (error: unknown, options: IamOrganizationCallOptions | undefined): unknown => {
  const cookie = Object.entries(options?.headers ?? {}).some(([name]) => name.toLowerCase() === "cookie")
  if (!(error instanceof UnauthorizedError) || cookie) return error
  return new UnauthorizedError({
    status: error.status,
    code: error.code,
    message: `${error.message} (organizations.setup: pass headers: { cookie: "core.session_token=<token>" }, or call organizations.create with the bearer)`,
    requestId: error.requestId,
    details: error.details,
    headers: error.headers,
    body: error.body
  })
}

/**
 * The organizations part of `client.iam`, on `transport`, under `basePath` (the gateway's identity
 * prefix by default; `""` for an identity service reached directly).
 */
export const iamOrganizations = (transport: Transport, basePath?: string): IamOrganizations => {
  const { call, pages } = routeCaller(transport, { basePath })
  return {
    organizations: {
      create: (input, options) => call(Routes.createOrganization, { body: input }, options),
      list: (options) => call(Routes.listOrganizations, {}, options),
      setActive: (input, options) => call(Routes.setActiveOrganization, { body: input }, options),
      getFull: (selector, options) => call(Routes.getFullOrganization, { query: selector }, options),
      checkSlug: (slug, options) => call(Routes.checkOrganizationSlug, { body: { slug } }, options),
      update: (input, options) => call(Routes.updateOrganization, { body: input }, options),
      delete: (organizationId, options) => call(Routes.deleteOrganization, { body: { organizationId } }, options),
      createForOwner: (input, options) => call(Routes.createOrganizationForOwner, { body: input }, options),
      get: (slug, options) => call(Routes.getOrganizationBySlug, { params: { slug } }, options),
      setup: (input, options) => call(Routes.orgSetup, { body: input }, options).catch((error: unknown) => {
        throw withoutCookie(error, options)
      }),
      bootstrap: (options) => call(Routes.bootstrap, {}, options)
    },
    members: {
      list: (query, options) => call(Routes.listMembers, { query }, options),
      active: (options) => call(Routes.getActiveMember, {}, options),
      remove: (input, options) => call(Routes.removeMember, { body: input }, options),
      updateRole: (input, options) => call(Routes.updateMemberRole, { body: input }, options),
      leave: (organizationId, options) => call(Routes.leaveOrganization, { body: { organizationId } }, options)
    },
    invitations: {
      create: (orgId, input, options) => call(Routes.createOrganizationInvitation, { params: { orgId }, body: input }, options),
      list: (orgId, query, options) => call(Routes.listOrganizationInvitations, { params: { orgId }, query }, options),
      all: (orgId, query, options) => pages(Routes.listOrganizationInvitations, { params: { orgId }, query }, options),
      revoke: (orgId, invitationId, options) => call(Routes.revokeOrganizationInvitation, { params: { orgId, invitationId } }, options),
      invite: (input, options) => call(Routes.inviteMember, { body: input }, options),
      get: (id, options) => call(Routes.getInvitation, { query: { id } }, options),
      accept: (invitationId, options) => call(Routes.acceptInvitation, { body: { invitationId } }, options),
      reject: (invitationId, options) => call(Routes.rejectInvitation, { body: { invitationId } }, options),
      cancel: (invitationId, options) => call(Routes.cancelInvitation, { body: { invitationId } }, options),
      listAll: (organizationId, options) => call(Routes.listInvitations, { query: { organizationId } }, options)
    }
  }
}
