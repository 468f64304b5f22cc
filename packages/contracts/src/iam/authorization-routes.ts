import { defineRoutes } from "../Routes.js"
import {
  ApiKeyList,
  ApiKeyValidation,
  AuditPage,
  CreateApiKeyRequest,
  CreatedApiKey,
  CreateGrantRequest,
  Grant,
  GrantList,
  ApiKeyIdParams,
  GrantIdParams,
  Jwks,
  ListApiKeysQuery,
  ListAuditQuery,
  ListGrantsQuery,
  ListRoleMappingsQuery,
  PlatformStatusRecord,
  RoleMapping,
  RoleMappingList,
  RoleMappingParams,
  ServiceToken,
  ServiceTokenRequest,
  SetPlatformStatusRequest,
  UpsertRoleMappingRequest,
  ValidateApiKeyRequest
} from "./authorization.js"

const tags = ["identity: authorization"]
const guarded = { 400: null, 401: null, 403: null, 404: null } as const

/** The audit log, served at three paths (`GET /api/audit/*`): one route each. */
const audit = {
  method: "GET",
  summary: "Read the audit log, newest first",
  description: "The caller's own entries; with organizationId, that organization's entries (audit:read there); every entry for an operator or the service.",
  auth: "caller",
  request: { query: ListAuditQuery },
  responses: { 200: AuditPage, ...guarded },
  tags
} as const

/**
 * The identity service's authorization routes at their own paths (through the gateway under
 * `/api/v1/iam`): role mappings, grants, API keys, service tokens and JWKS, platform status, audit.
 */
