import { z } from "zod"
import { BoundedId, EmailAddress, Metadata, NAME_MAX_LENGTH, TEXT_MAX_LENGTH } from "../Bounds.js"
import { cursorPage, cursorParam } from "../Pagination.js"
import { naming } from "../PathRecords.js"

/**
 * Billing's records and inputs (docs/billing.md; the fields the specification leaves open are
 * decided in decisions 0430–0459). Money is always integer minor units (`…Minor`).
 */

/** A paid tier (`tier` is one of `starter`, `growth`, `scale`). */
export const PaidTier = z.enum(["starter", "growth", "scale"])
export type PaidTier = z.infer<typeof PaidTier>

/** Any plan, `free` included. */
export const PlanTier = z.enum(["free", "starter", "growth", "scale"])
export type PlanTier = z.infer<typeof PlanTier>

/** Subscription statuses (decision 0431). */
export const SubscriptionStatus = z.enum(["trialing", "active", "past_due", "cancelled"])
export type SubscriptionStatus = z.infer<typeof SubscriptionStatus>

/** An amount of money: integer minor units (cents), never a float. */
export const MinorUnits = z.number().int()

/** `platformId` (seed: min length 1). */
export const PlatformIdField = BoundedId

const Allowances = z.object({ requests: z.number().int(), resourceHours: z.number().int(), builds: z.number().int() })
const OveragePrice = z.object({ priceMinor: MinorUnits, per: z.number().int() })

/** A plan with its allowances and overage prices. */
export const PlanRecord = z.object({
  id: PlanTier,
  name: z.string(),
  priceMinor: MinorUnits,
  currency: z.string(),
  interval: z.literal("month"),
  allowances: Allowances,
  overage: z.object({ requests: OveragePrice, resource_hours: OveragePrice, builds: OveragePrice })
}).meta({ id: "BillingPlan" })
export type PlanRecord = z.infer<typeof PlanRecord>

/** A platform's subscription: its plan is the registry platform's tier. */
export const SubscriptionRecord = z.object({
  id: z.string(),
  platformId: z.string(),
  customerId: z.string(),
  tier: PlanTier,
  status: SubscriptionStatus,
  priceMinor: MinorUnits,
  currency: z.string(),
  currentPeriodStart: z.string(),
  currentPeriodEnd: z.string(),
  cancelAtPeriodEnd: z.boolean(),
  cancelledAt: z.string().nullable(),
  trialEnd: z.string().nullable(),
  pastDueSince: z.string().nullable(),
  overridden: z.boolean(),
  paymentMethodId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string()
}).meta({ id: "BillingSubscription" })
export type SubscriptionRecord = z.infer<typeof SubscriptionRecord>

/** Line kinds of an invoice. */
export const InvoiceLineKind = z.enum(["base", "overage", "credit", "proration"])

/** One line of an invoice: `amountMinor` is `quantity × unitAmountMinor` for base and proration lines. */
export const InvoiceLine = z.object({
  kind: InvoiceLineKind,
  description: z.string(),
  meter: z.string().nullable(),
  quantity: z.number().int(),
  unitAmountMinor: MinorUnits,
  amountMinor: MinorUnits
}).meta({ id: "BillingInvoiceLine" })
export type InvoiceLine = z.infer<typeof InvoiceLine>

/** A refund of an invoice's payment at the payment provider (decision 0587). */
export const InvoiceRefund = z.object({
  id: z.string(),
  amountMinor: MinorUnits,
  /** Stripe's: `pending`, `requires_action`, `succeeded`, `failed`, `canceled`. */
  status: z.string(),
  reason: z.string().nullable(),
  createdAt: z.string()
}).meta({ id: "BillingInvoiceRefund" })

/** A credit note of an invoice at the payment provider (decision 0587). */
export const InvoiceCreditNote = z.object({
  id: z.string(),
  number: z.string(),
  amountMinor: MinorUnits,
  /** `issued` or `void`. */
  status: z.string(),
  /** `pre_payment`, `post_payment` or `mixed`. */
  type: z.string(),
  reason: z.string().nullable(),
  createdAt: z.string()
}).meta({ id: "BillingInvoiceCreditNote" })

