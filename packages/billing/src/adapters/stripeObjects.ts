import type Stripe from "stripe"
import type { Customer, PaymentMethod, ProviderCreditNote, ProviderInvoice, ProviderInvoiceLine, ProviderRefund, ProviderSubscription } from "../ports/PaymentProvider.js"

/**
 * Stripe's objects as the port's (decision 0444): seconds to dates, expanded or bare ids, metadata
 * as strings, and the fields newer API versions moved (a subscription's period on its items, an
 * invoice's subscription and a line's proration flag under `parent`).
 */
export const fromSeconds = (seconds: number | null | undefined): Date => new Date((seconds ?? 0) * 1000)
export const toSeconds = (at: Date): number => Math.floor(at.getTime() / 1000)
export const idOf = (value: string | { readonly id: string } | null | undefined): string | null =>
  value === null || value === undefined ? null : typeof value === "string" ? value : value.id

/** Stripe keeps metadata as strings (50 keys, 500 characters a value). */
export const stringMetadata = (metadata: Record<string, unknown> | undefined): Record<string, string> =>
  Object.fromEntries(
    Object.entries(metadata ?? {}).slice(0, 50).filter(([, value]) => value !== undefined && value !== null).map(([key, value]) => [
      key.slice(0, 40),
      (typeof value === "string" ? value : JSON.stringify(value)).slice(0, 500)
    ])
  )

export const toCustomer = (customer: Stripe.Customer): Customer => ({
  id: customer.id,
  email: customer.email ?? "",
  name: customer.name ?? null,
  metadata: { ...customer.metadata },
  platformId: customer.metadata?.platformId ?? null,
  // Stripe's balance is what the customer owes: a credit is negative there, positive here (decision 0436).
  balanceMinor: -(customer.balance ?? 0),
  currency: customer.currency ?? "usd",
  defaultPaymentMethodId: idOf(customer.invoice_settings?.default_payment_method),
  createdAt: fromSeconds(customer.created)
})

export const toPaymentMethod = (method: Stripe.PaymentMethod): PaymentMethod => ({
  id: method.id,
  customerId: idOf(method.customer),
  brand: method.card?.brand ?? "unknown",
  last4: method.card?.last4 ?? "0000",
  expMonth: method.card?.exp_month ?? 1,
  expYear: method.card?.exp_year ?? 1970,
  createdAt: fromSeconds(method.created)
})

export const toSubscription = (subscription: Stripe.Subscription): ProviderSubscription => {
  const item = subscription.items?.data?.[0]
  // Since API version 2025-03-31 the period is the item's; older versions kept it on the subscription.
  const legacy = subscription as unknown as { current_period_start?: number; current_period_end?: number }
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer) ?? "",
    priceId: item?.price?.id ?? "",
    quantity: item?.quantity ?? 1,
    paymentMethodId: idOf(subscription.default_payment_method),
    metadata: { ...subscription.metadata },
    status: subscription.status,
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    currentPeriodStart: fromSeconds(item?.current_period_start ?? legacy.current_period_start),
    currentPeriodEnd: fromSeconds(item?.current_period_end ?? legacy.current_period_end),
    cancelledAt: subscription.canceled_at === null ? null : fromSeconds(subscription.canceled_at),
    createdAt: fromSeconds(subscription.created),
    latestInvoiceId: idOf(subscription.latest_invoice)
  }
}

export const toLine = (line: Stripe.InvoiceLineItem): ProviderInvoiceLine => {
  // Since API version 2025-03-31 a line's origin and proration flag are under `parent`; older versions kept `proration` and `type` on the line.
  const legacy = line as unknown as { proration?: boolean; type?: string }
  const fromItem = line.parent?.type === "invoice_item_details" || legacy.type === "invoiceitem"
  const details = line.parent?.subscription_item_details ?? line.parent?.invoice_item_details
  return {
    id: line.id,
    amountMinor: line.amount,
    description: line.description ?? "",
    quantity: line.quantity ?? 1,
    proration: details?.proration ?? legacy.proration ?? false,
    source: fromItem ? "invoice_item" : "subscription",
    metadata: { ...line.metadata },
    periodStart: fromSeconds(line.period?.start),
    periodEnd: fromSeconds(line.period?.end)
  }
}

export const toInvoice = (invoice: Stripe.Invoice, lines: ReadonlyArray<Stripe.InvoiceLineItem> = invoice.lines?.data ?? []): ProviderInvoice => {
  const legacy = invoice as unknown as { subscription?: string | { id: string } | null }
  return {
    id: invoice.id ?? "",
    customerId: idOf(invoice.customer) ?? "",
    subscriptionId: idOf(invoice.parent?.subscription_details?.subscription ?? legacy.subscription),
    status: invoice.status ?? "draft",
    amountDueMinor: invoice.amount_due,
    amountPaidMinor: invoice.amount_paid,
    attempted: invoice.attempted,
    createdAt: fromSeconds(invoice.created),
    currency: invoice.currency ?? "usd",
    totalMinor: invoice.total,
    startingBalanceMinor: invoice.starting_balance ?? 0,
    billingReason: invoice.billing_reason ?? null,
    lines: lines.map(toLine),
    periodStart: fromSeconds(invoice.period_start),
    periodEnd: fromSeconds(invoice.period_end),
    finalizedAt: invoice.status_transitions?.finalized_at == null ? null : fromSeconds(invoice.status_transitions.finalized_at),
    paidAt: invoice.status_transitions?.paid_at == null ? null : fromSeconds(invoice.status_transitions.paid_at)
  }
}

export const toRefund = (refund: Stripe.Refund): ProviderRefund => ({
  id: refund.id,
  amountMinor: refund.amount,
  status: refund.status ?? "pending",
  reason: refund.reason ?? null,
  createdAt: fromSeconds(refund.created)
})

export const toCreditNote = (note: Stripe.CreditNote): ProviderCreditNote => ({
  id: note.id,
  number: note.number,
  // The credit note's total: what it takes off the invoice (refunded, credited or out of band).
  amountMinor: note.total,
  status: note.status,
  type: note.type,
  reason: note.reason ?? null,
  createdAt: fromSeconds(note.created)
})
