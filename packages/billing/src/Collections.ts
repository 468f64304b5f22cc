import type { Billing } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { BillingConfig } from "./Config.js"
import { Invoices } from "./Invoices.js"
import { OperatorLog } from "./OperatorLog.js"
import { paymentMethodOf } from "./internal/paymentMethod.js"
import { BillingPlatforms } from "./ports/BillingPlatforms.js"
import { PaymentProvider } from "./ports/PaymentProvider.js"
import { SubscriptionsRepo } from "./SubscriptionsRepo.js"

const DAY = 86_400_000

/** A declined final invoice being collected (`billing.invoice_collections`). */
export interface Collection {
  readonly invoiceId: string
  readonly subscriptionId: string
  readonly platformId: string | null
  readonly state: "retrying" | "paid" | "uncollectible"
  readonly failedAttempts: number
  readonly firstFailedAt: Date
  readonly nextAttemptAt: Date | null
  readonly lastFailure: string | null
  readonly suspended: boolean
}

const toCollection = (row: any): Collection => ({
  invoiceId: row.invoice_id,
  subscriptionId: row.subscription_id,
  platformId: row.platform_id ?? null,
  state: row.state,
  failedAttempts: Number(row.failed_attempts),
  firstFailedAt: Rows.toDate(row.first_failed_at),
  nextAttemptAt: Rows.toDateOrNull(row.next_attempt_at),
  lastFailure: row.last_failure ?? null,
  suspended: Boolean(row.suspended)
})

/** What the operator log keeps of a collection's step. */
const view = (collection: Collection, invoice: Billing.InvoiceRecord) => ({
  invoiceId: invoice.id,
  status: invoice.status,
  amountDueMinor: invoice.amountDueMinor,
  failedAttempts: collection.failedAttempts,
  nextAttemptAt: collection.nextAttemptAt?.toISOString() ?? null,
  lastFailure: collection.lastFailure
})

/**
 * The collection of a declined final invoice (decision 0586). Stripe stops collecting a customer's
 * invoices once the subscription is cancelled, and a one-off invoice made with `auto_advance: false`
 * is never retried, so billing retries it itself, as Stripe's smart retries would: the attempts at
 * `finalInvoiceRetryDays` after the first failure (default 3, 7 and 14 days), each on the payment
 * method on file then. When the last fails the invoice is `uncollectible` and the platform is
 * suspended through the registry, as the past-due rule suspends (decision 0440); paying it later
 * (a new card, or at Stripe) makes it `paid` and restores the platform. Every step is in the
 * operator log (actor `scheduler`, or `stripe` for what a webhook brought).
 */
