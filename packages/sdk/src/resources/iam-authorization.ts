import type { Iam } from "@core/contracts"
import { AuthorizationRouteRefs } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
import type { Transport } from "../transport.js"

/** Per-call options of the identity authorization methods. */
export interface IamCallOptions {
  readonly signal?: AbortSignal
}

/**
 * Role mappings, grants, API keys, service tokens, platform status and the audit log of the
 * identity service (under its gateway prefix), one method per route of `Iam.AuthorizationRoutes`
 * (named in each method's comment).
 */
export interface IamAuthorization {
  readonly roles: {
    /** `listRoleMappings` (`members:read`): the organization's role mappings. */
    readonly list: (orgId: string, options?: IamCallOptions) => Promise<Iam.RoleMappingList>
    /** `upsertRoleMapping`: create or replace a role's permissions. */
    readonly upsert: (input: Iam.UpsertRoleMappingRequest, options?: IamCallOptions) => Promise<Iam.RoleMapping>
    /** `deleteRoleMapping`. */
    readonly delete: (orgId: string, role: string, options?: IamCallOptions) => Promise<void>
  }
  readonly grants: {
    /** `listGrants` (`members:read`): grants and denials, optionally of one user. */
    readonly list: (query: Iam.ListGrantsQuery, options?: IamCallOptions) => Promise<Iam.GrantList>
    /** `createGrant`: grant (`granted: true`) or deny (`false`) a permission to a member. */
    readonly create: (input: Iam.CreateGrantRequest, options?: IamCallOptions) => Promise<Iam.Grant>
    /** `deleteGrant`. */
    readonly delete: (id: string, options?: IamCallOptions) => Promise<void>
  }
  readonly apiKeys: {
    /** `createApiKey`: the answer's `key` is shown this once only. */
    readonly create: (input: Iam.CreateApiKeyRequest, options?: IamCallOptions) => Promise<Iam.CreatedApiKey>
    /** `listApiKeys`: never the keys themselves. */
    readonly list: (organizationId: string, options?: IamCallOptions) => Promise<Iam.ApiKeyList>
    /** `revokeApiKey`: revoke. */
    readonly revoke: (id: string, options?: IamCallOptions) => Promise<void>
    /** `validateApiKey` (the gateway's call; needs the static key outside development). */
    readonly validate: (key: string, options?: IamCallOptions) => Promise<Iam.ApiKeyValidation>
  }
  readonly serviceTokens: {
    /** `issueServiceToken`: a five-minute JWT for `serviceId` to call `targetService`. */
    readonly create: (input: Iam.ServiceTokenRequest, options?: IamCallOptions) => Promise<Iam.ServiceToken>
    /** `jwks`: the public keys that verify service tokens. */
    readonly jwks: (options?: IamCallOptions) => Promise<Iam.Jwks>
  }
  readonly platformStatus: {
    /** `setPlatformStatus`: suspend or restore a platform (static key or operator). */
    readonly set: (input: Iam.SetPlatformStatusRequest, options?: IamCallOptions) => Promise<Iam.PlatformStatusRecord>
  }
  readonly audit: {
    /** `listAuditEvents`: one page, newest first. */
    readonly list: (query?: Iam.ListAuditQueryInput, options?: IamCallOptions) => Promise<Iam.AuditPage>
    /** Every entry matching the query, page after page. */
    readonly all: (query?: Omit<Iam.ListAuditQueryInput, "cursor">, options?: IamCallOptions) => AsyncGenerator<Iam.AuditEntry, void, undefined>
  }
}

const Routes: typeof AuthorizationRouteRefs = AuthorizationRouteRefs

/**
 * The authorization part of `client.iam`, on `transport`, under `basePath` (the gateway's
 * identity prefix by default).
 */
export const iamAuthorization = (transport: Transport, basePath?: string): IamAuthorization => {
  const { call, pages } = routeCaller(transport, { basePath })
  return {
    roles: {
      list: (orgId, options) => call(Routes.listRoleMappings, { query: { orgId } }, options),
      upsert: (input, options) => call(Routes.upsertRoleMapping, { body: input }, options),
      delete: (orgId, role, options) => call(Routes.deleteRoleMapping, { params: { orgId, role } }, options)
    },
    grants: {
      list: (query, options) => call(Routes.listGrants, { query }, options),
      create: (input, options) => call(Routes.createGrant, { body: input }, options),
      delete: (id, options) => call(Routes.deleteGrant, { params: { id } }, options)
    },
    apiKeys: {
      create: (input, options) => call(Routes.createApiKey, { body: input }, options),
      list: (organizationId, options) => call(Routes.listApiKeys, { query: { organizationId } }, options),
      revoke: (id, options) => call(Routes.revokeApiKey, { params: { id } }, options),
      validate: (key, options) => call(Routes.validateApiKey, { body: { key } }, options)
    },
    serviceTokens: {
      create: (input, options) => call(Routes.issueServiceToken, { body: input }, options),
      jwks: (options) => call(Routes.jwks, {}, options)
    },
    platformStatus: {
      set: (input, options) => call(Routes.setPlatformStatus, { body: input }, options)
    },
    audit: {
      list: (query = {}, options) => call(Routes.listAuditEvents, { query }, options),
      all: (query = {}, options) => pages(Routes.listAuditEvents, { query }, options)
    }
  }
}
