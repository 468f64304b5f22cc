import type { Billing } from "@core/contracts"
import { type Caller, Policy } from "@core/kernel"
import { Effect, Option } from "effect"
import { customerNotFound, noSuchPrice, paymentMethodNotFound, subscriptionNotFound } from "./Errors.js"
import { isPlanId } from "./Plans.js"
import { canAccess, ownPlatform } from "./Policy.js"
import { BillingPlatforms } from "./ports/BillingPlatforms.js"
import { type Customer, PaymentProvider } from "./ports/PaymentProvider.js"
import { Payments, toCustomerRecord, toPaymentMethodRecord, toProviderSubscriptionRecord } from "./Payments.js"
import { Plans } from "./Plans.js"

type Need = "billing:read" | "billing:manage"

/**
 * The payment provider's objects at the root path (decision 0442): a tenant reaches its own
 * platform's customer and what hangs off it; operators and the service key reach every one.
 * Another tenant's answers 404.
 */
export class Customers extends Effect.Service<Customers>()("@core/billing/Customers", {
  effect: Effect.gen(function*() {
    const provider = yield* PaymentProvider
    const platforms = yield* BillingPlatforms
    const payments = yield* Payments
    const plans = yield* Plans

    /** A customer the caller may reach, else 404 (403 for a member lacking the permission). */
    const reach = (caller: Caller, id: string, need: Need) =>
      Effect.gen(function*() {
        const found = yield* provider.getCustomer(id)
        if (Option.isNone(found)) return yield* customerNotFound
        const customer = found.value
        if (customer.platformId === null) {
          if (!(yield* Policy.isPrivileged(caller))) return yield* customerNotFound
          return customer
        }
        const platform = yield* platforms.find(customer.platformId)
        if (Option.isNone(platform)) return yield* customerNotFound
        yield* canAccess(caller, platform.value, need).pipe(Effect.catchTag("NotFound", () => Effect.fail(customerNotFound)))
        return customer
      })

    const subscriptionReach = (caller: Caller, id: string, need: Need) =>
      Effect.gen(function*() {
        const found = yield* provider.getSubscription(id)
        if (Option.isNone(found)) return yield* subscriptionNotFound
        yield* reach(caller, found.value.customerId, need).pipe(Effect.catchTag("NotFound", () => Effect.fail(subscriptionNotFound)))
        return found.value
      })

    const methodsOf = (customer: Customer) =>
      Effect.map(provider.listPaymentMethods(customer.id), (methods) => methods.map((method) => toPaymentMethodRecord(method, customer.defaultPaymentMethodId)))

    /** A price is a plan id (`starter`) or `price_<plan>`. */
    const checkPrice = (priceId: string) => {
      const plan = priceId.replace(/^price_/, "")
      return isPlanId(plan) ? Effect.succeed(plans.get(plan)) : Effect.fail(noSuchPrice(priceId))
    }

    return {
      create: (body: Billing.CreateCustomerBody) => Effect.map(provider.createCustomer(body), toCustomerRecord),
      get: (caller: Caller, id: string) => Effect.map(reach(caller, id, "billing:read"), toCustomerRecord),
      update: (caller: Caller, id: string, body: Billing.UpdateCustomerBody) =>
        Effect.gen(function*() {
          yield* reach(caller, id, "billing:manage")
          return toCustomerRecord(Option.getOrThrow(yield* provider.updateCustomer(id, body)))
        }),
      subscriptions: (caller: Caller, id: string) =>
        Effect.gen(function*() {
          yield* reach(caller, id, "billing:read")
          return { data: (yield* provider.listSubscriptions(id)).map(toProviderSubscriptionRecord) }
        }),
      paymentMethods: (caller: Caller, id: string, type: string | undefined) =>
        Effect.gen(function*() {
          const customer = yield* reach(caller, id, "billing:read")
          return { data: type === undefined || type === "card" ? yield* methodsOf(customer) : [] }
        }),
      defaultPaymentMethod: (caller: Caller, id: string) =>
        Effect.gen(function*() {
          const customer = yield* reach(caller, id, "billing:read")
          const found = (yield* methodsOf(customer)).find((method) => method.isDefault)
          return found ?? (yield* paymentMethodNotFound)
        }),
      createSubscription: (caller: Caller, body: Billing.CreateProviderSubscriptionBody) =>
        Effect.gen(function*() {
          const platform = yield* ownPlatform(caller, "billing:manage")
          const customer = yield* payments.customerOf(platform)
          const plan = yield* checkPrice(body.priceId)
          const method = yield* provider.attachPaymentMethod(customer.id, body.paymentMethodId).pipe(Effect.mapError(() => paymentMethodNotFound))
          const quantity = body.quantity ?? 1
          // Stripe charges the subscription's first invoice itself (a declined card fails the creation).
          if (provider.kind === "local") {
            yield* provider.charge({ customerId: customer.id, paymentMethodId: method.id, amountMinor: plan.priceMinor * quantity, currency: "usd", description: `Subscription to ${plan.id}` })
          }
          const created = yield* provider.createSubscription({
            customerId: customer.id,
            priceId: body.priceId,
            quantity,
            paymentMethodId: method.id,
            metadata: { ...body.metadata, userId: body.userId }
          })
          return toProviderSubscriptionRecord(created)
        }),
      getSubscription: (caller: Caller, id: string) => Effect.map(subscriptionReach(caller, id, "billing:read"), toProviderSubscriptionRecord),
      updateSubscription: (caller: Caller, id: string, body: Billing.UpdateProviderSubscriptionBody) =>
        Effect.gen(function*() {
          const current = yield* subscriptionReach(caller, id, "billing:manage")
          if (body.priceId !== undefined) yield* checkPrice(body.priceId)
          const paymentMethodId = body.paymentMethodId === undefined
            ? undefined
            : (yield* provider.attachPaymentMethod(current.customerId, body.paymentMethodId).pipe(Effect.mapError(() => paymentMethodNotFound))).id
          return toProviderSubscriptionRecord(Option.getOrThrow(yield* provider.updateSubscription(id, { priceId: body.priceId, quantity: body.quantity, paymentMethodId })))
        }),
      cancelSubscription: (caller: Caller, id: string, atPeriodEnd: boolean) =>
        Effect.gen(function*() {
          yield* subscriptionReach(caller, id, "billing:manage")
          return toProviderSubscriptionRecord(Option.getOrThrow(yield* provider.cancelSubscription(id, atPeriodEnd)))
        })
    }
  })
}) {}
