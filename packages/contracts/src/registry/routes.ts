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
const lifecycleAction = (action: string, summary: string) => ({
  method: "POST" as const,
  path: `/api/v1/platforms/{platformId}/${action}`,
  summary,
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
    auth: "operator",
    request: { body: CreatePlatformRequest },
    responses: { 201: taggedPlatform, 400: null, 401: null, 403: null, 409: null },
    tags
  },
  getPlatform: {
    method: "GET",
    path: "/api/v1/platforms/{platformId}",
    summary: "Read a platform",
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
    auth: "caller",
    permission: "platforms:manage",
    tenant: "organization",
    request: { params: PlatformParams },
    responses: { 200: SuccessResponse, ...onePlatform, 409: null, ...conditional },
    tags
  },
  suspendPlatform: lifecycleAction("suspend", "Suspend a platform (operators, the service key): active → suspended"),
  restorePlatform: lifecycleAction("restore", "Restore a suspended platform (operators, the service key): suspended → active"),
  cancelPlatform: lifecycleAction("cancel", "Cancel a platform (owner, admins, operators): active | suspended → cancelled"),
  hardDeletePlatform: lifecycleAction("delete", "Hard-delete a platform (operators, the service key): any → deleted"),
  listPlatformLifecycle: {
    method: "GET",
    path: "/api/v1/platforms/{platformId}/lifecycle",
    summary: "The platform's lifecycle events, oldest first",
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
 * A platform's tenants and subtenants (seed 002): a tree of depth at most 16, slugs unique among
 * siblings; the owner and admins write, members read, operators and the service key do all.
 */
export const EntityRoutes = defineRoutes({
  listEntities: {
    method: "GET",
    path: entities,
    summary: "List a platform's entities (filters type, status, parentId)",
    ...readEntity,
    request: { params: EntitiesParams, query: ListEntitiesQuery },
    responses: { 200: EntityPage, ...oneEntity }
  },
  createEntity: {
    method: "POST",
    path: entities,
    summary: "Create a tenant (at the root) or a subtenant (under parentId)",
    ...writeEntity,
    request: { params: EntitiesParams, body: CreateEntityRequest },
    responses: { 201: taggedEntity, ...oneEntity, 409: null }
  },
  getEntity: {
    method: "GET",
    path: `${entities}/{entityId}`,
    summary: "Read an entity",
    ...readEntity,
    request: { params: EntityParams },
    responses: { 200: taggedEntity, ...oneEntity }
  },
  updateEntity: {
    method: "PATCH",
    path: `${entities}/{entityId}`,
    summary: "Rename an entity or set its status",
    ...writeEntity,
    request: { params: EntityParams, body: UpdateEntityRequest },
    responses: { 200: taggedEntity, ...oneEntity, 409: null, ...conditional }
  },
  deleteEntity: {
    method: "DELETE",
    path: `${entities}/{entityId}`,
    summary: "Soft-delete an entity (409 while it has live children, unless cascade=true)",
    ...writeEntity,
    request: { params: EntityParams, query: DeleteEntityQuery },
    responses: { 200: SuccessResponse, ...oneEntity, 409: null, ...conditional }
  },
  listEntityAncestors: {
    method: "GET",
    path: `${entities}/{entityId}/ancestors`,
    summary: "The entity's ancestors, from the root",
    ...readEntity,
    request: { params: EntityParams },
    responses: { 200: EntityList, ...oneEntity }
  },
  listEntityDescendants: {
    method: "GET",
    path: `${entities}/{entityId}/descendants`,
    summary: "The entity's descendants, from the nearest level down",
    ...readEntity,
    request: { params: EntityParams },
    responses: { 200: EntityList, ...oneEntity }
  }
})

/** Every route of the registry. */
export const RegistryRoutes = { ...PlatformRoutes, ...EntityRoutes, ...FeatureRoutes, ...ResourceRoutes, ...DnsRecordRoutes, ...SecretRoutes, ...OnboardingRoutes } as const
