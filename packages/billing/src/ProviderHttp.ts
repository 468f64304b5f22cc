import { Billing } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Customers } from "./Customers.js"

const routes = Billing.BillingRoutes

/** The payment provider's objects at the root path: customers, subscriptions, payment methods. */
export const ProviderHandlers = [
  Route.handle(routes.createCustomer, ({ body }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.create(body)
    })),
  Route.handle(routes.getCustomer, ({ caller, params }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.get(caller, params.id)
    })),
  Route.handle(routes.updateCustomer, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.update(caller, params.id, body)
    })),
  Route.handle(routes.listCustomerSubscriptions, ({ caller, params }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.subscriptions(caller, params.id)
    })),
  Route.handle(routes.listCustomerPaymentMethods, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.paymentMethods(caller, params.id, query.type)
    })),
  Route.handle(routes.getDefaultPaymentMethod, ({ caller, params }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.defaultPaymentMethod(caller, params.id)
    })),
  Route.handle(routes.createProviderSubscription, ({ caller, body }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.createSubscription(caller, body)
    })),
  Route.handle(routes.getProviderSubscription, ({ caller, params }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.getSubscription(caller, params.id)
    })),
  Route.handle(routes.updateProviderSubscription, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.updateSubscription(caller, params.id, body)
    })),
  Route.handle(routes.cancelProviderSubscription, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const customers = yield* Customers
      return yield* customers.cancelSubscription(caller, params.id, query.atPeriodEnd)
    }))
]
