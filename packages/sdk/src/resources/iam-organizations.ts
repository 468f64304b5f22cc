import type { Iam } from "@core/contracts"
import { paginate } from "../pagination.js"
import type { Transport } from "../transport.js"
import { withLibraryCode } from "./iam-accounts.js"

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
 * Organizations, members and invitations of the identity service (`/api/v1/iam/...` through the
 * gateway): better-auth's organization plugin (`/api/auth/organization/*`, errors with its codes,
 * e.g. `ORGANIZATION_ALREADY_EXISTS`) and the documented `/api/core/*` routes.
 */
export interface IamOrganizations {
  readonly organizations: {
    /** `POST /api/auth/organization/create`: the caller becomes owner; the organization gets a `free` platform. */
    readonly create: (input: Iam.PluginCreateOrganizationBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganizationWithMembers>
    /** `GET /api/auth/organization/list`: the caller's organizations. */
    readonly list: (options?: IamOrganizationCallOptions) => Promise<ReadonlyArray<Iam.PluginOrganization>>
    /** `POST /api/auth/organization/set-active`: `{ organizationId: null }` clears it. */
    readonly setActive: (input: Iam.PluginSetActiveBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganization | null>
    /** `GET /api/auth/organization/get-full-organization`: with members and invitations; the active one by default. */
    readonly getFull: (selector?: Iam.PluginOrganizationSelector, options?: IamOrganizationCallOptions) => Promise<Iam.PluginFullOrganization | null>
    /** `POST /api/auth/organization/check-slug`: resolves when free, rejects `ORGANIZATION_SLUG_ALREADY_TAKEN`. */
    readonly checkSlug: (slug: string, options?: IamOrganizationCallOptions) => Promise<{ readonly status: boolean }>
    /** `POST /api/auth/organization/update` (`org:update`). */
    readonly update: (input: Iam.PluginUpdateOrganizationBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganization>
    /** `POST /api/auth/organization/delete` (`org:delete`: owners). */
    readonly delete: (organizationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginOrganization>
    /** `POST /api/core/organizations` (static key or operator): a tenant (or the operator organization) for `ownerId`. */
    readonly createForOwner: (input: Iam.CreateOrganizationRequest, options?: IamOrganizationCallOptions) => Promise<Iam.OrganizationDetail>
    /** `GET /api/core/organizations/{slug}` (its members, operators, the static key). */
    readonly get: (slug: string, options?: IamOrganizationCallOptions) => Promise<Iam.OrganizationDetail>
    /**
     * `POST /api/core/org-setup`: organization and platform at once. It takes the session cookie
     * only (a bearer is refused): in a browser send credentials, elsewhere pass
     * `headers: { cookie: "core.session_token=<token>" }`.
     */
    readonly setup: (input: Iam.OrgSetupRequest, options?: IamOrganizationCallOptions) => Promise<Iam.OrgSetupResponse>
    /** `POST /api/core/bootstrap` (static key or operator): the `core-operator` organization, created once. */
    readonly bootstrap: (options?: IamOrganizationCallOptions) => Promise<Iam.Organization>
  }
  readonly members: {
    /** `GET /api/auth/organization/list-members`: a page of members with their users, and the total. */
    readonly list: (query?: Iam.PluginListMembersQuery, options?: IamOrganizationCallOptions) => Promise<Iam.PluginMemberList>
    /** `GET /api/auth/organization/get-active-member`: the caller's membership in its active organization. */
    readonly active: (options?: IamOrganizationCallOptions) => Promise<Iam.PluginMember>
    /** `POST /api/auth/organization/remove-member` (`members:manage`). */
    readonly remove: (input: Iam.PluginRemoveMemberBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginRemovedMember>
    /** `POST /api/auth/organization/update-member-role` (`members:manage`; owners only by owners). */
    readonly updateRole: (input: Iam.PluginUpdateMemberRoleBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginMember>
    /** `POST /api/auth/organization/leave` (never the only owner). */
    readonly leave: (organizationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginMember>
  }
  readonly invitations: {
    /** `POST /api/core/organizations/{orgId}/invitations`: a 48-hour invitation, mailed. */
    readonly create: (orgId: string, input: { readonly email: string; readonly role?: Iam.OrganizationRole; readonly inviterId?: string }, options?: IamOrganizationCallOptions) => Promise<Iam.Invitation>
    /** `GET /api/core/organizations/{orgId}/invitations`: one page; `cursor` is `""` on the last. */
    readonly list: (orgId: string, query?: InvitationListQuery, options?: IamOrganizationCallOptions) => Promise<Iam.InvitationPage>
    /** Every invitation of the organization, page after page. */
    readonly all: (orgId: string, query?: Omit<InvitationListQuery, "cursor">, options?: IamOrganizationCallOptions) => AsyncGenerator<Iam.Invitation, void, undefined>
    /** `DELETE /api/core/organizations/{orgId}/invitations/{invitationId}`: revoke a pending invitation. */
    readonly revoke: (orgId: string, invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.RevokedInvitation>
    /** `POST /api/auth/organization/invite-member` (`resend: true` renews a pending one). */
    readonly invite: (input: Iam.PluginInviteMemberBody, options?: IamOrganizationCallOptions) => Promise<Iam.PluginInvitation>
    /** `GET /api/auth/organization/get-invitation`: for its recipient. */
    readonly get: (id: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginInvitationDetail>
    /** `POST /api/auth/organization/accept-invitation`: join, and make the organization active. */
    readonly accept: (invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginAcceptedInvitation>
    /** `POST /api/auth/organization/reject-invitation`. */
    readonly reject: (invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginRejectedInvitation>
    /** `POST /api/auth/organization/cancel-invitation` (`members:manage`). */
    readonly cancel: (invitationId: string, options?: IamOrganizationCallOptions) => Promise<Iam.PluginInvitation>
    /** `GET /api/auth/organization/list-invitations`: all of an organization's (the active one by default). */
    readonly listAll: (organizationId?: string, options?: IamOrganizationCallOptions) => Promise<ReadonlyArray<Iam.PluginInvitation>>
  }
}

const pass = (options: IamOrganizationCallOptions | undefined) => ({
  ...(options?.signal === undefined ? {} : { signal: options.signal }),
  ...(options?.headers === undefined ? {} : { headers: options.headers })
})

const queryOf = (query: object | undefined) =>
  Object.fromEntries(
    Object.entries(query ?? {}).filter((entry): entry is [string, string | number] => typeof entry[1] === "string" || typeof entry[1] === "number")
  )

const relabel = <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((error: unknown) => {
    throw withLibraryCode(error)
  })

/**
 * The organizations part of `client.iam`, on `transport`, under `basePath` (the gateway's identity
 * prefix by default; `""` for an identity service reached directly).
 */
export const iamOrganizations = (transport: Transport, basePath = "/api/v1/iam"): IamOrganizations => {
  const path = (suffix: string) => `${basePath}${suffix}`
  const plugin = (suffix: string) => path(`/api/auth/organization${suffix}`)
  const post = <T>(suffix: string, body: unknown, options?: IamOrganizationCallOptions) =>
    relabel(transport.request<T>("POST", plugin(suffix), { body, ...pass(options) }))
  const get = <T>(suffix: string, query: object | undefined, options?: IamOrganizationCallOptions) =>
    relabel(transport.request<T>("GET", plugin(suffix), { query: queryOf(query), ...pass(options) }))
  const invitations = (orgId: string) => path(`/api/core/organizations/${encodeURIComponent(orgId)}/invitations`)
  return {
    organizations: {
      create: (input, options) => post("/create", input, options),
      list: (options) => get("/list", undefined, options),
      setActive: (input, options) => post("/set-active", input, options),
      getFull: (selector, options) => get("/get-full-organization", selector, options),
      checkSlug: (slug, options) => post("/check-slug", { slug }, options),
      update: (input, options) => post("/update", input, options),
      delete: (organizationId, options) => post("/delete", { organizationId }, options),
      createForOwner: (input, options) => transport.request("POST", path("/api/core/organizations"), { body: input, ...pass(options) }),
      get: (slug, options) => transport.request("GET", path(`/api/core/organizations/${encodeURIComponent(slug)}`), pass(options)),
      setup: (input, options) => transport.request("POST", path("/api/core/org-setup"), { body: input, ...pass(options) }),
      bootstrap: (options) => transport.request("POST", path("/api/core/bootstrap"), { body: {}, ...pass(options) })
    },
    members: {
      list: (query, options) => get("/list-members", query, options),
      active: (options) => get("/get-active-member", undefined, options),
      remove: (input, options) => post("/remove-member", input, options),
      updateRole: (input, options) => post("/update-member-role", input, options),
      leave: (organizationId, options) => post("/leave", { organizationId }, options)
    },
    invitations: {
      create: (orgId, input, options) => transport.request("POST", invitations(orgId), { body: input, ...pass(options) }),
      list: (orgId, query, options) => transport.request("GET", invitations(orgId), { query: queryOf(query), ...pass(options) }),
      all: (orgId, query, options) => paginate<Iam.Invitation>(transport, invitations(orgId), { query: queryOf(query), ...pass(options) }),
      revoke: (orgId, invitationId, options) =>
        transport.request("DELETE", `${invitations(orgId)}/${encodeURIComponent(invitationId)}`, pass(options)),
      invite: (input, options) => post("/invite-member", input, options),
      get: (id, options) => get("/get-invitation", { id }, options),
      accept: (invitationId, options) => post("/accept-invitation", { invitationId }, options),
      reject: (invitationId, options) => post("/reject-invitation", { invitationId }, options),
      cancel: (invitationId, options) => post("/cancel-invitation", { invitationId }, options),
      listAll: (organizationId, options) => get("/list-invitations", { organizationId }, options)
    }
  }
}