/** The collection of a declined final invoice (decision 0586): retried on a schedule, then uncollectible. */
export const InvoiceCollection = z.object({
  state: z.enum(["retrying", "paid", "uncollectible"]),
  failedAttempts: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  lastFailure: z.string().nullable()
}).meta({ id: "BillingInvoiceCollection" })

/** An invoice with its lines; `totalMinor` always equals the sum of the lines. */
export const InvoiceRecord = z.object({
  id: z.string(),
  platformId: z.string().nullable(),
  customerId: z.string(),
  subscriptionId: z.string().nullable(),
  status: z.enum(["draft", "open", "paid", "void", "uncollectible"]),
  currency: z.string(),
  description: z.string().nullable(),
  periodStart: z.string(),
  periodEnd: z.string(),
  subtotalMinor: MinorUnits,
  totalMinor: MinorUnits,
  amountDueMinor: MinorUnits,
  amountPaidMinor: MinorUnits,
  lines: z.array(InvoiceLine),
  createdAt: z.string(),
  finalizedAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  /** Refunded of what was paid: the refunds `succeeded` or `pending` (as Stripe's `amount_refunded` counts). */
  amountRefundedMinor: MinorUnits,
  /** The total of the invoice's `issued` credit notes. */
  amountCreditedMinor: MinorUnits,
  refunds: z.array(InvoiceRefund),
  creditNotes: z.array(InvoiceCreditNote),
  /** Set while (and after) a declined final invoice is collected; else `null`. */
  collection: InvoiceCollection.nullable()
}).meta({ id: "BillingInvoice" })
export type InvoiceRecord = z.infer<typeof InvoiceRecord>

/** The invoice list: newest first, `{ data, hasMore, nextCursor }`. */
export const InvoiceList = cursorPage(InvoiceRecord)
export type InvoiceList = z.infer<typeof InvoiceList>

/** What a tier change charges now: a credit for the unused part of the current plan, a charge for the rest of the period on the new one. */
export const ProrationPreview = z.object({
  fromTier: PlanTier,
  toTier: PlanTier,
  currency: z.string(),
  prorationDate: z.string(),
  periodStart: z.string(),
  periodEnd: z.string(),
  lines: z.array(InvoiceLine),
  /** The sum of the lines: what the change charges (negative: a credit kept on the customer's balance). */
  amountMinor: MinorUnits
}).meta({ id: "BillingProrationPreview" })
export type ProrationPreview = z.infer<typeof ProrationPreview>

/** The answer of a tier change: the subscription after it and the proration invoice (none when nothing is due). */
export const TierChange = z.object({
  subscription: SubscriptionRecord,
  invoice: InvoiceRecord.nullable(),
  amountMinor: MinorUnits
}).meta({ id: "BillingTierChange" })
export type TierChange = z.infer<typeof TierChange>

/** `GET /subscription`, `/invoices`, …: `platformId` (required). */
export const PlatformQuery = z.object({ platformId: PlatformIdField })

/** `GET /invoices`: `platformId`, `cursor`, `limit` (1–100, default 25). */
export const InvoiceListQuery = z.object({
  platformId: PlatformIdField,
  cursor: cursorParam,
  limit: z.coerce.number().int().min(1).max(100).default(25)
})

/** `GET /invoices/{id}`: `platformId` optional (the seed's two single-invoice routes, one route). */
export const InvoiceQuery = z.object({ platformId: PlatformIdField.optional() })
export const IdParams = z.object({ id: BoundedId })
/** The path of one invoice (`Invoice not found` for any id that names none). */
export const InvoiceParams = z.object({ id: naming(BoundedId, "Invoice not found") })
/** The path of one customer at the provider's routes. */
export const CustomerParams = z.object({ id: naming(BoundedId, "Customer not found") })
/** The path of one subscription at the provider's and the operator's routes. */
export const SubscriptionParams = z.object({ id: naming(BoundedId, "Subscription not found") })
/** The path of billing's internal platform routes. */
export const PlatformParams = z.object({ platformId: naming(PlatformIdField, "Platform not found") })

/**
 * `POST /internal/platforms/{platformId}/subscription` (the registry's hooks): an onboarding's
 * billing email, when it names one, becomes the email of the platform's customer.
 */
export const EnsurePlatformSubscriptionRequest = z.object({ billingEmail: EmailAddress.optional() }).strict()
export type EnsurePlatformSubscriptionRequest = z.input<typeof EnsurePlatformSubscriptionRequest>

