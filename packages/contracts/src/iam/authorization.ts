import { z } from "zod"
import { ID_MAX_LENGTH, LIST_MAX_ITEMS, NAME_MAX_LENGTH } from "../Bounds.js"
import { cursorPage, cursorParam, limitParam } from "../Pagination.js"
import { naming } from "../PathRecords.js"
import { isPermission } from "../Permissions.js"
import { PlatformStatusValue } from "./accounts.js"

/** A non-empty string PostgreSQL can store: NUL characters are refused (400) instead of failing in SQL. */
export const NonEmptyText = z.string().min(1).regex(/^[^\u0000]*$/, "Must not contain NUL characters")

/** An id in a request: non-empty, without NUL, at most 128 characters (decision 0186). */
export const NonEmptyId = NonEmptyText.max(ID_MAX_LENGTH)

/** A name in a request (a role): non-empty, without NUL, at most 200 characters (decision 0186). */
export const NonEmptyName = NonEmptyText.max(NAME_MAX_LENGTH)

/** A permission of the catalogue (`packages/contracts/src/Permissions.ts`); anything else is a 400. */
export const CataloguePermission = z
  .string()
  .min(1)
  .max(ID_MAX_LENGTH)
  .refine(isPermission, { message: "Unknown permission (see the permission catalogue)" })

/** An ISO 8601 timestamp with its offset, at most 64 characters (decision 0186). */
export const IsoTimestamp = z.iso.datetime({ offset: true }).max(64)

/** Grant `expiresAt`: epoch seconds, greater than 0 and less than 10^11. */
export const GrantExpiry = z.number().int().gt(0).lt(100_000_000_000)

/** `POST /api/core/roles`: create or replace the permissions of a role in an organization. */
export const UpsertRoleMappingRequest = z.object({
  orgId: NonEmptyId,
  role: NonEmptyName,
  permissions: z.array(CataloguePermission).max(LIST_MAX_ITEMS)
})
export type UpsertRoleMappingRequest = z.infer<typeof UpsertRoleMappingRequest>

/** A role-to-permissions mapping of one organization. `updatedAt` is ISO 8601. */
export const RoleMapping = z.object({
  orgId: z.string(),
  role: z.string(),
  permissions: z.array(z.string()),
  updatedAt: z.string()
})
export type RoleMapping = z.infer<typeof RoleMapping>

/** Query of `GET /api/core/roles`. */
export const ListRoleMappingsQuery = z.object({ orgId: NonEmptyId })

/** Answer of `GET /api/core/roles`, ordered by role. */
export const RoleMappingList = z.object({ data: z.array(RoleMapping) })
export type RoleMappingList = z.infer<typeof RoleMappingList>

/** Path of `DELETE /api/core/roles/{orgId}/{role}`. */
export const RoleMappingParams = z.object({ orgId: naming(NonEmptyId, "Organization not found"), role: naming(NonEmptyName, "Role mapping not found") })

/** `POST /api/core/grants`: `granted: true` grants a permission, `false` denies it. */
export const CreateGrantRequest = z.object({
  userId: NonEmptyId,
  orgId: NonEmptyId,
  permission: CataloguePermission,
  granted: z.boolean(),
  grantedBy: NonEmptyId,
  expiresAt: GrantExpiry.optional()
})
export type CreateGrantRequest = z.infer<typeof CreateGrantRequest>

/** A grant or denial. `expiresAt` is epoch seconds or `null`; `active` is false once expired. */
export const Grant = z.object({
  id: z.string(),
  userId: z.string(),
  orgId: z.string(),
  permission: z.string(),
  granted: z.boolean(),
  grantedBy: z.string(),
  expiresAt: z.number().nullable(),
  active: z.boolean(),
  createdAt: z.string()
})
export type Grant = z.infer<typeof Grant>

/** Query of `GET /api/core/grants`. */
export const ListGrantsQuery = z.object({ orgId: NonEmptyId, userId: NonEmptyId.optional() })
export type ListGrantsQuery = z.infer<typeof ListGrantsQuery>

/** Answer of `GET /api/core/grants`, newest first. */
export const GrantList = z.object({ data: z.array(Grant) })
export type GrantList = z.infer<typeof GrantList>

/** Path of the routes addressing one record by id (`DELETE /api/core/grants/{id}`, `/api/core/apikeys/{id}`). */
export const IdParams = z.object({ id: NonEmptyId })
/** The path of one grant. */
export const GrantIdParams = z.object({ id: naming(NonEmptyId, "Grant not found") })
/** The path of one API key. */
export const ApiKeyIdParams = z.object({ id: naming(NonEmptyId, "API key not found") })

/** What an API key looks like: `core_` and 32 random bytes in base64url (43 characters). */
export const API_KEY_PATTERN = /^core_[A-Za-z0-9_-]{43}$/

/**
 * `POST /api/core/apikeys`. `expiresAt` is ISO 8601 and must lie in the future. Without
 * `permissions` a key gets the catalogue's read permissions its creator holds (`API_KEY_DEFAULT`,
 * decision 0595); an explicit `[]` is a key that holds nothing.
 */
