import { EntityRouteRefs } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
import {
  registryDnsRecords,
  registryEntities,
  registryFeatures,
  registryOnboarding,
  registryPlatforms,
  registryResourceFamily,
  registryResources,
  type ListEntityResourcesQuery as EntityResourcesQuery,
  type ListPlatformLifecycleQuery,
  type ListResourceSecretsQuery,
  type RegistryCallOptions,
  type RegistryDnsRecords,
  type RegistryEntities,
  type RegistryFeatures,
  type RegistryOnboarding,
  type RegistryPlatforms,
  type RegistryResources,
  type RegistrySecrets,
  registrySecrets
} from "../generated/registry.js"
import type { Transport } from "../transport.js"

// The methods, their types and docs are generated from the catalogue (src/generated/registry.ts);
// this file adds what is special: `entities.remove`'s `cascade` option, and the namespace itself.
export type {
  ListDnsRecordsQuery,
  ListEntitiesQuery,
  ListFeaturesQuery,
  ListPlatformsQuery,
  ListResourcesQuery,
  RegistryCallOptions,
  RegistryDnsRecords,
  RegistryEntities,
  RegistryFeatures,
  RegistryOnboarding,
  RegistryPlatforms,
  RegistryResources,
  RegistrySecrets
} from "../generated/registry.js"

/** The query of `platforms.lifecycle`: `cursor` and `limit`. */
export type LifecycleQuery = ListPlatformLifecycleQuery

/** The query of `secrets.list` and `secrets.all`: `cursor`, `limit`, and `status` (deleted ones only with `status: "deleted"`). */
export type ListSecretsQuery = ListResourceSecretsQuery

/** The query of `resources.listForEntity` and `resources.allForEntity`. */
export type ListEntityResourcesQuery = EntityResourcesQuery

/** The options of `entities.remove`: `cascade` soft-deletes its live descendants too. */
export interface RemoveEntityOptions extends RegistryCallOptions {
  readonly cascade?: boolean
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
  const caller = routeCaller(transport, { basePath })
  const entities = registryEntities(caller, {
    remove: (platformId, entityId, { cascade, ...options } = {}) =>
      caller.call(EntityRouteRefs.deleteEntity, { params: { platformId, entityId }, query: cascade === true ? { cascade: "true" } : {} }, options)
  })
  return {
    platforms: registryPlatforms(caller),
    tenants: entities,
    entities,
    resources: registryResources(caller),
    resourceFamily: registryResourceFamily(caller),
    dnsRecords: registryDnsRecords(caller),
    secrets: registrySecrets(caller),
    features: registryFeatures(caller),
    onboarding: registryOnboarding(caller)
  }
}
