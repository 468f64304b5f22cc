import type { NotFound, PaymentFailed } from "@core/kernel"
import { Context, type Effect, type Option } from "effect"

/** A customer at the payment provider; `balanceMinor` is credit the next invoices use. */
export interface Customer {
  readonly id: string
  readonly email: string
  readonly name: string | null
  readonly metadata: Record<string, unknown>
  readonly platformId: string | null
  readonly balanceMinor: number
  readonly currency: string
  readonly defaultPaymentMethodId: string | null
  readonly createdAt: Date
}

/** A card kept at the provider. */
export interface PaymentMethod {
  readonly id: string
  readonly customerId: string | null
  readonly brand: string
  readonly last4: string
  readonly expMonth: number
  readonly expYear: number
  readonly createdAt: Date
}

/** A setup intent: a way for the customer to save a payment method. */
export interface SetupIntent {
  readonly id: string
  readonly customerId: string
  readonly clientSecret: string
  readonly status: string
}

/** A subscription object at the provider (the root-path `/subscriptions` routes). */
export interface ProviderSubscription {
  readonly id: string
  readonly customerId: string
  readonly priceId: string
  readonly quantity: number
  readonly paymentMethodId: string | null
  readonly metadata: Record<string, unknown>
  readonly status: string
  readonly cancelAtPeriodEnd: boolean
  readonly currentPeriodStart: Date
  readonly currentPeriodEnd: Date
  readonly cancelledAt: Date | null
  readonly createdAt: Date
}

/** An invoice at the provider (Stripe's; the local provider keeps none: billing's own are in `Invoices`). */
export interface ProviderInvoice {
  readonly id: string
  readonly customerId: string
  readonly subscriptionId: string | null
  /** Stripe's: `draft`, `open`, `paid`, `uncollectible`, `void`. */
  readonly status: string
  readonly amountDueMinor: number
  readonly amountPaidMinor: number
  /** A payment was attempted (a failed one leaves an `open`, attempted invoice). */
  readonly attempted: boolean
  readonly createdAt: Date
}

/** A session of the provider's hosted customer portal. */
export interface PortalSession {
  readonly id: string
  readonly url: string
}

/** A charge to make: integer minor units, on one of the customer's payment methods. */
export interface ChargeRequest {
  readonly customerId: string
  readonly paymentMethodId: string
  readonly amountMinor: number
  readonly currency: string
  readonly description: string
  readonly invoiceId?: string
}

/**
 * The payment provider (DESIGN §7): customers, payment methods, setup intents, subscriptions,
 * charges and credit balances. `PaymentProviderLocal` (the default) keeps them in PostgreSQL and
 * treats Stripe's test cards as Stripe does.
 */
export class PaymentProvider extends Context.Tag("@core/billing/PaymentProvider")<PaymentProvider, {
  /** Which adapter: `stripe` charges when a subscription is created and hosts the portal itself. */
  readonly kind: "local" | "stripe"
  readonly createCustomer: (input: {
    readonly email: string
    readonly name?: string | undefined
    readonly metadata?: Record<string, unknown> | undefined
    readonly platformId?: string | undefined
    /** Makes a retried or raced creation answer the first customer (Stripe's `Idempotency-Key`). */
    readonly idempotencyKey?: string | undefined
  }) => Effect.Effect<Customer>
  readonly getCustomer: (id: string) => Effect.Effect<Option.Option<Customer>>
  readonly updateCustomer: (id: string, patch: {
    readonly email?: string | undefined
    readonly name?: string | undefined
    readonly metadata?: Record<string, unknown> | undefined
  }) => Effect.Effect<Option.Option<Customer>>
  /**
   * Attach a payment method to a customer: one of its own (`pm_…`), a Stripe test payment-method
   * id (`pm_card_visa`) or a test card number. A card the provider does not know: `NotFound`.
   */
  readonly attachPaymentMethod: (customerId: string, reference: string) => Effect.Effect<PaymentMethod, NotFound>
  readonly listPaymentMethods: (customerId: string) => Effect.Effect<ReadonlyArray<PaymentMethod>>
  readonly setDefaultPaymentMethod: (customerId: string, paymentMethodId: string) => Effect.Effect<void>
  readonly createSetupIntent: (customerId: string) => Effect.Effect<SetupIntent>
  /** Charge a payment method; a declined card: `PaymentFailed` (402), and nothing is charged. */
  readonly charge: (request: ChargeRequest) => Effect.Effect<{ readonly id: string }, PaymentFailed>
  /** Add to (credit) or take from a customer's balance; answers the new balance. */
  readonly adjustBalance: (customerId: string, deltaMinor: number, currency: string, description: string, invoiceId?: string) => Effect.Effect<{
    readonly id: string
    readonly balanceMinor: number
  }>
  readonly createSubscription: (input: {
    readonly customerId: string
    readonly priceId: string
    readonly quantity: number
    readonly paymentMethodId: string
    readonly metadata: Record<string, unknown>
    /** Makes a retried creation answer the first subscription (Stripe's `Idempotency-Key`). */
    readonly idempotencyKey?: string | undefined
  }) => Effect.Effect<ProviderSubscription, PaymentFailed>
  readonly getSubscription: (id: string) => Effect.Effect<Option.Option<ProviderSubscription>>
  readonly listSubscriptions: (customerId: string) => Effect.Effect<ReadonlyArray<ProviderSubscription>>
  readonly updateSubscription: (id: string, patch: {
    readonly priceId?: string | undefined
    readonly quantity?: number | undefined
    readonly paymentMethodId?: string | undefined
    /** `none`: the new price from the next period, billing charges the change itself. @default "create_prorations" */
    readonly proration?: "none" | "create_prorations" | undefined
  }) => Effect.Effect<Option.Option<ProviderSubscription>>
  readonly cancelSubscription: (id: string, atPeriodEnd: boolean) => Effect.Effect<Option.Option<ProviderSubscription>>
  /** The provider's hosted portal for a customer; `None`: the provider has none (billing's local page). */
  readonly createPortalSession: (customerId: string, returnUrl: string) => Effect.Effect<Option.Option<PortalSession>>
  readonly getInvoice: (id: string) => Effect.Effect<Option.Option<ProviderInvoice>>
  /** The customer's invoices left unpaid after an attempt (`open` and attempted): the past-due test. */
  readonly unpaidInvoices: (customerId: string) => Effect.Effect<ReadonlyArray<ProviderInvoice>>
}>() {}
