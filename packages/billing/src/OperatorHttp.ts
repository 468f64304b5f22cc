import { Billing, type CursorPage } from "@core/contracts"
import { Cursor, Route } from "@core/kernel"
import { Effect } from "effect"
import { Operator } from "./Operator.js"
import type { OperatorLogEntry } from "./OperatorLog.js"

const routes = Billing.BillingRoutes

/** The operator tools at the root path; the kernel refuses non-operators (403) before these run. */
export const OperatorHandlers = [
  Route.handle(routes.createCredit, ({ caller, body }) =>
    Effect.gen(function*() {
      const operator = yield* Operator
      return yield* operator.credit(caller, body)
    })),
  Route.handle(routes.generateInvoice, ({ caller, body }) =>
    Effect.gen(function*() {
      const operator = yield* Operator
      return yield* operator.generateInvoice(caller, body)
    })),
  Route.handle(routes.overrideSubscription, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const operator = yield* Operator
      return yield* operator.override(caller, params.id, body)
    })),
  Route.handle(routes.startTrial, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const operator = yield* Operator
      return yield* operator.trial(caller, params.id, body)
    })),
  Route.handle(routes.overview, () =>
    Effect.gen(function*() {
      const operator = yield* Operator
      return yield* operator.overview()
    })),
  Route.handle(routes.operatorLog, ({ query }) =>
    Effect.gen(function*() {
      const operator = yield* Operator
      const all = yield* operator.log(query.target)
      const start = query.cursor === undefined ? 0 : Number((yield* Cursor.decode(Billing.OperatorLogCursor, query.cursor)).offset)
      const page: CursorPage<OperatorLogEntry> = Cursor.page(all.slice(start), query.limit, () => ({ offset: start + query.limit }))
      return { data: [...page.data], hasMore: page.hasMore, nextCursor: page.nextCursor }
    }))
]
