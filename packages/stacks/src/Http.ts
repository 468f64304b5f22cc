import { Stacks, StacksService } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Catalogue, toVersionRecord } from "./Catalogue.js"

const ok = { ok: true } as const

/** The catalogue's routes, one `handle` per catalogued route (`Stacks.StackRoutes`). */
export const StacksHandlers = [
  Route.handle(Stacks.StackRoutes.listStacks, () => Effect.flatMap(Catalogue, (catalogue) => catalogue.list())),
  Route.handle(Stacks.StackRoutes.createStack, ({ body }) =>
    Effect.flatMap(Catalogue, (catalogue) => Effect.map(catalogue.create(body), (row) => ({ id: row.id })))),
  Route.handle(Stacks.StackRoutes.getStack, ({ params }) => Effect.flatMap(Catalogue, (catalogue) => catalogue.read(params.name))),
  Route.handle(Stacks.StackRoutes.updateStack, ({ params, body }) =>
    Effect.flatMap(Catalogue, (catalogue) => Effect.as(catalogue.update(params.name, body), ok))),
  Route.handle(Stacks.StackRoutes.listStackVersions, ({ params }) =>
    Effect.flatMap(Catalogue, (catalogue) => catalogue.versions(params.name))),
  Route.handle(Stacks.StackRoutes.createStackVersion, ({ params, body }) =>
    Effect.flatMap(Catalogue, (catalogue) => Effect.map(catalogue.publish(params.name, body), (row) => ({ id: row.id })))),
  Route.handle(Stacks.StackRoutes.getStackVersion, ({ params }) =>
    Effect.flatMap(Catalogue, (catalogue) => Effect.map(catalogue.version(params.name, params.version), toVersionRecord))),
  Route.handle(Stacks.StackRoutes.deprecateStackVersion, ({ params }) =>
    Effect.flatMap(Catalogue, (catalogue) => Effect.as(catalogue.deprecate(params.name, params.version), ok)))
]

/**
 * The catalogue as an app: its routes at their documented paths under `/api/v1/stacks`, and at the
 * paths the gateway forwards with that prefix stripped (docs/architecture.md).
 */
export const StacksRouter = Route.router(StacksHandlers, { base: StacksService.base })
