import { Billing } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { UsageIngest } from "./UsageIngest.js"
import { UsageReads } from "./UsageReads.js"

/** The metering routes (`Billing.UsageRoutes`), spread into billing's handlers. */
export const UsageHandlers = [
  Route.handle(Billing.UsageRoutes.getUsageCurrent, ({ caller, query }) =>
    Effect.gen(function*() {
      const usage = yield* UsageReads
      return yield* usage.current(caller, query.platformId, query.tenantId)
    })),
  Route.handle(Billing.UsageRoutes.listUsageHistory, ({ caller, query }) =>
    Effect.gen(function*() {
      const usage = yield* UsageReads
      return yield* usage.history(caller, query)
    })),
  Route.handle(Billing.UsageRoutes.listUsageEntities, ({ caller, query }) =>
    Effect.gen(function*() {
      const usage = yield* UsageReads
      return yield* usage.entities(caller, query)
    })),
  Route.handle(Billing.UsageRoutes.getUsageDaily, ({ caller, query }) =>
    Effect.gen(function*() {
      const usage = yield* UsageReads
      return yield* usage.daily(caller, query)
    })),
  Route.handle(Billing.UsageRoutes.listUsageAlerts, ({ caller, query }) =>
    Effect.gen(function*() {
      const usage = yield* UsageReads
      return yield* usage.alerts(caller, query.platformId)
    })),
  Route.handle(Billing.UsageRoutes.getUsageSummary, ({ caller, query }) =>
    Effect.gen(function*() {
      const usage = yield* UsageReads
      return yield* usage.summary(caller, query.platformId)
    })),
  Route.handle(Billing.UsageRoutes.getStackUsage, ({ caller, params }) =>
    Effect.gen(function*() {
      const usage = yield* UsageReads
      return yield* usage.stack(caller, params.platformId, params.stackId)
    })),
  Route.handle(Billing.UsageRoutes.ingestUsageEvents, ({ body }) =>
    Effect.gen(function*() {
      const ingest = yield* UsageIngest
      return yield* ingest.ingest(body.events)
    }))
]
