import { Registry } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Platforms, toRecord } from "./Platforms.js"

/** The registry's routes, one `handle` per catalogued route (`Registry.RegistryRoutes`). */
export const RegistryHandlers = [
  Route.handle(Registry.PlatformRoutes.createPlatform, ({ body }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return toRecord(yield* platforms.create(body))
    })),
  Route.handle(Registry.PlatformRoutes.getPlatform, ({ caller, params }) =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      return toRecord(yield* platforms.read(caller, params.platformId))
    }))
]

/**
 * The registry as an app: its routes at their documented paths under `/api/v1/platforms`, and at the
 * paths the gateway forwards with that prefix stripped (DESIGN §3).
 */
export const RegistryRouter = Route.router(RegistryHandlers, { base: "/api/v1/platforms" })
