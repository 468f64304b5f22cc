import { defineRoutes } from "../Routes.js"
import { DnsRecordRoutes, ResourceRoutes, SecretRoutes } from "./resources.js"
import { FeatureRoutes } from "./features.js"
import { OnboardingRoutes } from "./onboarding.js"
import {
  CreateEntityRequest,
  CreatePlatformRequest,
  DeleteEntityQuery,
  EntitiesParams,
  EntityList,
  EntityPage,
  EntityParams,
  EntityRecord,
  ListEntitiesQuery,
  UpdateEntityRequest,
  LifecycleActionRequest,
  LifecyclePage,
  LifecycleQuery,
  ListPlatformsQuery,
  PlatformPage,
  PlatformParams,
  PlatformRecord,
  SuccessResponse,
  UpdatePlatformRequest
} from "./schemas.js"

const tags = ["registry: platforms"]

/** A platform read or change: another tenant's platform answers 404 (never 403). */
const onePlatform = { 400: null, 401: null, 403: null, 404: null } as const

/** One platform, with its `ETag` (its version; decision 0229). */
const taggedPlatform = { schema: PlatformRecord, headers: { etag: "The platform's version, for If-Match" } }

/** A conditional change: a stale `If-Match` answers 412 `PRECONDITION_FAILED`. */
const conditional = { 412: null } as const

/** A lifecycle action on one platform (`reason` optional); 409 `INVALID_STATE` for a forbidden transition. */
const lifecycleAction = (action: string, summary: string, description: string) => ({
  method: "POST" as const,
  path: `/api/v1/platforms/{platformId}/${action}`,
  summary,
  description,
  auth: "caller" as const,
  permission: "platforms:manage" as const,
  tenant: "organization" as const,
  request: { params: PlatformParams, body: LifecycleActionRequest },
  responses: { 200: taggedPlatform, ...onePlatform, 409: null, ...conditional },
  tags
})

/**
 * The registry's platform routes under `/api/v1/platforms` (the gateway strips that prefix; the
 * registry serves both). Lifecycle: docs/registry.md.
 */
export const PlatformRoutes = defineRoutes({
  listPlatforms: {
    method: "GET",
    path: "/api/v1/platforms",
    summary: "List platforms (a tenant sees its own; operators and the service key see all)",
    description: "A cursor-paged list of platforms (`Page` with `hasMore`, `nextCursor`, `total`): a tenant's caller sees the platform of its organization, operators and the static service key see every one. Needs `platforms:read`.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { query: ListPlatformsQuery },
    responses: { 200: PlatformPage, 400: null, 401: null, 403: null },
    tags
  },
  createPlatform: {
    method: "POST",
    path: "/api/v1/platforms",
    summary: "Create a platform (the service key or an operator; identity's organization setup creates its own)",
    description: "Records a platform with a name and a unique slug, on tier `starter` unless one is given, in status `active`, and answers it with its `ETag`. For operators and the static service key; a tenant's platform is made by identity's organization setup instead. A slug taken is 409.",
    auth: "operator",
    request: { body: CreatePlatformRequest },
    responses: { 201: taggedPlatform, 400: null, 401: null, 403: null, 409: null },
    tags
  },
  getPlatform: {
    method: "GET",
    path: "/api/v1/platforms/{platformId}",
    summary: "Read a platform",
    description: "One platform: name, slug, tier, status, its organization and timestamps, with its `ETag` for a later `If-Match`. Another tenant's platform answers 404, never 403.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { params: PlatformParams },
    responses: { 200: taggedPlatform, ...onePlatform },
    tags
  },
  updatePlatform: {
    method: "PATCH",
    path: "/api/v1/platforms/{platformId}",
    summary: "Rename a platform (owner, admins); change its tier or status (operators, the service key)",
    description: "Changes a platform: its owner and admins rename it; operators and the static service key also change its tier or status. `If-Match` with a stale `ETag` is 412; a transition its status forbids is 409 INVALID_STATE.",
    auth: "caller",
    permission: "platforms:manage",
    tenant: "organization",
    request: { params: PlatformParams, body: UpdatePlatformRequest },
    responses: { 200: taggedPlatform, ...onePlatform, 409: null, ...conditional },
    tags
  },
  deletePlatform: {
    method: "DELETE",
    path: "/api/v1/platforms/{platformId}",
    summary: "Soft-delete a platform (operators, the service key)",
    description: "Marks a platform deleted (soft: the record stays, lists leave it out); for operators and the static service key. Honours `If-Match` (412 when stale).",
    auth: "caller",
    permission: "platforms:manage",
    tenant: "organization",
    request: { params: PlatformParams },
    responses: { 200: SuccessResponse, ...onePlatform, 409: null, ...conditional },
    tags
  },
  suspendPlatform: lifecycleAction("suspend", "Suspend a platform (operators, the service key): active → suspended",
    "Its callers then get 451 PLATFORM_SUSPENDED at the gateway (sign-out, the session and billing excepted) and its edge " +
      "resources are suspended; an optional `reason` is kept in the lifecycle. From any other status 409 INVALID_STATE; " +
      "a stale `If-Match` 412."),
  restorePlatform: lifecycleAction("restore", "Restore a suspended platform (operators, the service key): suspended → active",
    "Its callers and its edge resources work again. From any other status 409 INVALID_STATE; a stale `If-Match` 412."),
  cancelPlatform: lifecycleAction("cancel", "Cancel a platform (owner, admins, operators): active | suspended → cancelled",
    "The tenant ends its own platform (an operator may too), with an optional `reason` kept in the lifecycle. From " +
      "`cancelled` or `deleted` 409 INVALID_STATE; a stale `If-Match` 412."),
  hardDeletePlatform: lifecycleAction("delete", "Hard-delete a platform (operators, the service key): any → deleted",
    "Ends a platform for good from any status, recorded in its lifecycle; only operators and the static service key. " +
      "Already `deleted`: 409 INVALID_STATE."),
  listPlatformLifecycle: {
    method: "GET",
    path: "/api/v1/platforms/{platformId}/lifecycle",
    summary: "The platform's lifecycle events, oldest first",
    description: "The platform's lifecycle events, oldest first: each status change with its time, from and to, and who made it.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { params: PlatformParams, query: LifecycleQuery },
    responses: { 200: LifecyclePage, ...onePlatform },
    tags
  }
})

