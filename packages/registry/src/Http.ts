import { Registry, RegistryService } from "@core/contracts"
import { Route } from "@core/kernel"
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { Entities, type EntityRow, entityEtagOf, toEntityRecord } from "./Entities.js"
import type { LifecycleAction } from "./Lifecycle.js"
import { etagOf, Platforms, toEventRecord, toRecord } from "./Platforms.js"
import { FeatureHandlers } from "./FeaturesHttp.js"
import type { PlatformRow } from "./PlatformsRepo.js"
import { ResourceHandlers } from "./ResourcesHttp.js"
import { OnboardingHandlers } from "./OnboardingHttp.js"

/** A platform answered with its `ETag` (decision 0229). */
const withEtag = (row: PlatformRow, status = 200) => Route.json(toRecord(row), { status, headers: { etag: etagOf(row) } })

/** An entity answered with its `ETag` (decision 0261). */
const entityWithEtag = (row: EntityRow, status = 200) => Route.json(toEntityRecord(row), { status, headers: { etag: entityEtagOf(row) } })

/** The request's `If-Match`, if any. */
const ifMatchOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => request.headers["if-match"]

const lifecycle = (route: typeof Registry.PlatformRoutes.suspendPlatform, action: LifecycleAction) =>
  Route.handle(route, ({ caller, params, body, request }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return withEtag(yield* platforms.changeLifecycle(caller, params.platformId, action, body.reason, ifMatchOf(request)))
    }))

/** The registry's routes, one `handle` per catalogued route (`Registry.RegistryRoutes`). */
export const RegistryHandlers = [
  Route.handle(Registry.PlatformRoutes.listPlatforms, ({ caller, query }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      const page = yield* platforms.list(caller, query)
      return { data: page.data.map(toRecord), pagination: page.pagination }
    })),
  Route.handle(Registry.PlatformRoutes.createPlatform, ({ body }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return withEtag(yield* platforms.create(body), 201)
    })),
  Route.handle(Registry.PlatformRoutes.getPlatform, ({ caller, params }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return withEtag(yield* platforms.read(caller, params.platformId))
    })),
  Route.handle(Registry.PlatformRoutes.updatePlatform, ({ body, caller, params, request }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return withEtag(yield* platforms.update(caller, params.platformId, body, ifMatchOf(request)))
    })),
  Route.handle(Registry.PlatformRoutes.deletePlatform, ({ caller, params, request }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      yield* platforms.changeLifecycle(caller, params.platformId, "softDelete", undefined, ifMatchOf(request))
      return { success: true as const }
    })),
  lifecycle(Registry.PlatformRoutes.suspendPlatform, "suspend"),
  lifecycle(Registry.PlatformRoutes.restorePlatform, "restore"),
  lifecycle(Registry.PlatformRoutes.cancelPlatform, "cancel"),
  lifecycle(Registry.PlatformRoutes.hardDeletePlatform, "delete"),
  Route.handle(Registry.PlatformRoutes.listPlatformLifecycle, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      const page = yield* platforms.events(caller, params.platformId, query)
      return { data: page.data.map(toEventRecord), pagination: page.pagination }
    })),
  Route.handle(Registry.EntityRoutes.listEntities, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const entities = yield* Entities
      const page = yield* entities.list(caller, params.platformId, query)
      return { data: page.data.map(toEntityRecord), pagination: page.pagination }
    })),
  Route.handle(Registry.EntityRoutes.createEntity, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const entities = yield* Entities
      return entityWithEtag(yield* entities.create(caller, params.platformId, body), 201)
    })),
  Route.handle(Registry.EntityRoutes.getEntity, ({ caller, params }) =>
    Effect.gen(function*() {
      const entities = yield* Entities
      return entityWithEtag(yield* entities.get(caller, params.platformId, params.entityId))
    })),
  Route.handle(Registry.EntityRoutes.updateEntity, ({ body, caller, params, request }) =>
    Effect.gen(function*() {
      const entities = yield* Entities
      return entityWithEtag(yield* entities.update(caller, params.platformId, params.entityId, body, ifMatchOf(request)))
    })),
  Route.handle(Registry.EntityRoutes.deleteEntity, ({ caller, params, query, request }) =>
    Effect.gen(function*() {
      const entities = yield* Entities
      yield* entities.remove(caller, params.platformId, params.entityId, query.cascade === "true", ifMatchOf(request))
      return { success: true as const }
    })),
  Route.handle(Registry.EntityRoutes.listEntityAncestors, ({ caller, params }) =>
    Effect.gen(function*() {
      const entities = yield* Entities
      return { data: (yield* entities.ancestors(caller, params.platformId, params.entityId)).map(toEntityRecord) }
    })),
  Route.handle(Registry.EntityRoutes.listEntityDescendants, ({ caller, params }) =>
    Effect.gen(function*() {
      const entities = yield* Entities
      return { data: (yield* entities.descendants(caller, params.platformId, params.entityId)).map(toEntityRecord) }
    })),
  ...ResourceHandlers,
  ...FeatureHandlers,
  ...OnboardingHandlers
]

/**
 * The registry as an app: its routes at their documented paths under `/api/v1/platforms`, and at the
 * paths the gateway forwards with that prefix stripped (DESIGN §3). The resource family under
 * `/api/v1/resources` and the lookups are served at their whole paths, which the gateway forwards as they are.
 */
export const RegistryRouter = Route.router(RegistryHandlers, { base: RegistryService.base })