export const CreateApiKeyRequest = z.object({
  name: NonEmptyText.max(100).optional(),
  organizationId: NonEmptyId,
  platformId: NonEmptyId.optional(),
  permissions: z.array(CataloguePermission).max(LIST_MAX_ITEMS).optional(),
  expiresAt: IsoTimestamp.optional()
})
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequest>

/** An API key as listed: never the key nor its hash; `start` is its first characters. */
export const ApiKey = z.object({
  id: z.string(),
  name: z.string().nullable(),
  start: z.string(),
  organizationId: z.string(),
  platformId: z.string(),
  permissions: z.array(z.string()),
  createdBy: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdAt: z.string()
})
export type ApiKey = z.infer<typeof ApiKey>

/** 201 answer of `POST /api/core/apikeys`: the only time `key` is ever shown. */
export const CreatedApiKey = ApiKey.extend({ key: z.string() })
export type CreatedApiKey = z.infer<typeof CreatedApiKey>

/** Query of `GET /api/core/apikeys`. */
export const ListApiKeysQuery = z.object({ organizationId: NonEmptyId })

/** Answer of `GET /api/core/apikeys`, newest first, revoked keys included. */
export const ApiKeyList = z.object({ data: z.array(ApiKey) })
export type ApiKeyList = z.infer<typeof ApiKeyList>

/** `POST /api/core/apikey/validate`. */
export const ValidateApiKeyRequest = z.object({ key: NonEmptyId })
export type ValidateApiKeyRequest = z.infer<typeof ValidateApiKeyRequest>

/** Answer of a valid key; unknown, revoked and expired keys answer 401 `UNAUTHORIZED`. */
export const ApiKeyValidation = z.object({
  valid: z.literal(true),
  keyId: z.string(),
  organizationId: z.string(),
  platformId: z.string(),
  permissions: z.array(z.string()),
  platformStatus: PlatformStatusValue
})
export type ApiKeyValidation = z.infer<typeof ApiKeyValidation>

/** `POST /api/core/service-token`. */
export const ServiceTokenRequest = z.object({
  serviceId: NonEmptyId,
  targetService: NonEmptyId
})
export type ServiceTokenRequest = z.infer<typeof ServiceTokenRequest>

/** A short-lived service token; `expiresAt` is ISO 8601, `expiresIn` seconds. */
export const ServiceToken = z.object({
  token: z.string(),
  tokenType: z.literal("Bearer"),
  expiresAt: z.string(),
  expiresIn: z.number().int()
})
export type ServiceToken = z.infer<typeof ServiceToken>

/** `GET /.well-known/jwks.json`: the public keys that sign service tokens. */
export const Jwks = z.object({
  keys: z.array(z.object({ kid: z.string(), kty: z.string(), alg: z.string(), use: z.literal("sig") }).loose())
})
export type Jwks = z.infer<typeof Jwks>

/** `POST /internal/platform-status`. */
export const SetPlatformStatusRequest = z.object({
  platformId: NonEmptyId,
  status: PlatformStatusValue
})
export type SetPlatformStatusRequest = z.infer<typeof SetPlatformStatusRequest>

/** The status of a platform as identity knows it. `updatedAt` is ISO 8601. */
export const PlatformStatusRecord = z.object({
  platformId: z.string(),
  status: PlatformStatusValue,
  updatedAt: z.string()
})
export type PlatformStatusRecord = z.infer<typeof PlatformStatusRecord>

/** Who acted in an audit entry. */
export const AuditActorType = z.enum(["user", "apikey", "service", "anonymous", "system"])

/** One audit log entry. `occurredAt` is ISO 8601. */
export const AuditEntry = z.object({
  id: z.string(),
  occurredAt: z.string(),
  action: z.string(),
  outcome: z.enum(["success", "failure"]),
  actorId: z.string().nullable(),
  actorType: AuditActorType,
  organizationId: z.string().nullable(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  requestId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable()
})
export type AuditEntry = z.infer<typeof AuditEntry>

/**
 * Query of `GET /api/audit/events`: `actor` is a user id or `me`; `action` is exact or a prefix
 * ending in `.*` (`session.*`); `from`/`to` are ISO 8601 (from inclusive, to exclusive).
 */
export const ListAuditQuery = z.object({
  actor: NonEmptyId.optional(),
  action: NonEmptyText.max(200).regex(/^[a-z0-9_.-]+(\.\*)?$/, "Must be an action or a prefix ending in .*").optional(),
  organizationId: NonEmptyId.optional(),
  from: IsoTimestamp.optional(),
  to: IsoTimestamp.optional(),
  cursor: cursorParam,
  limit: limitParam()
})
export type ListAuditQuery = z.infer<typeof ListAuditQuery>
/** What a client sends as the audit query (`limit` may be left out). */
export type ListAuditQueryInput = Omit<z.input<typeof ListAuditQuery>, "limit"> & { readonly limit?: number }

/** A page of audit entries, newest first; `nextCursor` is `null` on the last page. */
export const AuditPage = cursorPage(AuditEntry)
export type AuditPage = z.infer<typeof AuditPage>

/** `iss` of every service token: a constant, so all processes of a deployment agree on it. */
export const SERVICE_TOKEN_ISSUER = "core-iam"

/** Lifetime of a service token: five minutes. */
export const SERVICE_TOKEN_TTL_SECONDS = 300
