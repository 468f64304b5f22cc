import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { overageLine, proratedAllowance, usedShare } from "./InvoiceLines.js"
import { METERS, Plans } from "./Plans.js"
import { PaymentProvider, type ProviderInvoice } from "./ports/PaymentProvider.js"
import { UsageTotals } from "./ports/UsageTotals.js"
import type { SubscriptionRow } from "./SubscriptionsRepo.js"

/**
 * Metered overage of a subscription kept at Stripe (decision 0449): at the end of a period the
 * overage billing computes from metering (the same lines as its own period invoices, decision
 * 0440) goes to Stripe as one invoice item per meter on the subscription, so that Stripe's renewal
 * invoice carries it. Once per subscription, period and meter: the item is recorded in
 * `billing.provider_usage_items`, and Stripe's idempotency key
 * (`core-overage-<subscription>-<period start>-<meter>`) makes a retry after a lost answer the same
 * item. Whichever sees the period end first sends it — the billing cycle, or the webhook that
 * brings Stripe's renewal.
 */
export class ProviderOverage extends Effect.Service<ProviderOverage>()("@core/billing/ProviderOverage", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const provider = yield* PaymentProvider
    const usage = yield* UsageTotals
    const plans = yield* Plans

    /**
     * The items of the period `[periodStart, periodEnd)` of `row` (on its plan then), on
     * `onSubscription` or pending on the customer; the allowance is the plan's, or its `share` for a
     * period cut short (decision 0585).
     */
    const send = (row: SubscriptionRow, periodStart: Date, periodEnd: Date, onSubscription: boolean, share = 1) => Effect.gen(function*() {
      const providerSubscriptionId = row.providerSubscriptionId ?? null
      if (providerSubscriptionId === null || row.status === "trialing" || periodEnd.getTime() <= periodStart.getTime()) return 0
      const plan = plans.get(row.planId)
      const used = yield* usage.totals(row.platformId, periodStart, periodEnd)
      const sent = new Set(
        (yield* sql`SELECT meter FROM billing.provider_usage_items WHERE subscription_id = ${row.id} AND period_start = ${periodStart}`.pipe(Effect.orDie))
          .map((item: any) => item.meter as string)
      )
      const start = Math.floor(periodStart.getTime() / 1000)
      let count = 0
      for (const meter of METERS) {
        const line = overageLine(plan, meter, used[meter] ?? 0, share === 1 ? undefined : proratedAllowance(plan, meter, share))
        if (line === undefined || sent.has(meter)) continue
        const item = yield* provider.createInvoiceItem({
          customerId: row.customerId,
          subscriptionId: onSubscription ? providerSubscriptionId : null,
          amountMinor: line.amountMinor,
          currency: plan.currency,
          description: line.description,
          metadata: { meter, quantity: String(line.quantity), unitAmountMinor: String(line.unitAmountMinor), platformId: row.platformId, subscriptionId: row.id },
          periodStart,
          periodEnd,
          idempotencyKey: `core-overage-${row.id}-${start}-${meter}`
        })
        yield* sql`INSERT INTO billing.provider_usage_items (subscription_id, period_start, meter, provider_item_id, amount_minor, created_at)
          VALUES (${row.id}, ${periodStart}, ${meter}, ${item.id}, ${line.amountMinor}, ${new Date(yield* Clock.currentTimeMillis)})
          ON CONFLICT DO NOTHING`.pipe(Effect.orDie)
        count++
      }
      return count
    })

    /** Send the overage of the period `[periodStart, periodEnd)` of `row` to its next invoice at Stripe; answers the items sent now. */
    const bill = Effect.fn("ProviderOverage.bill")(function*(row: SubscriptionRow, periodStart: Date, periodEnd: Date) {
      return yield* send(row, periodStart, periodEnd, true)
    })

    /**
     * The last period of a subscription that ended at period end (Stripe makes no renewal invoice):
     * its overage as invoice items pending on the customer, and a one-off Stripe invoice of them,
     * finalized and paid now (`invoicePending`, key `core-final-<subscription>-<period start>`).
     * Once per period: the items record the invoice that took them (`provider_invoice_id`), so a
     * second call — the webhook after the cycle, a duplicate — sends and invoices nothing.
     * Answers the invoice made now, for the caller to mirror.
     *
     * Cancelled at once (`cut`: the instant, decision 0585), the period ends then: the overage of
     * `[periodStart, cut)` beyond the allowance's share of the period used, and the invoice takes
     * whatever is pending on the customer — Stripe's credit for the unused time (`prorate`) too —
     * even with no overage; nothing pending: no invoice.
     */
    const billFinal = Effect.fn("ProviderOverage.billFinal")(function*(row: SubscriptionRow, periodStart: Date, periodEnd: Date, cut?: Date) {
      const end = cut ?? periodEnd
      yield* send(row, periodStart, end, false, cut === undefined ? 1 : usedShare(periodStart, periodEnd, cut))
      const open = yield* sql`SELECT meter FROM billing.provider_usage_items
        WHERE subscription_id = ${row.id} AND period_start = ${periodStart} AND provider_invoice_id IS NULL`.pipe(Effect.orDie)
      if (open.length === 0 && cut === undefined) return Option.none<ProviderInvoice>()
      const start = Math.floor(periodStart.getTime() / 1000)
      const made = yield* provider.invoicePending({
        customerId: row.customerId,
        description: `${cut === undefined ? "Overage of the last period" : "Final invoice"}, ${periodStart.toISOString().slice(0, 10)} to ${end.toISOString().slice(0, 10)}`,
        metadata: { platformId: row.platformId, subscriptionId: row.id, periodStart: String(start) },
        idempotencyKey: `core-final-${row.id}-${start}`,
        ifPending: open.length === 0
      })
      if (Option.isNone(made)) return made
      const invoice = made.value
      yield* sql`UPDATE billing.provider_usage_items SET provider_invoice_id = ${invoice.id}
        WHERE subscription_id = ${row.id} AND period_start = ${periodStart} AND provider_invoice_id IS NULL`.pipe(Effect.orDie)
      return Option.some(invoice)
    })

    return { bill, billFinal }
  })
}) {}
