import { Registry } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Features, toActivateResponse, toActivationRecord } from "./Features.js"

/** The feature routes (`Registry.FeatureRoutes`), one `handle` each. */
export const FeatureHandlers = [
  Route.handle(Registry.FeatureRoutes.listFeatures, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const features = yield* Features
      const page = yield* features.list(caller, params.platformId, params.entityId, query)
      return { data: page.data.map(toActivationRecord), pagination: page.pagination }
    })),
  Route.handle(Registry.FeatureRoutes.activateFeature, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const features = yield* Features
      const { activation, created } = yield* features.activate(caller, params.platformId, params.entityId, body)
      return Route.json(toActivateResponse(activation), { status: created ? 202 : 200 })
    })),
  Route.handle(Registry.FeatureRoutes.deactivateFeature, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const features = yield* Features
      const row = yield* features.deactivate(caller, params.platformId, params.entityId, body)
      return { featureId: row.featureId, status: row.status }
    })),
  Route.handle(Registry.FeatureRoutes.getFeature, ({ caller, params }) =>
    Effect.gen(function*() {
      const features = yield* Features
      return toActivationRecord(yield* features.get(caller, params.platformId, params.entityId, params.activationId))
    })),
  Route.handle(Registry.FeatureRoutes.getManifest, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const features = yield* Features
      return yield* features.manifest(caller, params.platformId, params.entityId, query.environment)
    }))
]
