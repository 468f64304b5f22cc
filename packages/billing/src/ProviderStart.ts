import type { Billing } from "@core/contracts"
import type { PaymentFailed } from "@core/kernel"
import { Effect, Option } from "effect"
import { mirroredLines, totalOf } from "./InvoiceLines.js"
import type { Invoices } from "./Invoices.js"
import type { Plan } from "./Plans.js"
import type { PaymentProvider, ProviderInvoice, ProviderSubscription } from "./ports/PaymentProvider.js"
import type { SubscriptionRow } from "./SubscriptionsRepo.js"

/** What a subscription started at Stripe made: the subscription, its first invoice mirrored, and what that invoice charged. */
export interface Started {
  readonly subscription: ProviderSubscription
  readonly invoice: Option.Option<Billing.InvoiceRecord>
  /** The sum of the mirrored lines of the first invoice: what was due (Stripe's amount less the credit it applied). */
  readonly amountMinor: number
}

/** The first invoice's lines as billing's, and their sum. */
const chargedBy = (invoice: ProviderInvoice) => {
  const lines = mirroredLines(invoice)
  return { lines, amountMinor: totalOf(lines) }
}

/**
 * A platform's subscription started at Stripe (decisions 0448, 0449) — the one code path of the
 * upgrade (`POST /upgrade`) and of a change of tier from `free` (`POST /subscription/change-tier`):
 * made with the platform's customer on the plan's price and the payment method, its first invoice
 * charged at once or the creation fails (`error_if_incomplete`: a declined card is `PaymentFailed`
 * and Stripe keeps nothing), under the caller's deterministic key, so a retry never makes a second.
 * Its first invoice is mirrored into billing's invoices.
 */
export const makeProviderStart = (provider: PaymentProvider["Type"], invoices: Invoices) => {
  const start = (input: {
    readonly row: SubscriptionRow
    readonly plan: Plan
    readonly paymentMethodId: string
    readonly idempotencyKey: string
    readonly description: string
  }): Effect.Effect<Started, PaymentFailed> =>
    Effect.gen(function*() {
      const { row } = input
      const subscription = yield* provider.createSubscription({
        customerId: row.customerId,
        priceId: input.plan.id,
        quantity: 1,
        paymentMethodId: input.paymentMethodId,
        metadata: { platformId: row.platformId, subscriptionId: row.id },
        idempotencyKey: input.idempotencyKey
      })
      const first = subscription.latestInvoiceId === null ? Option.none<ProviderInvoice>() : yield* provider.getInvoice(subscription.latestInvoiceId)
      const invoice = Option.isNone(first)
        ? Option.none<Billing.InvoiceRecord>()
        : yield* invoices.mirror(first.value, { platformId: row.platformId, subscriptionId: row.id, description: input.description })
      return { subscription, invoice, amountMinor: Option.isSome(first) ? chargedBy(first.value).amountMinor : 0 }
    })

  /**
   * What `start` would charge, to the cent: Stripe's preview of the new subscription's first
   * invoice (`invoices.createPreview` with the customer and `subscription_details.items`), its lines
   * as the mirrored invoice's will be. `None`: the provider keeps no subscriptions (the local one).
   */
  const preview = (row: SubscriptionRow, plan: Plan) =>
    Effect.gen(function*() {
      const found = yield* provider.previewSubscription(row.customerId, plan.id)
      if (Option.isNone(found)) return Option.none<Billing.ProrationPreview>()
      const invoice = found.value
      const { amountMinor, lines } = chargedBy(invoice)
      const base = invoice.lines.find((line) => line.source === "subscription")
      const periodStart = base?.periodStart ?? invoice.periodStart
      return Option.some({
        fromTier: row.planId,
        toTier: plan.id,
        currency: invoice.currency,
        prorationDate: periodStart.toISOString(),
        periodStart: periodStart.toISOString(),
        periodEnd: (base?.periodEnd ?? invoice.periodEnd).toISOString(),
        lines: [...lines],
        amountMinor
      } satisfies Billing.ProrationPreview)
    })

  return { start, preview }
}