export const AuthorizationRoutes = defineRoutes({
  listRoleMappings: {
    method: "GET",
    path: "/api/core/roles",
    summary: "List an organization's role mappings",
    description: "The role mappings of an organization (`orgId`): for each of `owner`, `admin`, `member` and any custom role, the permissions it gives. New organizations start with owner `*`, admin everything but `org:delete` and `billing:manage`, member every `:read`. Needs `members:read`.",
    auth: "caller",
    permission: "members:read",
    tenant: "organization",
    request: { query: ListRoleMappingsQuery },
    responses: { 200: RoleMappingList, ...guarded },
    tags
  },
  upsertRoleMapping: {
    method: "POST",
    path: "/api/core/roles",
    summary: "Create or replace a role's permissions",
    description: "Sets the permissions of one role in an organization, replacing what it had (permissions from the catalogue, or `*`). Members holding the role get the new permissions at once; cached gateway answers follow within seconds. Needs `members:manage`.",
    changesTenant: true,
    auth: "caller",
    permission: "members:manage",
    tenant: "organization",
    request: { body: UpsertRoleMappingRequest },
    responses: { 200: RoleMapping, ...guarded },
    tags
  },
  deleteRoleMapping: {
    method: "DELETE",
    path: "/api/core/roles/{orgId}/{role}",
    summary: "Delete a role mapping",
    description: "Removes a role's mapping from an organization, so members holding that role get no permission from it (grants still apply). Needs `members:manage`.",
    changesTenant: true,
    auth: "caller",
    permission: "members:manage",
    tenant: "organization",
    request: { params: RoleMappingParams },
    responses: { 204: null, ...guarded },
    tags
  },
  listGrants: {
    method: "GET",
    path: "/api/core/grants",
    summary: "List an organization's grants and denials",
    description: "An organization's grants and denials (`orgId`, optionally one `userId`), newest first: per member, a permission added to or taken from what its role gives, with an optional expiry (epoch seconds). Expired ones are listed with `active: false` and count as absent. Needs `members:read`.",
    auth: "caller",
    permission: "members:read",
    tenant: "organization",
    request: { query: ListGrantsQuery },
    responses: { 200: GrantList, ...guarded },
    tags
  },
  createGrant: {
    method: "POST",
    path: "/api/core/grants",
    summary: "Grant or deny a permission to a member",
    description: "Grants a permission to a member beyond its role (`granted: true`), or denies one its role gives (`granted: false`), optionally until `expiresAt` (epoch seconds). A denial always wins over a role and a grant. Needs `members:manage`; a user who is not a member answers 404.",
    changesTenant: true,
    auth: "caller",
    permission: "members:manage",
    tenant: "organization",
    request: { body: CreateGrantRequest },
    responses: { 201: Grant, ...guarded },
    tags
  },
  deleteGrant: {
    method: "DELETE",
    path: "/api/core/grants/{id}",
    summary: "Delete a grant or denial",
    description: "Deletes a grant or a denial by its id (`grt_…`); the member's permissions fall back to its role's. Needs `members:manage`; another organization's grant answers 404.",
    changesTenant: true,
    auth: "caller",
    permission: "members:manage",
    tenant: "organization",
    request: { params: GrantIdParams },
    responses: { 204: null, ...guarded },
    tags
  },
  createApiKey: {
    method: "POST",
    path: "/api/core/apikeys",
    summary: "Create an API key (the key is shown once)",
    description: "Creates an API key (`core_` and 32 random bytes) bound to an organization and its platform, with optional permissions and expiry. The key itself is in this answer only; Core keeps its SHA-256 hash. Needs `apikeys:manage` in the organization.",
    auth: "caller",
    permission: "apikeys:manage",
    tenant: "organization",
    request: { body: CreateApiKeyRequest },
    responses: { 201: CreatedApiKey, ...guarded, 409: null },
    tags
  },
  listApiKeys: {
    method: "GET",
    path: "/api/core/apikeys",
    summary: "List an organization's API keys",
    description: "An organization's API keys: name, first characters, permissions, expiry, last use and whether revoked; never the key or its hash. Needs `apikeys:read`.",
    auth: "caller",
    permission: "apikeys:read",
    tenant: "organization",
    request: { query: ListApiKeysQuery },
    responses: { 200: ApiKeyList, ...guarded },
    tags
  },
  revokeApiKey: {
    method: "DELETE",
    path: "/api/core/apikeys/{id}",
    summary: "Revoke an API key",
    description: "Revokes an API key at once: the next request with it answers 401 (the gateway's cache is cleared). Needs `apikeys:manage`; another organization's key answers 404.",
    auth: "caller",
    permission: "apikeys:manage",
    tenant: "organization",
    request: { params: ApiKeyIdParams },
    responses: { 204: null, ...guarded },
    tags
  },
  validateApiKey: {
    method: "POST",
    path: "/api/core/apikey/validate",
    summary: "Validate an API key (the gateway's call)",
    description: "The static service key or an operator (401 without credentials, 403 to anyone else); while no static key is configured (the development bypass, where the gateway calls without credentials) anyone. Declared public because the runner cannot express that rule: the handler checks it.",
    auth: "public",
    request: { body: ValidateApiKeyRequest },
    responses: { 200: ApiKeyValidation, 400: null, 401: null, 403: null },
    tags
  },
  issueServiceToken: {
    method: "POST",
    path: "/api/core/service-token",
    summary: "Issue a five-minute service-to-service JWT",
    description: "The static service key or an operator; any other caller, an API key included, is authenticated but refused with 403.",
    auth: "operator",
    request: { body: ServiceTokenRequest },
    responses: { 200: ServiceToken, 400: null, 401: null, 403: null },
    tags
  },
  jwks: {
    method: "GET",
    path: "/.well-known/jwks.json",
    summary: "The public keys that verify service tokens",
    description: "The public keys (JWK Set) that verify Core's service tokens: short-lived ES256 JWTs (5 minutes) whose `iss` is identity and `aud` the target service. Public and cacheable; a key stays listed while tokens it signed may live.",
    auth: "public",
    responses: { 200: Jwks },
    tags
  },
  setPlatformStatus: {
    method: "POST",
    path: "/internal/platform-status",
    summary: "Suspend or restore a platform",
    description: "The static service key or an operator; any other caller, an API key included, is authenticated but refused with 403.",
    auth: "operator",
    request: { body: SetPlatformStatusRequest },
    responses: { 200: PlatformStatusRecord, 400: null, 401: null, 403: null },
    tags
  },
  listAudit: { ...audit, path: "/api/audit" },
  listAuditEvents: { ...audit, path: "/api/audit/events" },
  listAuditLog: { ...audit, path: "/api/audit/log" }
})
