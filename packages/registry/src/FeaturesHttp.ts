import { Registry } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Features, toActivateResponse, toActivationRecord } from "./Features.js"

/** The feature routes (`Registry.FeatureRoutes`), one `handle` each. */
export const FeatureHandlers = [
  Route.handle(Registry.FeatureRoutes.listFeatures, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const page = yield* (yield* Features).list(caller, params.platformId, params.entityId, query)
      return { data: page.data.map(toActivationRecord), pagination: page.pagination }
    })),
  Route.handle(Registry.FeatureRoutes.activateFeature, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const { activation, created } = yield* (yield* Features).activate(caller, params.platformId, params.entityId, body)
      return Route.json(toActivateResponse(activation), { status: created ? 202 : 200 })
    })),
  Route.handle(Registry.FeatureRoutes.deactivateFeature, ({ body, caller, params }) =>
    Effect.map(Effect.flatMap(Features, (f) => f.deactivate(caller, params.platformId, params.entityId, body)), (row) => ({
      featureId: row.featureId,
      status: row.status
    }))),
  Route.handle(Registry.FeatureRoutes.getFeature, ({ caller, params }) =>
    Effect.map(Effect.flatMap(Features, (f) => f.get(caller, params.platformId, params.entityId, params.activationId)), toActivationRecord)),
  Route.handle(Registry.FeatureRoutes.getManifest, ({ caller, params, query }) =>
    Effect.flatMap(Features, (f) => f.manifest(caller, params.platformId, params.entityId, query.environment)))
]