export class Collections extends Effect.Service<Collections>()("@core/billing/Collections", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* BillingConfig
    const provider = yield* PaymentProvider
    const invoices = yield* Invoices
    const log = yield* OperatorLog
    const platforms = yield* BillingPlatforms
    const repo = yield* SubscriptionsRepo
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const schedule = config.finalInvoiceRetryDays

    /** When the attempt after `failedAttempts` failures is due; `null`: none is left. */
    const nextAttempt = (firstFailedAt: Date, failedAttempts: number): Date | null => {
      const days = schedule[failedAttempts - 1]
      return days === undefined ? null : new Date(firstFailedAt.getTime() + days * DAY)
    }

    const read = (invoiceId: string, lock = false) =>
      Effect.map(
        lock
          ? sql`SELECT * FROM billing.invoice_collections WHERE invoice_id = ${invoiceId} FOR UPDATE`
          : sql`SELECT * FROM billing.invoice_collections WHERE invoice_id = ${invoiceId}`,
        (rows) => Option.map(Option.fromNullable(rows[0]), toCollection)
      ).pipe(Effect.orDie)

    const write = (collection: Collection) =>
      Effect.gen(function*() {
        yield* sql`UPDATE billing.invoice_collections SET state = ${collection.state}, failed_attempts = ${collection.failedAttempts},
            next_attempt_at = ${collection.nextAttemptAt}, last_failure = ${collection.lastFailure}, suspended = ${collection.suspended},
            updated_at = ${yield* now}
          WHERE invoice_id = ${collection.invoiceId}`
        return collection
      }).pipe(Effect.orDie)

    /** Give up: the invoice uncollectible (at Stripe too), the platform suspended if it is active. */
    const exhaust = (collection: Collection, actor: string) =>
      Effect.gen(function*() {
        const providerId = yield* invoices.providerIdOf(collection.invoiceId)
        const before = Option.getOrThrow(yield* invoices.get(collection.invoiceId))
        const invoice = providerId === null
          ? yield* invoices.markUncollectible(collection.invoiceId)
          : Option.getOrThrow(yield* invoices.mirror(yield* provider.markInvoiceUncollectible(providerId), { platformId: collection.platformId ?? "", subscriptionId: collection.subscriptionId }))
        let next: Collection = { ...collection, state: "uncollectible", nextAttemptAt: null }
        yield* log.record({ actor, action: "invoice.uncollectible", target: collection.invoiceId, reason: "The final invoice's retries are exhausted", before: view(collection, before), after: view(next, invoice) })
        const platform = collection.platformId === null ? Option.none() : yield* platforms.find(collection.platformId)
        if (Option.isSome(platform) && platform.value.status === "active") {
          yield* platforms.suspend(platform.value.id, "Final invoice uncollectible")
          next = { ...next, suspended: true }
          yield* log.record({ actor, action: "platform.suspend", target: platform.value.id, reason: `Final invoice ${collection.invoiceId} uncollectible`, before: { status: "active" }, after: { status: "suspended" } })
        }
        return yield* write(next)
      })

    /**
     * The final invoice's first attempt failed: collection starts (once per invoice), the next
     * attempt scheduled — or, with no retries configured, the invoice given up at once.
     */
    const start = Effect.fn("Collections.start")(function*(invoice: Billing.InvoiceRecord, failure: string | null, actor = "scheduler") {
      if (invoice.status !== "open" || invoice.subscriptionId === null) return Option.none<Collection>()
      const at = yield* now
      const collection: Collection = {
        invoiceId: invoice.id,
        subscriptionId: invoice.subscriptionId,
        platformId: invoice.platformId,
        state: "retrying",
        failedAttempts: 1,
        firstFailedAt: at,
        nextAttemptAt: nextAttempt(at, 1),
        lastFailure: failure,
        suspended: false
      }
      const inserted = yield* sql`INSERT INTO billing.invoice_collections (invoice_id, subscription_id, platform_id, state, failed_attempts,
          first_failed_at, next_attempt_at, last_failure, updated_at)
        VALUES (${invoice.id}, ${invoice.subscriptionId}, ${invoice.platformId}, 'retrying', 1, ${at}, ${collection.nextAttemptAt}, ${failure}, ${at})
        ON CONFLICT (invoice_id) DO NOTHING RETURNING invoice_id`.pipe(Effect.orDie)
      if (inserted.length === 0) return yield* read(invoice.id)
      yield* invoices.paymentFailed(invoice.id)
      yield* log.record({ actor, action: "invoice.payment_failed", target: invoice.id, reason: failure ?? "The payment failed", before: null, after: view(collection, invoice) })
      return Option.some(collection.nextAttemptAt === null ? yield* exhaust(collection, actor) : collection)
    })

    /** One attempt to pay a collected invoice now: billing's own charged, Stripe's paid at Stripe. */
    const pay = (collection: Collection) =>
      Effect.gen(function*() {
        const providerId = yield* invoices.providerIdOf(collection.invoiceId)
        if (providerId !== null) {
          const paid = yield* provider.payInvoice(providerId, `core-collect-${collection.invoiceId}-${collection.failedAttempts + 1}`)
          const invoice = Option.getOrThrow(yield* invoices.mirror(paid.invoice, { platformId: collection.platformId ?? "", subscriptionId: collection.subscriptionId }))
          return { invoice, failure: invoice.status === "paid" ? null : paid.failure ?? "The payment failed" }
        }
        const invoice = Option.getOrThrow(yield* invoices.get(collection.invoiceId))
        const subscription = yield* repo.byId(collection.subscriptionId)
        const method = Option.isNone(subscription) ? null : yield* paymentMethodOf(provider, subscription.value)
        if (method === null) return { invoice, failure: "No payment method on file" }
        const charged = yield* Effect.either(provider.charge({
          customerId: invoice.customerId,
          paymentMethodId: method,
          amountMinor: invoice.amountDueMinor,
          currency: invoice.currency,
          description: `Invoice ${invoice.id}`,
          invoiceId: invoice.id
        }))
        if (charged._tag === "Left") return { invoice, failure: charged.left.message }
        return { invoice: yield* invoices.markPaid(invoice.id), failure: null }
      })

    /** The invoice is paid: collection ends, and a platform it suspended is restored. */
    const paid = (collection: Collection, invoice: Billing.InvoiceRecord, actor: string) =>
      Effect.gen(function*() {
        const next = yield* write({ ...collection, state: "paid", nextAttemptAt: null, lastFailure: null, suspended: false })
        yield* log.record({ actor, action: "invoice.paid", target: collection.invoiceId, reason: "The final invoice was paid", before: view(collection, invoice), after: view(next, invoice) })
        if (collection.suspended && collection.platformId !== null) {
          const others = yield* sql`SELECT 1 FROM billing.invoice_collections WHERE platform_id = ${collection.platformId} AND suspended AND invoice_id <> ${collection.invoiceId}`.pipe(Effect.orDie)
          const platform = yield* platforms.find(collection.platformId)
          if (others.length === 0 && Option.isSome(platform) && platform.value.status === "suspended") {
            yield* platforms.restore(collection.platformId)
            yield* log.record({ actor, action: "platform.restore", target: collection.platformId, reason: `Final invoice ${collection.invoiceId} paid`, before: { status: "suspended" }, after: { status: "active" } })
          }
        }
        return next
      })

    /** Attempt one collection now (locked); a failure schedules the next attempt or gives up. */
    const attempt = (invoiceId: string, actor: string, scheduled: boolean) =>
      sql.withTransaction(Effect.gen(function*() {
        const found = yield* read(invoiceId, true)
        if (Option.isNone(found) || found.value.state === "paid") return found
        const collection = found.value
        const at = yield* now
        if (scheduled && (collection.state !== "retrying" || collection.nextAttemptAt === null || collection.nextAttemptAt.getTime() > at.getTime())) return found
        const result = yield* pay(collection)
        if (result.failure === null) return Option.some(yield* paid(collection, result.invoice, actor))
        yield* invoices.paymentFailed(invoiceId)
        const failedAttempts = collection.failedAttempts + 1
        if (collection.state === "uncollectible") return Option.some(yield* write({ ...collection, lastFailure: result.failure }))
        const next: Collection = { ...collection, failedAttempts, lastFailure: result.failure, nextAttemptAt: nextAttempt(collection.firstFailedAt, failedAttempts) }
        yield* log.record({ actor, action: "invoice.retry", target: invoiceId, reason: result.failure, before: view(collection, result.invoice), after: view(next, result.invoice) })
        return Option.some(next.nextAttemptAt === null ? yield* exhaust(next, actor) : yield* write(next))
      })).pipe(Effect.catchTag("SqlError", Effect.die))

    /** The scheduled retries due by now (the billing cycle's turn). */
    const retryDue = Effect.fn("Collections.retryDue")(function*() {
      const due = yield* sql`SELECT invoice_id FROM billing.invoice_collections
        WHERE state = 'retrying' AND next_attempt_at <= ${yield* now} ORDER BY next_attempt_at LIMIT 500`.pipe(Effect.orDie)
      for (const row of due) yield* attempt(row.invoice_id as string, "scheduler", true)
      return due.length
    })

    /** Try every unpaid collected invoice of a subscription now (a new card on file); `true` when none is left unpaid. */
    const settle = Effect.fn("Collections.settle")(function*(subscriptionId: string, actor: string) {
      const unpaid = yield* sql`SELECT invoice_id FROM billing.invoice_collections WHERE subscription_id = ${subscriptionId} AND state <> 'paid'`.pipe(Effect.orDie)
      let settled = true
      for (const row of unpaid) {
        const after = yield* attempt(row.invoice_id as string, actor, false)
        if (Option.isSome(after) && after.value.state !== "paid") settled = false
      }
      return settled
    })

    /** A collected invoice was paid elsewhere (at Stripe: its `invoice.paid` webhook). */
    const paidElsewhere = Effect.fn("Collections.paidElsewhere")(function*(invoice: Billing.InvoiceRecord, actor: string) {
      if (invoice.status !== "paid") return
      const found = yield* read(invoice.id, true)
      if (Option.isSome(found) && found.value.state !== "paid") yield* paid(found.value, invoice, actor)
    })

    /** Whether a subscription still owes a final invoice given up on (it holds the platform suspended). */
    const owing = (subscriptionId: string) =>
      Effect.map(sql`SELECT 1 FROM billing.invoice_collections WHERE subscription_id = ${subscriptionId} AND state = 'uncollectible'`, (rows) => rows.length > 0).pipe(Effect.orDie)

    return { start, retryDue, settle, paidElsewhere, owing, get: (invoiceId: string) => read(invoiceId) }
  })
}) {}
