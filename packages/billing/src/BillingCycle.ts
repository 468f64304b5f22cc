import { Database } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Config, Duration, Effect, Layer, Option, Schedule } from "effect"
import { addMonth } from "./adapters/PaymentProviderLocal.js"
import { Collections } from "./Collections.js"
import { FinalInvoices } from "./FinalInvoices.js"
import { Invoices } from "./Invoices.js"
import { periodLines } from "./InvoiceLines.js"
import { Plans } from "./Plans.js"
import { BillingPlatforms } from "./ports/BillingPlatforms.js"
import { PaymentProvider } from "./ports/PaymentProvider.js"
import { ProviderOverage } from "./ProviderOverage.js"
import { UsageTotals } from "./ports/UsageTotals.js"
import { Subscriptions } from "./Subscriptions.js"
import { type SubscriptionRow, SubscriptionsRepo } from "./SubscriptionsRepo.js"
import { makeIdempotencyKeysRepo } from "./IdempotencyKeysRepo.js"

/** The past-due grace period before a platform is suspended. @default 14 days */
export const GRACE_DEFAULT = Duration.days(14)

/**
 * The billing cycle (decision 0440): at each period end an invoice (base price, overage from
 * metering, credit), charged to the payment method on file; a payment that fails makes the
 * subscription `past_due`, and past due beyond the grace period suspends the platform through the
 * registry. Paying (`settle`) makes it `active` again and restores the platform.
 */
