import type { Billing } from "@core/contracts"
import { Clock, Effect, Option } from "effect"
import { mirroredLines, totalOf } from "./InvoiceLines.js"
import type { Invoices } from "./Invoices.js"
import type { PlanId, PlanTable } from "./Plans.js"
import type { PaymentProvider, ProviderInvoice } from "./ports/PaymentProvider.js"
import type { ProrationQuotesRepo } from "./ProrationQuotesRepo.js"
import { makeProviderStart } from "./ProviderStart.js"
import type { SubscriptionRow } from "./SubscriptionsRepo.js"
import { noPaymentMethod, subscriptionGoneAtProvider } from "./Errors.js"

/** The proration lines of a Stripe invoice (Stripe's advice: the lines whose `proration` is true), as billing's lines. */
const prorationOf = (invoice: ProviderInvoice) => {
  const prorations = invoice.lines.filter((line) => line.proration)
  const lines = mirroredLines({ ...invoice, lines: prorations, totalMinor: totalOf(prorations), startingBalanceMinor: 0 })
  return { lines, amountMinor: totalOf(lines) }
}


/** Whole seconds: Stripe's proration dates are epoch seconds. */
const toSecond = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000)

/** What a change of tier answers. */
export interface TierChanged {
  readonly subscription: Billing.SubscriptionRecord
  readonly invoice: Billing.InvoiceRecord | null
  readonly amountMinor: number
}

/**
 * A change of tier that Stripe makes (decisions 0448, 0449): of a subscription kept there (Stripe's
 * proration, pinned by the preview's quote), or — with the Stripe provider — from `free`, which
 * starts the subscription there as the upgrade does (`ProviderStart`). `None`: billing's own
 * (the local provider, or a paid tier an operator set with no subscription at Stripe).
 */
export const makeProviderTierChange = (deps: {
  readonly provider: PaymentProvider["Type"]
  readonly invoices: Invoices
  readonly plans: PlanTable
  readonly quotes: ProrationQuotesRepo
  readonly save: (row: SubscriptionRow, before: SubscriptionRow) => Effect.Effect<SubscriptionRow>
  readonly record: (row: SubscriptionRow) => Billing.SubscriptionRecord
  readonly paymentMethodOf: (row: SubscriptionRow) => Effect.Effect<string | null>
}) => {
  const { invoices, plans, provider, quotes, record, save } = deps
  const start = makeProviderStart(provider, invoices)
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
  const kept = (row: SubscriptionRow) => row.providerSubscriptionId ?? null
  const fromFree = (row: SubscriptionRow) => provider.kind === "stripe" && row.planId === "free" && kept(row) === null

  /** Stripe's preview of the change at a proration date of now, kept as a quote so that the change that follows charges exactly this. */
  const previewKept = (row: SubscriptionRow, providerSubscriptionId: string, tier: PlanId) =>
    Effect.gen(function*() {
      const at = toSecond(yield* now)
      const invoice = yield* provider.previewPriceChange(providerSubscriptionId, tier, at)
      if (Option.isNone(invoice)) return yield* subscriptionGoneAtProvider
      const { amountMinor, lines } = prorationOf(invoice.value)
      yield* quotes.keep(row, tier, at, amountMinor)
      return {
        fromTier: row.planId,
        toTier: tier,
        currency: invoice.value.currency,
        prorationDate: at.toISOString(),
        periodStart: row.currentPeriodStart.toISOString(),
        periodEnd: row.currentPeriodEnd.toISOString(),
        lines: [...lines],
        amountMinor
      } satisfies Billing.ProrationPreview
    })

  /**
   * The item moved to the new price at the preview's proration date (or now, without a fresh
   * preview), invoiced and charged by Stripe at once (`always_invoice`; a declined card changes
   * nothing: 402); billing mirrors that invoice.
   */
  const changeKept = (row: SubscriptionRow, providerSubscriptionId: string, tier: PlanId) =>
    Effect.gen(function*() {
      const at = yield* now
      const prorationDate = Option.getOrElse(yield* quotes.take(row, tier, at), () => toSecond(at))
      const changed = yield* provider.changePrice(
        providerSubscriptionId,
        tier,
        prorationDate,
        `core-tier-${row.id}-${row.planId}-${tier}-${Math.floor(prorationDate.getTime() / 1000)}`
      )
      if (Option.isNone(changed)) return yield* subscriptionGoneAtProvider
      const proration = Option.map(changed.value.invoice, prorationOf)
      const invoice = Option.isNone(changed.value.invoice)
        ? Option.none<Billing.InvoiceRecord>()
        : yield* invoices.mirror(changed.value.invoice.value, { platformId: row.platformId, subscriptionId: row.id, description: `Change from ${row.planId} to ${tier}` })
      const saved = yield* save({ ...row, planId: tier, overridden: false }, row)
      return { subscription: record(saved), invoice: Option.getOrNull(invoice), amountMinor: Option.isSome(proration) ? proration.value.amountMinor : 0 } satisfies TierChanged
    })

  /**
   * From `free`: the subscription started at Stripe on the customer's payment method (none on file:
   * 402, as billing's own path answers), under
   * `core-tier-<subscription>-free-<tier>-<row's version>-<payment method>` — the same for a retry
   * of one change (a declined card's retry replays Stripe's 402 for 24 hours), another for a later
   * change or another card. Stripe charges the plan's first invoice; the answer's amount is that
   * invoice's, as its preview showed.
   */
  const changeFromFree = (row: SubscriptionRow, tier: PlanId) =>
    Effect.gen(function*() {
      const paymentMethodId = yield* deps.paymentMethodOf(row)
      if (paymentMethodId === null) return yield* noPaymentMethod
      const plan = plans.get(tier)
      const started = yield* start.start({
        row,
        plan,
        paymentMethodId,
        idempotencyKey: `core-tier-${row.id}-free-${tier}-${row.updatedAt.getTime()}-${paymentMethodId}`,
        description: `Change from free to ${plan.name}`
      })
      const saved = yield* save({
        ...row,
        planId: tier,
        status: "active",
        currentPeriodStart: started.subscription.currentPeriodStart,
        currentPeriodEnd: started.subscription.currentPeriodEnd,
        cancelAtPeriodEnd: false,
        pastDueSince: null,
        overridden: false,
        paymentMethodId,
        providerSubscriptionId: started.subscription.id
      }, row)
      return { subscription: record(saved), invoice: Option.getOrNull(started.invoice), amountMinor: started.amountMinor } satisfies TierChanged
    })

  /** The preview of a change Stripe makes; `None`: billing's own. */
  const preview = (row: SubscriptionRow, tier: PlanId) =>
    Effect.gen(function*() {
      const id = kept(row)
      if (id !== null) return Option.some(yield* previewKept(row, id, tier))
      if (!fromFree(row)) return Option.none<Billing.ProrationPreview>()
      const previewed = yield* start.preview(row, plans.get(tier))
      if (Option.isNone(previewed)) return yield* subscriptionGoneAtProvider
      return previewed
    })

  /** A change Stripe makes; `None`: billing's own. */
  const change = (row: SubscriptionRow, tier: PlanId) =>
    Effect.gen(function*() {
      const id = kept(row)
      if (id !== null) return Option.some(yield* changeKept(row, id, tier))
      if (!fromFree(row)) return Option.none<TierChanged>()
      return Option.some(yield* changeFromFree(row, tier))
    })

  return { preview, change }
}
