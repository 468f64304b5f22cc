import { Registry } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import type { LifecycleAction } from "./Lifecycle.js"
import { Platforms, toEventRecord, toRecord } from "./Platforms.js"

const lifecycle = (route: typeof Registry.PlatformRoutes.suspendPlatform, action: LifecycleAction) =>
  Route.handle(route, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return toRecord(yield* platforms.changeLifecycle(caller, params.platformId, action, body.reason))
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
      return toRecord(yield* platforms.create(body))
    })),
  Route.handle(Registry.PlatformRoutes.getPlatform, ({ caller, params }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return toRecord(yield* platforms.read(caller, params.platformId))
    })),
  Route.handle(Registry.PlatformRoutes.updatePlatform, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return toRecord(yield* platforms.update(caller, params.platformId, body))
    })),
  Route.handle(Registry.PlatformRoutes.deletePlatform, ({ caller, params }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      yield* platforms.changeLifecycle(caller, params.platformId, "softDelete")
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
    }))
]

/**
 * The registry as an app: its routes at their documented paths under `/api/v1/platforms`, and at the
 * paths the gateway forwards with that prefix stripped (DESIGN §3).
 */
export const RegistryRouter = Route.router(RegistryHandlers, { base: "/api/v1/platforms" })