const entityTags = ["registry: entities"]
const entities = "/api/v1/platforms/{platformId}/entities"
/** Another tenant's platform or entity answers 404 (never 403). */
const oneEntity = { 400: null, 401: null, 403: null, 404: null } as const
const readEntity = { auth: "caller", permission: "entities:read", tenant: "organization", tags: entityTags } as const
const writeEntity = { auth: "caller", permission: "entities:manage", tenant: "organization", tags: entityTags } as const
/** One entity, with its `ETag` (its version; decision 0261). */
const taggedEntity = { schema: EntityRecord, headers: { etag: "The entity's version, for If-Match" } }

/**
 * A platform's tenants and subtenants: a tree of depth at most 16, slugs unique among
 * siblings; the owner and admins write, members read, operators and the service key do all.
 */
export const EntityRoutes = defineRoutes({
  listEntities: {
    method: "GET",
    path: entities,
    summary: "List a platform's entities (filters type, status, parentId)",
    description: "A cursor-paged list of a platform's entities (tenants and subtenants), filtered by `type`, `status` or `parentId`. Needs `entities:read`; another tenant's platform answers 404.",
    ...readEntity,
    request: { params: EntitiesParams, query: ListEntitiesQuery },
    responses: { 200: EntityPage, ...oneEntity }
  },
  createEntity: {
    method: "POST",
    path: entities,
    summary: "Create a tenant (at the root) or a subtenant (under parentId)",
    description: "Creates a tenant at the platform's root, or a subtenant under `parentId`, with a name, a slug unique among its siblings (409 when taken) and a type. Needs `entities:manage`.",
    ...writeEntity,
    request: { params: EntitiesParams, body: CreateEntityRequest },
    responses: { 201: taggedEntity, ...oneEntity, 409: null }
  },
  getEntity: {
    method: "GET",
    path: `${entities}/{entityId}`,
    summary: "Read an entity",
    description: "One entity with its parent, path and status, and its `ETag`. Needs `entities:read`; another tenant's entity answers 404.",
    ...readEntity,
    request: { params: EntityParams },
    responses: { 200: taggedEntity, ...oneEntity }
  },
  updateEntity: {
    method: "PATCH",
    path: `${entities}/{entityId}`,
    summary: "Rename an entity or set its status",
    description: "Renames an entity or sets its status (`active`, `suspended`). `If-Match` with a stale `ETag` is 412. Needs `entities:manage`.",
    ...writeEntity,
    request: { params: EntityParams, body: UpdateEntityRequest },
    responses: { 200: taggedEntity, ...oneEntity, 409: null, ...conditional }
  },
  deleteEntity: {
    method: "DELETE",
    path: `${entities}/{entityId}`,
    summary: "Soft-delete an entity (409 while it has live children, unless cascade=true)",
    description: "Soft-deletes an entity. While it has live children it answers 409, unless `cascade=true` deletes its whole subtree. Needs `entities:manage`.",
    ...writeEntity,
    request: { params: EntityParams, query: DeleteEntityQuery },
    responses: { 200: SuccessResponse, ...oneEntity, 409: null, ...conditional }
  },
  listEntityAncestors: {
    method: "GET",
    path: `${entities}/{entityId}/ancestors`,
    summary: "The entity's ancestors, from the root",
    description: "The entity's ancestors from the platform's root down to its parent, for breadcrumbs. Needs `entities:read`.",
    ...readEntity,
    request: { params: EntityParams },
    responses: { 200: EntityList, ...oneEntity }
  },
  listEntityDescendants: {
    method: "GET",
    path: `${entities}/{entityId}/descendants`,
    summary: "The entity's descendants, from the nearest level down",
    description: "The entity's descendants, the nearest level first, each with its depth. Needs `entities:read`.",
    ...readEntity,
    request: { params: EntityParams },
    responses: { 200: EntityList, ...oneEntity }
  }
})

/** Every route of the registry. */
export const RegistryRoutes = { ...PlatformRoutes, ...EntityRoutes, ...FeatureRoutes, ...ResourceRoutes, ...DnsRecordRoutes, ...SecretRoutes, ...OnboardingRoutes } as const