/** `POST /subscription/change-tier`. */
export const ChangeTierRequest = z.object({ tier: PaidTier })
/** `GET /subscription/proration-preview`. */
export const ProrationQuery = z.object({ tier: PaidTier })

/** A card's public details. */
export const CardDetails = z.object({ brand: z.string(), last4: z.string(), expMonth: z.number().int(), expYear: z.number().int() })

/** A payment method of a customer. */
export const PaymentMethodRecord = z.object({
  id: z.string(),
  customerId: z.string().nullable(),
  type: z.literal("card"),
  card: CardDetails,
  isDefault: z.boolean(),
  createdAt: z.string()
}).meta({ id: "BillingPaymentMethod" })
export type PaymentMethodRecord = z.infer<typeof PaymentMethodRecord>

/** A list of payment methods. */
export const PaymentMethodList = z.object({ data: z.array(PaymentMethodRecord) })

/** A customer at the payment provider. */
export const CustomerRecord = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  platformId: z.string().nullable(),
  balanceMinor: MinorUnits,
  currency: z.string(),
  defaultPaymentMethodId: z.string().nullable(),
  createdAt: z.string()
}).meta({ id: "BillingCustomer" })
export type CustomerRecord = z.infer<typeof CustomerRecord>

/** `POST /customers`. */
export const CreateCustomerRequest = z.object({
  email: EmailAddress,
  name: z.string().max(NAME_MAX_LENGTH).optional(),
  metadata: Metadata.optional()
})
/** `PATCH /customers/{id}`. */
export const UpdateCustomerRequest = z.object({
  email: EmailAddress.optional(),
  name: z.string().max(NAME_MAX_LENGTH).optional(),
  metadata: Metadata.optional()
})
/** `GET /customers/{id}/payment-methods`: `type` (only `card` exists). */
export const PaymentMethodTypeQuery = z.object({ type: z.string().min(1).max(32).optional() })

/** A subscription object at the payment provider (the root-path `/subscriptions` routes). */
export const ProviderSubscriptionRecord = z.object({
  id: z.string(),
  customerId: z.string(),
  priceId: z.string(),
  quantity: z.number().int(),
  paymentMethodId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  status: z.string(),
  cancelAtPeriodEnd: z.boolean(),
  currentPeriodStart: z.string(),
  currentPeriodEnd: z.string(),
  cancelledAt: z.string().nullable(),
  createdAt: z.string()
}).meta({ id: "BillingProviderSubscription" })
export type ProviderSubscriptionRecord = z.infer<typeof ProviderSubscriptionRecord>
export const ProviderSubscriptionList = z.object({ data: z.array(ProviderSubscriptionRecord) })

/** `POST /subscriptions` (seed: `userId`, `priceId`, `paymentMethodId`, `quantity?`, `metadata?`). */
export const CreateProviderSubscriptionRequest = z.object({
  userId: BoundedId,
  priceId: BoundedId,
  paymentMethodId: BoundedId,
  quantity: z.number().int().positive().max(1_000_000).optional(),
  metadata: Metadata.optional()
})
/** `PATCH /subscriptions/{id}`: the seed's unnamed fields are `priceId`, `quantity`, `paymentMethodId` (docs/billing.md). */
export const UpdateProviderSubscriptionRequest = z.object({
  priceId: BoundedId.optional(),
  quantity: z.number().positive().int().max(1_000_000).optional(),
  paymentMethodId: BoundedId.optional()
})
/** `DELETE /subscriptions/{id}?atPeriodEnd=`. */
export const CancelProviderSubscriptionQuery = z.object({
  atPeriodEnd: z.enum(["true", "false"]).default("false").transform((value) => value === "true")
})

/** A setup intent: confirm it with a payment method to attach that method. */
export const SetupIntentRecord = z.object({
  id: z.string(),
  customerId: z.string(),
  clientSecret: z.string(),
  status: z.string()
}).meta({ id: "BillingSetupIntent" })

/** `POST /portal`. */
export const PortalRequest = z.object({ returnUrl: z.url().max(TEXT_MAX_LENGTH) })
/** A customer-portal session: open `url` in a browser. */
export const PortalSession = z.object({ id: z.string(), url: z.string(), returnUrl: z.string() }).meta({ id: "BillingPortalSession" })

