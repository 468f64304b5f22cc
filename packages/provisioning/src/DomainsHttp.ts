import { Provisioning } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Domains } from "./Domains.js"

/** The custom-domain routes (`Provisioning.DomainRoutes`). */
export const DomainHandlers = [
  Route.handle(Provisioning.DomainRoutes.listDomains, ({ caller, query }) =>
    Effect.gen(function*() {
      const domains = yield* Domains
      return yield* domains.list(caller, query.platformId)
    })),
  Route.handle(Provisioning.DomainRoutes.removeDomain, ({ caller, params }) =>
    Effect.gen(function*() {
      const domains = yield* Domains
      return yield* domains.remove(caller, params.id)
    }))
]
