import type { Billing } from "@core/contracts"
import { Effect, Option } from "effect"
import { Collections } from "./Collections.js"
import { finalLines } from "./InvoiceLines.js"
import { Invoices } from "./Invoices.js"
import { paymentMethodOf } from "./internal/paymentMethod.js"
import { Plans } from "./Plans.js"
import { PaymentProvider, type ProviderInvoice } from "./ports/PaymentProvider.js"
import { UsageTotals } from "./ports/UsageTotals.js"
import { ProviderOverage } from "./ProviderOverage.js"
import type { SubscriptionRow } from "./SubscriptionsRepo.js"

/**
 * The last invoice of a subscription (decisions 0449, 0585, 0586): the last period of one cancelled
 * at period end (Stripe's one-off invoice of its overage), and the partial last period of one
 * cancelled at once — a platform deleted, or set to `free` in the registry — prorated as Stripe's
 * final invoice is: the customer pays for the share of the period used. Whichever it is, a declined
 * one goes to `Collections`, which retries it on a schedule.
 */
export class FinalInvoices extends Effect.Service<FinalInvoices>()("@core/billing/FinalInvoices", {
  effect: Effect.gen(function*() {
    const provider = yield* PaymentProvider
    const invoices = yield* Invoices
    const overage = yield* ProviderOverage
    const collections = yield* Collections
    const usage = yield* UsageTotals
    const plans = yield* Plans

    /** Mirror a Stripe final invoice; declined (open after its attempt), its collection starts. */
    const mirrorFinal = (row: SubscriptionRow, invoice: ProviderInvoice, description: string, actor: string) =>
      Effect.gen(function*() {
        const mirrored = yield* invoices.mirror(invoice, { platformId: row.platformId, subscriptionId: row.id, description })
        if (Option.isSome(mirrored) && mirrored.value.status === "open" && invoice.attempted) yield* collections.start(mirrored.value, "The payment of the final invoice failed", actor)
        return mirrored
      })

    /** The last period of a subscription kept at Stripe that ended at period end: its overage, once. */
    const billLastPeriod = Effect.fn("FinalInvoices.billLastPeriod")(function*(row: SubscriptionRow, actor: string) {
      const final = yield* overage.billFinal(row, row.currentPeriodStart, row.currentPeriodEnd)
      if (Option.isSome(final)) yield* mirrorFinal(row, final.value, "Overage of the last period", actor)
    })

    /** Billing's own final invoice of `[periodStart, at)`, charged now; once per period. */
    const billOwn = (row: SubscriptionRow, at: Date, actor: string) =>
      Effect.gen(function*() {
        if (yield* invoices.finalExists(row.id, row.currentPeriodStart)) return Option.none<Billing.InvoiceRecord>()
        const customer = yield* provider.getCustomer(row.customerId)
        const lines = finalLines({
          plan: plans.get(row.planId),
          trialing: row.status === "trialing",
          periodStart: row.currentPeriodStart,
          periodEnd: row.currentPeriodEnd,
          at,
          usage: yield* usage.totals(row.platformId, row.currentPeriodStart, at),
          balanceMinor: Option.isSome(customer) ? customer.value.balanceMinor : 0
        })
        if (lines.length === 0) return Option.none<Billing.InvoiceRecord>()
        const invoice = yield* invoices.create({
          platformId: row.platformId,
          customerId: row.customerId,
          subscriptionId: row.id,
          kind: "final",
          currency: "usd",
          description: `Final invoice, ${plans.get(row.planId).name} plan, ${row.currentPeriodStart.toISOString().slice(0, 10)} to ${at.toISOString().slice(0, 10)}`,
          periodStart: row.currentPeriodStart,
          periodEnd: at,
          lines
        })
        const credit = lines.find((line) => line.kind === "credit")
        if (credit !== undefined) yield* provider.adjustBalance(row.customerId, credit.amountMinor, "usd", "Credit applied to an invoice", invoice.id)
        if (invoice.status !== "open") return Option.some(invoice)
        const method = yield* paymentMethodOf(provider, row)
        const charged = method === null
          ? { _tag: "Left" as const, message: "No payment method on file" }
          : yield* Effect.either(provider.charge({ customerId: row.customerId, paymentMethodId: method, amountMinor: invoice.amountDueMinor, currency: "usd", description: `Invoice ${invoice.id}`, invoiceId: invoice.id })).pipe(
            Effect.map((either) => either._tag === "Left" ? { _tag: "Left" as const, message: either.left.message } : { _tag: "Right" as const })
          )
        if (charged._tag === "Right") return Option.some(yield* invoices.markPaid(invoice.id))
        yield* collections.start(invoice, charged.message, actor)
        return Option.some(invoice)
      })

    /**
     * A subscription cancelled at once at `at` (decision 0585). Kept at Stripe: cancelled there with
     * `prorate` (Stripe credits the unused time as a pending item), then the one-off final invoice of
     * decision 0449 takes the period's overage so far — beyond the allowance's share of the period
     * used — and that credit. Billing's own: a `final` invoice of the used share of the base price and
     * the overage beyond the allowance's share. Answers the invoice, if one was made.
     */
    const closeAtOnce = Effect.fn("FinalInvoices.closeAtOnce")(function*(row: SubscriptionRow, at: Date, actor: string) {
      const providerSubscriptionId = row.providerSubscriptionId ?? null
      if (providerSubscriptionId === null) return yield* billOwn(row, at, actor)
      yield* provider.cancelSubscription(providerSubscriptionId, false, { prorate: row.status !== "trialing" })
      const final = yield* overage.billFinal(row, row.currentPeriodStart, row.currentPeriodEnd, at)
      return Option.isNone(final) ? Option.none<Billing.InvoiceRecord>() : yield* mirrorFinal(row, final.value, "Final invoice", actor)
    })

    return { billLastPeriod, closeAtOnce }
  })
}) {}
