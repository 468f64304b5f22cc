import type { Billing } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { BillingCycle } from "./BillingCycle.js"
import { customerNotFound, paymentMethodNotFound } from "./Errors.js"
import { billingId } from "./internal/ids.js"
import type { PlatformView } from "./ports/BillingPlatforms.js"
import { type Customer, type PaymentMethod, PaymentProvider, type ProviderSubscription } from "./ports/PaymentProvider.js"
import { Subscriptions } from "./Subscriptions.js"
import { makePortalSessionsRepo } from "./PortalSessionsRepo.js"
import { SubscriptionsRepo } from "./SubscriptionsRepo.js"

/** A portal session lasts an hour. */
const PORTAL_TTL_MS = 3_600_000

export const toCustomerRecord = (customer: Customer): Billing.CustomerRecord => ({
  id: customer.id,
  email: customer.email,
  name: customer.name,
  metadata: customer.metadata,
  platformId: customer.platformId,
  balanceMinor: customer.balanceMinor,
  currency: customer.currency,
  defaultPaymentMethodId: customer.defaultPaymentMethodId,
  createdAt: customer.createdAt.toISOString()
})

export const toPaymentMethodRecord = (method: PaymentMethod, defaultId: string | null): Billing.PaymentMethodRecord => ({
  id: method.id,
  customerId: method.customerId,
  type: "card",
  card: { brand: method.brand, last4: method.last4, expMonth: method.expMonth, expYear: method.expYear },
  isDefault: method.id === defaultId,
  createdAt: method.createdAt.toISOString()
})

export const toProviderSubscriptionRecord = (subscription: ProviderSubscription): Billing.ProviderSubscriptionRecord => ({
  id: subscription.id,
  customerId: subscription.customerId,
  priceId: subscription.priceId,
  quantity: subscription.quantity,
  paymentMethodId: subscription.paymentMethodId,
  metadata: subscription.metadata,
  status: subscription.status,
  cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
  currentPeriodStart: subscription.currentPeriodStart.toISOString(),
  currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
  cancelledAt: subscription.cancelledAt?.toISOString() ?? null,
  createdAt: subscription.createdAt.toISOString()
})

/** A portal session as its page needs it. */
export interface PortalView {
  readonly id: string
  readonly platformId: string
  readonly customerId: string
  readonly returnUrl: string
}

/**
 * A platform's payment side (seed 001): its customer's payment methods, setup intents, the
 * customer portal (a local page that really changes the payment method and cancels; decision 0441).
 */
export class Payments extends Effect.Service<Payments>()("@core/billing/Payments", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const portals = makePortalSessionsRepo(sql)
    const provider = yield* PaymentProvider
    const subscriptions = yield* Subscriptions
    const repo = yield* SubscriptionsRepo
    const cycle = yield* BillingCycle
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const customerOf = (platform: PlatformView) =>
      Effect.gen(function*() {
        const row = yield* subscriptions.ensure(platform)
        const customer = yield* provider.getCustomer(row.customerId)
        return Option.isSome(customer) ? customer.value : yield* customerNotFound
      })

    const methodsOf = (customer: Customer) =>
      Effect.map(provider.listPaymentMethods(customer.id), (methods) => methods.map((method) => toPaymentMethodRecord(method, customer.defaultPaymentMethodId)))

    const paymentMethods = Effect.fn("Payments.paymentMethods")(function*(platform: PlatformView) {
      return { data: yield* methodsOf(yield* customerOf(platform)) }
    })

    const setupIntent = Effect.fn("Payments.setupIntent")(function*(platform: PlatformView) {
      return yield* provider.createSetupIntent((yield* customerOf(platform)).id)
    })

    const portal = Effect.fn("Payments.portal")(function*(platform: PlatformView, returnUrl: string, baseUrl: string) {
      const customer = yield* customerOf(platform)
      // The provider's hosted portal when it has one (Stripe's), else billing's own page.
      const hosted = yield* provider.createPortalSession(customer.id, returnUrl)
      if (Option.isSome(hosted)) return { id: hosted.value.id, url: hosted.value.url, returnUrl }
      const id = yield* billingId("bps")
      const at = yield* now
      yield* portals.insert({ id, customerId: customer.id, platformId: platform.id, returnUrl }, at, new Date(at.getTime() + PORTAL_TTL_MS))
      return { id, url: `${baseUrl}/portal/sessions/${id}`, returnUrl }
    })

    /** A live portal session, else `NotFound`. */
    const portalSession = (id: string) =>
      Effect.gen(function*() {
        const found = yield* portals.live(id, yield* now)
        if (Option.isNone(found)) return yield* customerNotFound
        return found.value satisfies PortalView
      })

    /** What the portal page shows: the subscription and the payment methods. */
    const portalState = (id: string) =>
      Effect.gen(function*() {
        const session = yield* portalSession(id)
        const row = Option.getOrThrow(yield* repo.byPlatform(session.platformId))
        const customer = Option.getOrThrow(yield* provider.getCustomer(session.customerId))
        return { session, subscription: subscriptions.record(row), methods: yield* methodsOf(customer) }
      })

    /** The portal's payment-method form: attach the card, make it the default, pay what is open. */
    const portalChangePaymentMethod = (id: string, reference: string) =>
      Effect.gen(function*() {
        const session = yield* portalSession(id)
        const method = yield* provider.attachPaymentMethod(session.customerId, reference).pipe(Effect.mapError(() => paymentMethodNotFound))
        yield* provider.setDefaultPaymentMethod(session.customerId, method.id)
        const found = yield* repo.byPlatform(session.platformId)
        if (Option.isSome(found)) yield* subscriptions.save({ ...found.value, paymentMethodId: method.id }, found.value)
        yield* cycle.settle(session.platformId)
        return session
      })

    /** The portal's cancel button: at the end of the period. */
    const portalCancel = (id: string) =>
      Effect.gen(function*() {
        const session = yield* portalSession(id)
        const found = yield* repo.byPlatform(session.platformId)
        if (Option.isSome(found) && found.value.status !== "cancelled" && !found.value.cancelAtPeriodEnd) {
          yield* subscriptions.save({ ...found.value, cancelAtPeriodEnd: true }, found.value)
        }
        return session
      })

    return { customerOf, paymentMethods, setupIntent, portal, portalState, portalChangePaymentMethod, portalCancel, rows: Rows }
  })
}) {}