/** `POST /api/billing/upgrade` (seed: all four required; `idempotencyKey` a UUID). */
export const UpgradeRequest = z.object({
  planId: PaidTier,
  paymentMethodId: BoundedId,
  billingEmail: EmailAddress,
  idempotencyKey: z.uuid()
})
export type UpgradeRequest = z.input<typeof UpgradeRequest>
/** The upgrade's answer: the subscription on its paid plan and the paid invoice. */
export const UpgradeResult = z.object({
  subscription: SubscriptionRecord,
  invoice: InvoiceRecord
}).meta({ id: "BillingUpgrade" })
export type UpgradeResult = z.infer<typeof UpgradeResult>

/** `POST /operator/credits` (seed: `amount` > 0; decision 0436: integer minor units). */
export const CreditRequest = z.object({
  customerId: BoundedId,
  amount: z.number().int().positive().max(100_000_000),
  currency: z.string().length(3).default("usd"),
  description: z.string().min(1).max(TEXT_MAX_LENGTH),
  reason: z.string().min(1).max(TEXT_MAX_LENGTH).optional()
})
/** A credit on a customer's balance, used by its next invoices. */
export const CreditRecord = z.object({
  id: z.string(),
  customerId: z.string(),
  amountMinor: MinorUnits,
  currency: z.string(),
  description: z.string(),
  balanceMinor: MinorUnits,
  createdAt: z.string()
}).meta({ id: "BillingCredit" })

/** `POST /operator/invoices/generate`. */
export const GenerateInvoiceRequest = z.object({
  customerId: BoundedId,
  description: z.string().min(1).max(TEXT_MAX_LENGTH).optional(),
  reason: z.string().min(1).max(TEXT_MAX_LENGTH).optional()
})
/** `PATCH /operator/subscriptions/{id}/override` (`trialEnd`: epoch milliseconds). */
export const OverrideRequest = z.object({
  planTier: PlanTier.optional(),
  trialEnd: z.number().int().min(0).max(8_640_000_000_000_000).optional(),
  reason: z.string().min(1).max(TEXT_MAX_LENGTH).optional()
})
/** `POST /operator/subscriptions/{id}/trial`. */
export const TrialRequest = z.object({
  trialDays: z.number().int().min(1).max(365),
  reason: z.string().min(1).max(TEXT_MAX_LENGTH).optional()
})
/** The operators' overview: recurring revenue and counts. */
export const OverviewRecord = z.object({
  mrrMinor: MinorUnits,
  currency: z.string(),
  activePlatforms: z.number().int(),
  trials: z.number().int(),
  pastDue: z.number().int(),
  cancelled: z.number().int(),
  byTier: z.record(z.string(), z.number().int()),
  /** Refunded at the payment provider, over every invoice (decision 0587). */
  refundedMinor: MinorUnits,
  /** Credited by issued credit notes, over every invoice. */
  creditedMinor: MinorUnits,
  /** Declined final invoices being retried (decision 0586). */
  collecting: z.number().int(),
  /** What is due on uncollectible invoices. */
  uncollectibleMinor: MinorUnits
}).meta({ id: "BillingOverview" })
/** One operator action: who, when, why, and the record before and after. */
export const OperatorLogEntry = z.object({
  id: z.string(),
  actor: z.string(),
  action: z.string(),
  target: z.string(),
  reason: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  at: z.string()
}).meta({ id: "BillingOperatorLogEntry" })
export const OperatorLogQuery = z.object({ target: BoundedId.optional(), cursor: cursorParam, limit: z.coerce.number().int().min(1).max(100).default(25) })
export const OperatorLogList = cursorPage(OperatorLogEntry)
/** The operator log's cursor: an offset into the (ordered) log. */
export const OperatorLogCursor = z.object({ offset: z.number().int().min(0) })
export type CreateCustomerBody = z.output<typeof CreateCustomerRequest>
export type UpdateCustomerBody = z.output<typeof UpdateCustomerRequest>
export type CreateProviderSubscriptionBody = z.output<typeof CreateProviderSubscriptionRequest>
export type UpdateProviderSubscriptionBody = z.output<typeof UpdateProviderSubscriptionRequest>
export type CreditRecord = z.infer<typeof CreditRecord>
export type OverviewRecord = z.infer<typeof OverviewRecord>
export type OperatorLogEntry = z.infer<typeof OperatorLogEntry>
