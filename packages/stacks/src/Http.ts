import { Stacks, StacksService } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Catalogue, toVersionRecord } from "./Catalogue.js"

const ok = { ok: true } as const

/** The catalogue's routes, one `handle` per catalogued route (`Stacks.StackRoutes`). */
export const StacksHandlers = [
  Route.handle(Stacks.StackRoutes.listStacks, () =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      return yield* catalogue.list()
    })),
  Route.handle(Stacks.StackRoutes.createStack, ({ body }) =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      const row = yield* catalogue.create(body)
      return { id: row.id }
    })),
  Route.handle(Stacks.StackRoutes.getStack, ({ params }) =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      return yield* catalogue.read(params.name)
    })),
  Route.handle(Stacks.StackRoutes.updateStack, ({ params, body }) =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      yield* catalogue.update(params.name, body)
      return ok
    })),
  Route.handle(Stacks.StackRoutes.listStackVersions, ({ params }) =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      return yield* catalogue.versions(params.name)
    })),
  Route.handle(Stacks.StackRoutes.createStackVersion, ({ params, body }) =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      const row = yield* catalogue.publish(params.name, body)
      return { id: row.id }
    })),
  Route.handle(Stacks.StackRoutes.getStackVersion, ({ params }) =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      return toVersionRecord(yield* catalogue.version(params.name, params.version))
    })),
  Route.handle(Stacks.StackRoutes.deprecateStackVersion, ({ params }) =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      yield* catalogue.deprecate(params.name, params.version)
      return ok
    }))
]

/**
 * The catalogue as an app: its routes at their documented paths under `/api/v1/stacks`, and at the
 * paths the gateway forwards with that prefix stripped (docs/architecture.md).
 */
export const StacksRouter = Route.router(StacksHandlers, { base: StacksService.base })