export class BillingCycle extends Effect.Service<BillingCycle>()("@core/billing/BillingCycle", {
  effect: Effect.gen(function*() {
    const repo = yield* SubscriptionsRepo
    const sql = yield* SqlClient.SqlClient
    const subscriptions = yield* Subscriptions
    const invoices = yield* Invoices
    const provider = yield* PaymentProvider
    const usage = yield* UsageTotals
    const plans = yield* Plans
    const platforms = yield* BillingPlatforms
    const overage = yield* ProviderOverage
    const finals = yield* FinalInvoices
    const collections = yield* Collections
    const graceDays = yield* Config.integer("BILLING_PAST_DUE_GRACE_DAYS").pipe(
      Config.validate({ message: "must be a whole number of days of at least 0", validation: (n) => n >= 0 }),
      Config.withDefault(Duration.toDays(GRACE_DEFAULT))
    ).pipe(Effect.orDie)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** Charge an open invoice; `true` when paid, else `invoice.payment_failed` is recorded. */
    const collect = (row: SubscriptionRow, invoiceId: string, amountMinor: number) =>
      Effect.gen(function*() {
        const paymentMethodId = yield* subscriptions.paymentMethodOf(row)
        if (paymentMethodId === null) return yield* Effect.as(invoices.paymentFailed(invoiceId), false)
        const charged = yield* Effect.either(provider.charge({ customerId: row.customerId, paymentMethodId, amountMinor, currency: "usd", description: `Invoice ${invoiceId}`, invoiceId }))
        if (charged._tag === "Left") return yield* Effect.as(invoices.paymentFailed(invoiceId), false)
        yield* invoices.markPaid(invoiceId)
        return true
      })

    /** Close one subscription's ended period. */
    const closePeriod = (row: SubscriptionRow) =>
      Effect.gen(function*() {
        const at = yield* now
        if (row.cancelAtPeriodEnd) {
          // Kept at Stripe, it ends with no renewal invoice: the last period's overage is a one-off
          // invoice there, mirrored (decision 0449; once per period, whichever sees the end first).
          yield* finals.billLastPeriod(row, "scheduler")
          return yield* subscriptions.save({ ...row, status: "cancelled", cancelledAt: at, cancelAtPeriodEnd: false }, row)
        }
        const trialing = row.status === "trialing"
        // A subscription kept at Stripe is renewed and invoiced there (decision 0448); its webhooks set
        // its state. Its metered overage goes to Stripe's renewal invoice as invoice items (decision 0449).
        const chargedByProvider = (row.providerSubscriptionId ?? null) !== null
        if (chargedByProvider) yield* overage.bill(row, row.currentPeriodStart, row.currentPeriodEnd)
        if (!chargedByProvider && !(yield* invoices.forPeriod(row.id, row.currentPeriodStart))) {
          const customer = yield* provider.getCustomer(row.customerId)
          const balance = Option.isSome(customer) ? customer.value.balanceMinor : 0
          const used = yield* usage.totals(row.platformId, row.currentPeriodStart, row.currentPeriodEnd)
          const lines = periodLines({ plan: plans.get(row.planId), trialing, usage: used, balanceMinor: balance })
          if (lines.length > 0) {
            const invoice = yield* invoices.create({
              platformId: row.platformId,
              customerId: row.customerId,
              subscriptionId: row.id,
              kind: "period",
              currency: "usd",
              description: `${plans.get(row.planId).name} plan, ${row.currentPeriodStart.toISOString().slice(0, 10)} to ${row.currentPeriodEnd.toISOString().slice(0, 10)}`,
              periodStart: row.currentPeriodStart,
              periodEnd: row.currentPeriodEnd,
              lines
            })
            const credit = lines.find((line) => line.kind === "credit")
            if (credit !== undefined) yield* provider.adjustBalance(row.customerId, credit.amountMinor, "usd", "Credit applied to an invoice", invoice.id)
            if (invoice.status === "open" && !(yield* collect(row, invoice.id, invoice.amountDueMinor))) {
              row = { ...row, status: "past_due", pastDueSince: row.pastDueSince ?? at }
            }
          }
        }
        const trialOver = row.trialEnd !== null && row.trialEnd.getTime() <= row.currentPeriodEnd.getTime()
        const status = row.status === "trialing" && trialOver ? "active" as const : row.status
        return yield* subscriptions.save({
          ...row,
          status,
          currentPeriodStart: row.currentPeriodEnd,
          currentPeriodEnd: addMonth(row.currentPeriodEnd)
        }, row)
      })

    /** Every period ended by now, each in its own transaction-free step (the invoice is unique per period). */
    const runDue = Effect.fn("BillingCycle.runDue")(function*() {
      let closed = 0
      for (let round = 0; round < 24; round++) {
        const due = yield* repo.due(yield* now)
        if (due.length === 0) break
        for (const row of due) {
          yield* closePeriod(row)
          closed++
        }
      }
      return closed
    })

    /** Suspend the platforms past due for longer than the grace period. */
    const enforceGrace = Effect.fn("BillingCycle.enforceGrace")(function*() {
      const at = yield* now
      const overdue = yield* repo.pastDueBefore(new Date(at.getTime() - graceDays * 86_400_000))
      for (const row of overdue) {
        const platform = yield* platforms.find(row.platformId)
        if (Option.isSome(platform) && platform.value.status === "active") {
          yield* platforms.suspend(row.platformId, "Subscription past due beyond the grace period")
        }
      }
      return overdue.length
    })

    /**
     * Pay the open invoices of a subscription, and the final invoices being collected (decision
     * 0586); all paid: `active` again, and the platform restored.
     */
    const settle = Effect.fn("BillingCycle.settle")(function*(platformId: string) {
      const found = yield* repo.byPlatform(platformId)
      if (Option.isNone(found)) return false
      const row = found.value
      if (!(yield* collections.settle(row.id, "customer"))) return false
      for (const invoice of yield* invoices.open(row.id)) {
        if ((yield* collections.get(invoice.id))._tag === "Some") continue
        if (!(yield* collect(row, invoice.id, invoice.amountDueMinor))) return false
      }
      if (row.status === "past_due") {
        yield* subscriptions.save({ ...row, status: "active", pastDueSince: null }, row)
        const platform = yield* platforms.find(platformId)
        if (Option.isSome(platform) && platform.value.status === "suspended") yield* platforms.restore(platformId)
      }
      return true
    })

    /** Meet every platform of the registry: backfill subscriptions and apply the registry's changes. */
    const reconcileAll = Effect.fn("BillingCycle.reconcileAll")(function*() {
      const all = yield* platforms.list()
      for (const platform of all) yield* subscriptions.ensure(platform)
      // A platform deleted in the registry (or gone) cancels its subscription at once.
      const live = new Set(all.map((platform) => platform.id))
      for (const row of yield* repo.all()) {
        if (row.status === "cancelled" || live.has(row.platformId)) continue
        const found = yield* platforms.find(row.platformId)
        if (Option.isNone(found) || found.value.status === "deleted") yield* subscriptions.endNow(row, "registry")
      }
      return all.length
    })

    /** Forget the upgrade's idempotency keys older than 24 hours. */
    const purgeKeys = Effect.fn("BillingCycle.purgeKeys")(function*() {
      return yield* makeIdempotencyKeysRepo(sql).purgeExpired(yield* now)
    })

    /** The declined final invoices' retries due by now (decision 0586). */
    const retryDue = collections.retryDue

    /** One turn of the scheduled job. */
    const tick = Effect.all([reconcileAll(), runDue(), retryDue(), enforceGrace(), purgeKeys()], { discard: true })

    return { runDue, retryDue, enforceGrace, settle, reconcileAll, purgeKeys, tick }
  })
}) {}

/**
 * The scheduled job: a turn every `every` (default a minute) while the service runs, in its scope.
 * A failed turn is logged and the next one tries again.
 */
export const scheduled = (every: Duration.DurationInput = Duration.minutes(1)) =>
  Layer.scopedDiscard(
    Effect.flatMap(BillingCycle, (cycle) =>
      cycle.tick.pipe(
        Effect.catchAllCause((cause) => Database.logFailure("billing cycle turn failed", cause, "Warning")),
        Effect.repeat(Schedule.spaced(every)),
        Effect.delay(Duration.seconds(5)),
        Effect.forkScoped
      ))
  )
