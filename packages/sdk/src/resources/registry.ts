import type { Registry } from "@core/contracts"
import {
  DnsRecordRouteRefs,
  EntityRouteRefs,
  FeatureRouteRefs,
  LookupRouteRefs,
  OnboardingRouteRefs,
  PlatformRouteRefs,
  ResourceFamilyRouteRefs,
  ResourceRouteRefs,
  SecretRouteRefs
} from "@core/contracts/routes"
import { type CallOptions, type CallResult, type PageItem, routeCaller } from "../call.js"
import type { Transport } from "../transport.js"

/** Per-call options of the registry's methods (`headers` carries an `If-Match`). */
export type RegistryCallOptions = Pick<CallOptions, "signal" | "headers" | "idempotencyKey">

const Routes: typeof PlatformRouteRefs = PlatformRouteRefs
const EntityRoutes: typeof EntityRouteRefs = EntityRouteRefs

/** The query of `platforms.list` and `platforms.all`: `cursor`, `limit` (1 to 100), and filters. */
export interface ListPlatformsQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly status?: Registry.PlatformStatus
  readonly tier?: Registry.PlatformTier
  readonly slug?: string
}

/** The query of `platforms.lifecycle`: `cursor` and `limit`. */
export interface LifecycleQuery {
  readonly cursor?: string
  readonly limit?: number
}

/**
 * The registry's platforms (`client.registry.platforms`, `/api/v1/platforms`), one method per route
 * of `Registry.PlatformRoutes` (named in each comment).
 */
