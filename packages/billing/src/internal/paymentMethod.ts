import { Effect, Option } from "effect"
import type { PaymentProvider } from "../ports/PaymentProvider.js"
import type { SubscriptionRow } from "../SubscriptionsRepo.js"

/** The payment method to charge for a subscription: its own, else the customer's default (`null`: none on file). */
export const paymentMethodOf = (provider: PaymentProvider["Type"], row: SubscriptionRow): Effect.Effect<string | null> =>
  Effect.gen(function*() {
    if (row.paymentMethodId !== null) return row.paymentMethodId
    const customer = yield* provider.getCustomer(row.customerId)
    return Option.isSome(customer) ? customer.value.defaultPaymentMethodId : null
  })
