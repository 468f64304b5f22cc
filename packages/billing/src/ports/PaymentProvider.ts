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
  /** The subscription's newest invoice (Stripe's `latest_invoice`): the first one after a creation, the proration one after a change. */
  readonly latestInvoiceId: string | null
}

/** One line of a provider invoice, in integer minor units. */
export interface ProviderInvoiceLine {
  readonly id: string
  readonly amountMinor: number
  readonly description: string
  readonly quantity: number
  /** A proration (Stripe's `parent.*_details.proration`). */
  readonly proration: boolean
  /** `subscription`: a subscription item's price for a period; `invoice_item`: an invoice item (billing's overage, or one added at the provider). */
  readonly source: "subscription" | "invoice_item"
  readonly metadata: Record<string, string>
  readonly periodStart: Date
  readonly periodEnd: Date
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
  readonly currency: string
  /** The sum of the lines (no discounts or taxes are configured); `amountDueMinor` is it less the customer credit applied. */
  readonly totalMinor: number
  /** The customer's balance before the invoice: negative is credit at Stripe. */
  readonly startingBalanceMinor: number
  /** Stripe's `billing_reason`: `subscription_create`, `subscription_cycle`, `subscription_update`, `manual`, … */
  readonly billingReason: string | null
  readonly lines: ReadonlyArray<ProviderInvoiceLine>
  readonly periodStart: Date
  readonly periodEnd: Date
  readonly finalizedAt: Date | null
  readonly paidAt: Date | null
}

/** A refund of a payment of a provider invoice (Stripe's `refund`). */
export interface ProviderRefund {
  readonly id: string
  readonly amountMinor: number
  /** Stripe's: `pending`, `requires_action`, `succeeded`, `failed`, `canceled`. */
  readonly status: string
  readonly reason: string | null
  readonly createdAt: Date
}

/** A credit note of a provider invoice (Stripe's `credit_note`). */
export interface ProviderCreditNote {
  readonly id: string
  readonly number: string
  readonly amountMinor: number
  /** Stripe's: `issued` or `void`. */
  readonly status: string
  /** `pre_payment` (lowers what is due), `post_payment` (after payment: a refund, a credit or out of band), `mixed`. */
  readonly type: string
  readonly reason: string | null
  readonly createdAt: Date
}

/** What happened to a provider invoice after it was made: its refunds and credit notes, as the provider holds them now. */
export interface InvoiceAdjustments {
  readonly refunds: ReadonlyArray<ProviderRefund>
  readonly creditNotes: ReadonlyArray<ProviderCreditNote>
}