export interface RegistryPlatforms {
  /** `listPlatforms`: one page (`{ data, pagination: { hasMore, nextCursor, total } }`). */
  readonly list: (query?: ListPlatformsQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.listPlatforms>>
  /** `listPlatforms`, every page: `for await (const platform of client.registry.platforms.all())`. */
  readonly all: (query?: Omit<ListPlatformsQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof Routes.listPlatforms>, void, undefined>
  /** `createPlatform`: operators and the service key. */
  readonly create: (input: Registry.CreatePlatformRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.createPlatform>>
  /** `getPlatform`: another tenant's platform is a `NotFoundError`. */
  readonly get: (platformId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.getPlatform>>
  /** `updatePlatform`: rename it; operators change its tier or status. */
  readonly update: (platformId: string, input: Registry.UpdatePlatformRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.updatePlatform>>
  /** `deletePlatform`: soft delete (`DELETE`). */
  readonly delete: (platformId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.deletePlatform>>
  /** `suspendPlatform`: active → suspended. */
  readonly suspend: (platformId: string, input?: Registry.LifecycleActionRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.suspendPlatform>>
  /** `restorePlatform`: suspended → active. */
  readonly restore: (platformId: string, input?: Registry.LifecycleActionRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.restorePlatform>>
  /** `cancelPlatform`: active | suspended → cancelled. */
  readonly cancel: (platformId: string, input?: Registry.LifecycleActionRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.cancelPlatform>>
  /** `hardDeletePlatform`: any → deleted (`POST …/delete`). */
  readonly hardDelete: (platformId: string, input?: Registry.LifecycleActionRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.hardDeletePlatform>>
  /** `listPlatformLifecycle`: one page of its lifecycle events, oldest first. */
  readonly lifecycle: (platformId: string, query?: LifecycleQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof Routes.listPlatformLifecycle>>
  /** `listPlatformLifecycle`, every page (`for await`). */
  readonly lifecycleAll: (platformId: string, query?: Omit<LifecycleQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof Routes.listPlatformLifecycle>, void, undefined>
}

/** The query of `entities.list` and `entities.all`: `cursor`, `limit` (1 to 100), and filters. */
export interface ListEntitiesQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly type?: Registry.EntityType
  /** Deleted entities are listed only by `status: "deleted"`. */
  readonly status?: Registry.EntityStatus
  /** Only the children of this entity. */
  readonly parentId?: string
}

/** The options of `entities.remove`: `cascade` soft-deletes its live descendants too. */
export interface RemoveEntityOptions extends RegistryCallOptions {
  readonly cascade?: boolean
}

/**
 * A platform's tenants and subtenants (`client.registry.entities`,
 * `/api/v1/platforms/{platformId}/entities`), one method per route of `Registry.EntityRoutes`
 * (named in each comment). Every method takes the platform first; another tenant's platform or
 * entity is a `NotFoundError`.
 */
export interface RegistryEntities {
  /** `listEntities`: one page (`{ data, pagination: { hasMore, nextCursor, total } }`). */
  readonly list: (platformId: string, query?: ListEntitiesQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof EntityRoutes.listEntities>>
  /** `listEntities`, every page: `for await (const entity of client.registry.entities.all(platformId))`. */
  readonly all: (platformId: string, query?: Omit<ListEntitiesQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof EntityRoutes.listEntities>, void, undefined>
  /** `getEntity`. */
  readonly get: (platformId: string, entityId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof EntityRoutes.getEntity>>
  /** `createEntity`: a `tenant` at the root, or a `subtenant` under `parentId` (16 levels at most). */
  readonly create: (platformId: string, input: Registry.CreateEntityRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof EntityRoutes.createEntity>>
  /** `updateEntity`: rename it or set its status. */
  readonly update: (platformId: string, entityId: string, input: Registry.UpdateEntityRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof EntityRoutes.updateEntity>>
  /** `deleteEntity`: soft delete; a `ConflictError` while it has live children unless `{ cascade: true }`. */
  readonly remove: (platformId: string, entityId: string, options?: RemoveEntityOptions) => Promise<CallResult<typeof EntityRoutes.deleteEntity>>
  /** `listEntityAncestors`: `{ data }`, from the root down to its parent. */
  readonly ancestors: (platformId: string, entityId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof EntityRoutes.listEntityAncestors>>
  /** `listEntityDescendants`: `{ data }`, from its children down. */
  readonly descendants: (platformId: string, entityId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof EntityRoutes.listEntityDescendants>>
}

/** The query of `resources.list` and `resources.all`: `cursor`, `limit` (1 to 100), and the filters `resourceType`, `environment`, `status`, `entityId`. */
export interface ListResourcesQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly resourceType?: Registry.ResourceType
  readonly environment?: Registry.ResourceEnvironment
  /** Deleted resources are listed only by `status: "deleted"`. */
  readonly status?: Registry.ResourceStatus
  readonly entityId?: string
}

/** The query of `resources.listForEntity` and `resources.allForEntity`: the same without `entityId`. */
export type ListEntityResourcesQuery = Omit<ListResourcesQuery, "entityId">

/**
 * A platform's resources (`client.registry.resources`, under `/api/v1/platforms/{platformId}`, and
 * `client.registry.resourceFamily`, the same methods under `/api/v1/resources/platforms/{platformId}`):
 * one method per route of `Registry.ResourceRoutes` (or `ResourceFamilyRoutes`), named in each comment.
 * Another tenant's platform, entity or resource is a `NotFoundError`.
 */
export interface RegistryResources {
  /** `listResources`: one page (`{ data, pagination: { hasMore, nextCursor, total } }`). */
  readonly list: (platformId: string, query?: ListResourcesQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof ResourceRouteRefs.listResources>>
  /** `listResources`, every page: `for await (const resource of client.registry.resources.all(platformId))`. */
  readonly all: (platformId: string, query?: Omit<ListResourcesQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof ResourceRouteRefs.listResources>, void, undefined>
  /** `listEntityResources`: one page of one entity's resources. */
  readonly listForEntity: (platformId: string, entityId: string, query?: ListEntityResourcesQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof ResourceRouteRefs.listEntityResources>>
  /** `listEntityResources`, every page. */
  readonly allForEntity: (platformId: string, entityId: string, query?: Omit<ListEntityResourcesQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof ResourceRouteRefs.listEntityResources>, void, undefined>
  /** `createResource`: a `pending` resource of a live entity; a `ConflictError` when its `edgeName` is taken. */
  readonly create: (platformId: string, entityId: string, input: Registry.CreateResourceRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof ResourceRouteRefs.createResource>>
  /** `getResource`. */
  readonly get: (platformId: string, resourceId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof ResourceRouteRefs.getResource>>
  /** `updateResource`: set its `status` (any of the seed's, an operator's repair) or `edgeUrl`; `headers: { "if-match": etag }` for a conditional update (412 when stale). */
  readonly update: (platformId: string, resourceId: string, input: Registry.UpdateResourceRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof ResourceRouteRefs.updateResource>>
  /** `deleteResource`: soft delete. */
  readonly remove: (platformId: string, resourceId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof ResourceRouteRefs.deleteResource>>
  /** `lookupResource`: the live resource of an edge name (`?edgeName=`); none visible to the caller is a `NotFoundError`. */
  readonly lookup: (edgeName: string, options?: RegistryCallOptions) => Promise<CallResult<typeof LookupRouteRefs.lookupResource>>
}

/** The query of `dnsRecords.list` and `dnsRecords.all`: `cursor`, `limit`, and the filters `type` and `name`. */
export interface ListDnsRecordsQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly type?: Registry.DnsRecordType
  readonly name?: string
}

/** A platform's DNS records (`client.registry.dnsRecords`, `/api/v1/platforms/{platformId}/dns-records`), one method per route of `Registry.DnsRecordRoutes`. */
export interface RegistryDnsRecords {
  /** `listDnsRecords`: one page. */
  readonly list: (platformId: string, query?: ListDnsRecordsQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof DnsRecordRouteRefs.listDnsRecords>>
  /** `listDnsRecords`, every page. */
  readonly all: (platformId: string, query?: Omit<ListDnsRecordsQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof DnsRecordRouteRefs.listDnsRecords>, void, undefined>
  /** `createDnsRecord`: applied through the edge provider; a `ConflictError` for the same type, name and content. Its `id` is provisioning's `targetDnsRecordId`. */
  readonly create: (platformId: string, input: Registry.CreateDnsRecordRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof DnsRecordRouteRefs.createDnsRecord>>
  /** `getDnsRecord`. */
  readonly get: (platformId: string, recordId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof DnsRecordRouteRefs.getDnsRecord>>
  /** `deleteDnsRecord`: removed from the edge provider too. */
  readonly remove: (platformId: string, recordId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof DnsRecordRouteRefs.deleteDnsRecord>>
}

/** The query of `secrets.list` and `secrets.all`: `cursor`, `limit`, and `status` (deleted ones only with `status: "deleted"`). */
export interface ListSecretsQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly status?: Registry.SecretStatus
}

/**
 * A resource's secrets (`client.registry.secrets`, `/api/v1/platforms/{platformId}/resources/{resourceId}/secrets`),
 * one method per route of `Registry.SecretRoutes`. No route ever answers a value.
 */
export interface RegistrySecrets {
  /** `listResourceSecrets`: one page of names, statuses and `lastSetAt`. */
  readonly list: (platformId: string, resourceId: string, query?: ListSecretsQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof SecretRouteRefs.listResourceSecrets>>
  /** `listResourceSecrets`, every page. */
  readonly all: (platformId: string, resourceId: string, query?: Omit<ListSecretsQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof SecretRouteRefs.listResourceSecrets>, void, undefined>
  /** `setResourceSecret`: stores `value` encrypted (a new secret or a replaced one); answers the record, never the value. */
  readonly set: (platformId: string, resourceId: string, secretName: string, value: string, options?: RegistryCallOptions) => Promise<CallResult<typeof SecretRouteRefs.setResourceSecret>>
  /** `deleteResourceSecret`: the value erased, the record kept as `deleted`. */
  readonly remove: (platformId: string, resourceId: string, secretName: string, options?: RegistryCallOptions) => Promise<CallResult<typeof SecretRouteRefs.deleteResourceSecret>>
}

/** The query of `features.list` and `features.all`: `cursor`, `limit`, and the filters `environment`, `status`, `featureId`. */
export interface ListFeaturesQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly environment?: Registry.Environment
  readonly status?: Registry.FeatureActivationStatus
  readonly featureId?: string
}

/**
 * An entity's feature activations and manifest (`client.registry.features`,
 * `/api/v1/platforms/{platformId}/entities/{entityId}/features`), one method per route of `Registry.FeatureRoutes`.
 */
export interface RegistryFeatures {
  /** `listFeatures`: one page of activations. */
  readonly list: (platformId: string, entityId: string, query?: ListFeaturesQuery, options?: RegistryCallOptions) => Promise<CallResult<typeof FeatureRouteRefs.listFeatures>>
  /** `listFeatures`, every page. */
  readonly all: (platformId: string, entityId: string, query?: Omit<ListFeaturesQuery, "cursor">, options?: RegistryCallOptions) => AsyncGenerator<PageItem<typeof FeatureRouteRefs.listFeatures>, void, undefined>
  /** `activateFeature`: a new `pending` activation and its provisioning job (202), or the one already active or pending (200). */
  readonly activate: (platformId: string, entityId: string, input: Registry.ActivateFeatureRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof FeatureRouteRefs.activateFeature>>
  /** `deactivateFeature`: the activation becomes `deactivating`, then `deactivated`. */
  readonly deactivate: (platformId: string, entityId: string, input: Registry.DeactivateFeatureRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof FeatureRouteRefs.deactivateFeature>>
  /** `getFeature`: one activation (poll it until `active` or `failed`). */
  readonly get: (platformId: string, entityId: string, activationId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof FeatureRouteRefs.getFeature>>
  /** `getManifest`: the entity's active features in an environment (default `prod`). */
  readonly manifest: (platformId: string, entityId: string, query?: { readonly environment?: Registry.Environment }, options?: RegistryCallOptions) => Promise<CallResult<typeof FeatureRouteRefs.getManifest>>
}

/** Onboarding flows (`client.registry.onboarding`, `/api/v1/onboarding`), one method per route of `Registry.OnboardingRoutes`. */
export interface RegistryOnboarding {
  /** `startOnboarding`: operators and the service key; the flow (`pending`) with its platform created and its `onboard` job queued; a `ConflictError` for a slug taken. */
  readonly start: (input: Registry.StartOnboardingRequest, options?: RegistryCallOptions) => Promise<CallResult<typeof OnboardingRouteRefs.startOnboarding>>
  /** `getOnboarding`: its status, steps and progress (poll it until `completed` or `failed`); another tenant's flow is a `NotFoundError`. */
  readonly get: (onboardingId: string, options?: RegistryCallOptions) => Promise<CallResult<typeof OnboardingRouteRefs.getOnboarding>>
}

/** The registry's namespace (`client.registry`). */
export interface RegistryClient {
  readonly platforms: RegistryPlatforms
  /** A platform's tenants and subtenants: the same object as `entities`, by the guide's and the CLI's word (`core tenants`). */
  readonly tenants: RegistryEntities
  /** A platform's tenants and subtenants, by the routes' word (`/entities`); `tenants` is the same object. */
  readonly entities: RegistryEntities
  /** Resources under `/api/v1/platforms/{platformId}`; the lookup at `/api/v1/lookup`. */
  readonly resources: RegistryResources
  /** The same resource methods under the seed's other family, `/api/v1/resources/platforms/{platformId}`; the lookup at `/api/v1/resources/lookup`. */
  readonly resourceFamily: RegistryResources
  readonly dnsRecords: RegistryDnsRecords
  readonly secrets: RegistrySecrets
  readonly features: RegistryFeatures
  readonly onboarding: RegistryOnboarding
}

/** `client.registry` on `transport`, under `basePath` (the routes' own `/api/v1/platforms` by default). */
export const registry = (transport: Transport, basePath?: string): RegistryClient => {
  const { call, pages } = routeCaller(transport, { basePath })
  const resources = (refs: typeof ResourceRouteRefs, lookup: typeof LookupRouteRefs.lookupResource): RegistryResources => ({
    list: (platformId, query = {}, options) => call(refs.listResources, { params: { platformId }, query }, options),
    all: (platformId, query = {}, options) => pages(refs.listResources, { params: { platformId }, query }, options),
    listForEntity: (platformId, entityId, query = {}, options) => call(refs.listEntityResources, { params: { platformId, entityId }, query }, options),
    allForEntity: (platformId, entityId, query = {}, options) => pages(refs.listEntityResources, { params: { platformId, entityId }, query }, options),
    create: (platformId, entityId, input, options) => call(refs.createResource, { params: { platformId, entityId }, body: input }, options),
    get: (platformId, resourceId, options) => call(refs.getResource, { params: { platformId, resourceId } }, options),
    update: (platformId, resourceId, input, options) => call(refs.updateResource, { params: { platformId, resourceId }, body: input }, options),
    remove: (platformId, resourceId, options) => call(refs.deleteResource, { params: { platformId, resourceId } }, options),
    lookup: (edgeName, options) => call(lookup, { query: { edgeName } }, options)
  })
  const entities: RegistryEntities = {
    list: (platformId, query = {}, options) => call(EntityRoutes.listEntities, { params: { platformId }, query }, options),
    all: (platformId, query = {}, options) => pages(EntityRoutes.listEntities, { params: { platformId }, query }, options),
    get: (platformId, entityId, options) => call(EntityRoutes.getEntity, { params: { platformId, entityId } }, options),
    create: (platformId, input, options) => call(EntityRoutes.createEntity, { params: { platformId }, body: input }, options),
    update: (platformId, entityId, input, options) => call(EntityRoutes.updateEntity, { params: { platformId, entityId }, body: input }, options),
    remove: (platformId, entityId, { cascade, ...options } = {}) =>
      call(EntityRoutes.deleteEntity, { params: { platformId, entityId }, query: cascade === true ? { cascade: "true" } : {} }, options),
    ancestors: (platformId, entityId, options) => call(EntityRoutes.listEntityAncestors, { params: { platformId, entityId } }, options),
    descendants: (platformId, entityId, options) => call(EntityRoutes.listEntityDescendants, { params: { platformId, entityId } }, options)
  }
  return {
    platforms: {
      list: (query = {}, options) => call(Routes.listPlatforms, { query }, options),
      all: (query = {}, options) => pages(Routes.listPlatforms, { query }, options),
      create: (input, options) => call(Routes.createPlatform, { body: input }, options),
      get: (platformId, options) => call(Routes.getPlatform, { params: { platformId } }, options),
      update: (platformId, input, options) => call(Routes.updatePlatform, { params: { platformId }, body: input }, options),
      delete: (platformId, options) => call(Routes.deletePlatform, { params: { platformId } }, options),
      suspend: (platformId, input = {}, options) => call(Routes.suspendPlatform, { params: { platformId }, body: input }, options),
      restore: (platformId, input = {}, options) => call(Routes.restorePlatform, { params: { platformId }, body: input }, options),
      cancel: (platformId, input = {}, options) => call(Routes.cancelPlatform, { params: { platformId }, body: input }, options),
      hardDelete: (platformId, input = {}, options) => call(Routes.hardDeletePlatform, { params: { platformId }, body: input }, options),
      lifecycle: (platformId, query = {}, options) => call(Routes.listPlatformLifecycle, { params: { platformId }, query }, options),
      lifecycleAll: (platformId, query = {}, options) => pages(Routes.listPlatformLifecycle, { params: { platformId }, query }, options)
    },
    tenants: entities,
    entities,
    resources: resources(ResourceRouteRefs, LookupRouteRefs.lookupResource),
    // The family's refs differ from ResourceRouteRefs only in their paths (and the lookup's).
    resourceFamily: resources(ResourceFamilyRouteRefs as unknown as typeof ResourceRouteRefs, ResourceFamilyRouteRefs.lookupResource as unknown as typeof LookupRouteRefs.lookupResource),
    dnsRecords: {
      list: (platformId, query = {}, options) => call(DnsRecordRouteRefs.listDnsRecords, { params: { platformId }, query }, options),
      all: (platformId, query = {}, options) => pages(DnsRecordRouteRefs.listDnsRecords, { params: { platformId }, query }, options),
      create: (platformId, input, options) => call(DnsRecordRouteRefs.createDnsRecord, { params: { platformId }, body: input }, options),
      get: (platformId, recordId, options) => call(DnsRecordRouteRefs.getDnsRecord, { params: { platformId, recordId } }, options),
      remove: (platformId, recordId, options) => call(DnsRecordRouteRefs.deleteDnsRecord, { params: { platformId, recordId } }, options)
    },
    secrets: {
      list: (platformId, resourceId, query = {}, options) => call(SecretRouteRefs.listResourceSecrets, { params: { platformId, resourceId }, query }, options),
      all: (platformId, resourceId, query = {}, options) => pages(SecretRouteRefs.listResourceSecrets, { params: { platformId, resourceId }, query }, options),
      set: (platformId, resourceId, secretName, value, options) =>
        call(SecretRouteRefs.setResourceSecret, { params: { platformId, resourceId, secretName }, body: { value } }, options),
      remove: (platformId, resourceId, secretName, options) => call(SecretRouteRefs.deleteResourceSecret, { params: { platformId, resourceId, secretName } }, options)
    },
    features: {
      list: (platformId, entityId, query = {}, options) => call(FeatureRouteRefs.listFeatures, { params: { platformId, entityId }, query }, options),
      all: (platformId, entityId, query = {}, options) => pages(FeatureRouteRefs.listFeatures, { params: { platformId, entityId }, query }, options),
      activate: (platformId, entityId, input, options) => call(FeatureRouteRefs.activateFeature, { params: { platformId, entityId }, body: input }, options),
      deactivate: (platformId, entityId, input, options) => call(FeatureRouteRefs.deactivateFeature, { params: { platformId, entityId }, body: input }, options),
      get: (platformId, entityId, activationId, options) => call(FeatureRouteRefs.getFeature, { params: { platformId, entityId, activationId } }, options),
      manifest: (platformId, entityId, query = {}, options) => call(FeatureRouteRefs.getManifest, { params: { platformId, entityId }, query }, options)
    },
    onboarding: {
      start: (input, options) => call(OnboardingRouteRefs.startOnboarding, { body: input }, options),
      get: (onboardingId, options) => call(OnboardingRouteRefs.getOnboarding, { params: { onboardingId } }, options)
    }
  }
}
