import type { Iam } from "@core/contracts"
import { paginate } from "../pagination.js"
import type { Transport } from "../transport.js"

/** Per-call options of the identity authorization methods. */
export interface IamCallOptions {
  readonly signal?: AbortSignal
}

/**
 * Role mappings, grants, API keys, service tokens, platform status and the audit log of the
 * identity service (`/api/v1/iam/...` through the gateway).
 */
export interface IamAuthorization {
  readonly roles: {
    /** `GET /api/core/roles?orgId=`: the organization's role mappings. */
    readonly list: (orgId: string, options?: IamCallOptions) => Promise<Iam.RoleMappingList>
    /** `POST /api/core/roles`: create or replace a role's permissions. */
    readonly upsert: (input: Iam.UpsertRoleMappingRequest, options?: IamCallOptions) => Promise<Iam.RoleMapping>
    /** `DELETE /api/core/roles/{orgId}/{role}`. */
    readonly delete: (orgId: string, role: string, options?: IamCallOptions) => Promise<void>
  }
  readonly grants: {
    /** `GET /api/core/grants?orgId=&userId=`. */
    readonly list: (query: Iam.ListGrantsQuery, options?: IamCallOptions) => Promise<Iam.GrantList>
    /** `POST /api/core/grants`: grant (`granted: true`) or deny (`false`) a permission to a member. */
    readonly create: (input: Iam.CreateGrantRequest, options?: IamCallOptions) => Promise<Iam.Grant>
    /** `DELETE /api/core/grants/{id}`. */
    readonly delete: (id: string, options?: IamCallOptions) => Promise<void>
  }
  readonly apiKeys: {
    /** `POST /api/core/apikeys`: the answer's `key` is shown this once only. */
    readonly create: (input: Iam.CreateApiKeyRequest, options?: IamCallOptions) => Promise<Iam.CreatedApiKey>
    /** `GET /api/core/apikeys?organizationId=`: never the keys themselves. */
    readonly list: (organizationId: string, options?: IamCallOptions) => Promise<Iam.ApiKeyList>
    /** `DELETE /api/core/apikeys/{id}`: revoke. */
    readonly revoke: (id: string, options?: IamCallOptions) => Promise<void>
    /** `POST /api/core/apikey/validate` (the gateway's call; needs the static key outside development). */
    readonly validate: (key: string, options?: IamCallOptions) => Promise<Iam.ApiKeyValidation>
  }
  readonly serviceTokens: {
    /** `POST /api/core/service-token`: a five-minute JWT for `serviceId` to call `targetService`. */
    readonly create: (input: Iam.ServiceTokenRequest, options?: IamCallOptions) => Promise<Iam.ServiceToken>
    /** `GET /.well-known/jwks.json`: the public keys that verify service tokens. */
    readonly jwks: (options?: IamCallOptions) => Promise<Iam.Jwks>
  }
  readonly platformStatus: {
    /** `POST /internal/platform-status`: suspend or restore a platform (static key or operator). */
    readonly set: (input: Iam.SetPlatformStatusRequest, options?: IamCallOptions) => Promise<Iam.PlatformStatusRecord>
  }
  readonly audit: {
    /** `GET /api/audit/events`: one page, newest first. */
    readonly list: (query?: Iam.ListAuditQueryInput, options?: IamCallOptions) => Promise<Iam.AuditPage>
    /** Every entry matching the query, page after page. */
    readonly all: (query?: Omit<Iam.ListAuditQueryInput, "cursor">, options?: IamCallOptions) => AsyncGenerator<Iam.AuditEntry, void, undefined>
  }
}

const signalOf = (options: IamCallOptions | undefined) => (options?.signal === undefined ? {} : { signal: options.signal })

const queryOf = (query: Readonly<Record<string, string | number | undefined>>) =>
  Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string | number] => entry[1] !== undefined))

/**
 * The authorization part of `client.iam`, on `transport`, under `basePath` (the gateway's
 * identity prefix by default).
 */
export const iamAuthorization = (transport: Transport, basePath = "/api/v1/iam"): IamAuthorization => {
  const path = (suffix: string) => `${basePath}${suffix}`
  const segment = encodeURIComponent
  return {
    roles: {
      list: (orgId, options) => transport.request("GET", path("/api/core/roles"), { query: { orgId }, ...signalOf(options) }),
      upsert: (input, options) => transport.request("POST", path("/api/core/roles"), { body: input, ...signalOf(options) }),
      delete: async (orgId, role, options) => {
        await transport.request("DELETE", path(`/api/core/roles/${segment(orgId)}/${segment(role)}`), signalOf(options))
      }
    },
    grants: {
      list: (query, options) =>
        transport.request("GET", path("/api/core/grants"), { query: queryOf(query), ...signalOf(options) }),
      create: (input, options) => transport.request("POST", path("/api/core/grants"), { body: input, ...signalOf(options) }),
      delete: async (id, options) => {
        await transport.request("DELETE", path(`/api/core/grants/${segment(id)}`), signalOf(options))
      }
    },
    apiKeys: {
      create: (input, options) => transport.request("POST", path("/api/core/apikeys"), { body: input, ...signalOf(options) }),
      list: (organizationId, options) =>
        transport.request("GET", path("/api/core/apikeys"), { query: { organizationId }, ...signalOf(options) }),
      revoke: async (id, options) => {
        await transport.request("DELETE", path(`/api/core/apikeys/${segment(id)}`), signalOf(options))
      },
      validate: (key, options) =>
        transport.request("POST", path("/api/core/apikey/validate"), { body: { key }, ...signalOf(options) })
    },
    serviceTokens: {
      create: (input, options) =>
        transport.request("POST", path("/api/core/service-token"), { body: input, ...signalOf(options) }),
      jwks: (options) => transport.request("GET", path("/.well-known/jwks.json"), signalOf(options))
    },
    platformStatus: {
      set: (input, options) =>
        transport.request("POST", path("/internal/platform-status"), { body: input, ...signalOf(options) })
    },
    audit: {
      list: (query = {}, options) =>
        transport.request("GET", path("/api/audit/events"), { query: queryOf(query), ...signalOf(options) }),
      all: (query = {}, options) => paginate<Iam.AuditEntry>(transport, path("/api/audit/events"), { query: queryOf(query), ...signalOf(options) })
    }
  }
}