/** An invoice item to add to a subscription's next invoice (billing's metered overage; decision 0449). */
export interface InvoiceItemRequest {
  readonly customerId: string
  /** `null`: pending on the customer, for a one-off invoice (`invoicePending`) — a subscription that has ended takes none. */
  readonly subscriptionId: string | null
  readonly amountMinor: number
  readonly currency: string
  readonly description: string
  readonly metadata: Record<string, string>
  readonly periodStart: Date
  readonly periodEnd: Date
  /** One item per key, however often it is asked for (Stripe's `Idempotency-Key`). */
  readonly idempotencyKey: string
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
    /** `none`: the new price from the next period, nothing prorated. A platform's change of tier uses `changePrice` (decision 0449). @default "create_prorations" */
    readonly proration?: "none" | "create_prorations" | undefined
  }) => Effect.Effect<Option.Option<ProviderSubscription>>
  /**
   * End a subscription at period end, or at once; at once with `prorate`, the provider credits the
   * unused time as a pending invoice item that the final invoice takes (Stripe's `prorate`).
   */
  readonly cancelSubscription: (id: string, atPeriodEnd: boolean, options?: { readonly prorate?: boolean }) => Effect.Effect<Option.Option<ProviderSubscription>>
  /** The provider's hosted portal for a customer; `None`: the provider has none (billing's local page). */
  readonly createPortalSession: (customerId: string, returnUrl: string) => Effect.Effect<Option.Option<PortalSession>>
  readonly getInvoice: (id: string) => Effect.Effect<Option.Option<ProviderInvoice>>
  /**
   * What moving a subscription to `priceId` at `prorationDate` would invoice at once (Stripe's
   * `invoices.createPreview` with `proration_behavior=always_invoice`); `None`: the provider does
   * not prorate (the local one: billing prorates itself) or the subscription is gone.
   */
  readonly previewPriceChange: (subscriptionId: string, priceId: string, prorationDate: Date) => Effect.Effect<Option.Option<ProviderInvoice>>
  /**
   * Move a subscription to `priceId`, prorated at `prorationDate` and invoiced and charged at once
   * (`always_invoice`, `error_if_incomplete`: a declined card is `PaymentFailed` and nothing
   * changes). Answers the subscription and the proration invoice (`None` when nothing was invoiced).
   */
  readonly changePrice: (subscriptionId: string, priceId: string, prorationDate: Date, idempotencyKey: string) => Effect.Effect<
    Option.Option<{ readonly subscription: ProviderSubscription; readonly invoice: Option.Option<ProviderInvoice> }>,
    PaymentFailed
  >
  /**
   * What a new subscription of the customer on `priceId` would invoice first (Stripe's
   * `invoices.createPreview` with `customer` and `subscription_details.items`); `None`: the provider
   * does not keep subscriptions (the local one).
   */
  readonly previewSubscription: (customerId: string, priceId: string) => Effect.Effect<Option.Option<ProviderInvoice>>
  /**
   * A one-off invoice of the customer's pending invoice items (`POST /v1/invoices` with
   * `pending_invoice_items_behavior: include`), finalized and paid on the customer's default payment
   * method; a declined card leaves it `open` and attempted (answered, not failed). Each step under
   * `idempotencyKey` and a suffix. With `ifPending`, `None` when the customer has no pending item
   * (there would be nothing to invoice).
   */
  readonly invoicePending: (input: {
    readonly customerId: string
    readonly description: string
    readonly metadata: Record<string, string>
    readonly idempotencyKey: string
    readonly ifPending?: boolean
  }) => Effect.Effect<Option.Option<ProviderInvoice>>
  /**
   * Try to pay an open (or uncollectible) provider invoice now on the customer's default payment
   * method (`POST /v1/invoices/:id/pay`): answers it re-read — `paid`, or still unpaid when the card
   * is declined (answered, not failed).
   */
  readonly payInvoice: (id: string, idempotencyKey: string) => Effect.Effect<{ readonly invoice: ProviderInvoice; readonly failure: string | null }>
  /** Give up collecting a provider invoice (`POST /v1/invoices/:id/mark_uncollectible`); answers it re-read. */
  readonly markInvoiceUncollectible: (id: string) => Effect.Effect<ProviderInvoice>
  /** Add an invoice item to a subscription's next invoice (its draft renewal when there is one). */
  readonly createInvoiceItem: (request: InvoiceItemRequest) => Effect.Effect<{ readonly id: string }>
  /**
   * The provider invoice an object belongs to (decision 0587): a refund's or a charge's through the
   * payment it refunds (Stripe's `invoice_payments`), a credit note's directly; `None`: not an
   * invoice's (a payment of its own), or gone.
   */
  readonly invoiceOf: (object: { readonly kind: "refund" | "charge" | "credit_note"; readonly id: string }) => Effect.Effect<Option.Option<string>>
  /** A provider invoice's refunds and credit notes now. */
  readonly invoiceAdjustments: (invoiceId: string) => Effect.Effect<InvoiceAdjustments>
  /** The customer's invoices left unpaid after an attempt (`open` and attempted): the past-due test. */
  readonly unpaidInvoices: (customerId: string) => Effect.Effect<ReadonlyArray<ProviderInvoice>>
}>() {}
