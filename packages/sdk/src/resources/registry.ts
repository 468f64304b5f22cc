import type { Registry } from "@core/contracts"
import { EntityRouteRefs, PlatformRouteRefs } from "@core/contracts/routes"
import { type CallOptions, type CallResult, type PageItem, routeCaller } from "../call.js"
import type { Transport } from "../transport.js"

/** Per-call options of the registry's methods (`headers` carries an `If-Match`). */
export type RegistryCallOptions = Pick<CallOptions, "signal" | "headers" | "idempotencyKey">

const Routes = PlatformRouteRefs
const EntityRoutes = EntityRouteRefs

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

/** The registry's namespace (`client.registry`). */
export interface RegistryClient {
  readonly platforms: RegistryPlatforms
  readonly entities: RegistryEntities
}

/** `client.registry` on `transport`, under `basePath` (the routes' own `/api/v1/platforms` by default). */
export const registry = (transport: Transport, basePath?: string): RegistryClient => {
  const { call, pages } = routeCaller(transport, { basePath })
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
      lifecycle: (platformId, query = {}, options) => call(Routes.listPlatformLifecycle, { params: { platformId }, query }, options)
    },
    entities: {
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
  }
}
