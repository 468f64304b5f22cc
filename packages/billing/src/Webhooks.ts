import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Redacted } from "effect"
import Stripe from "stripe"
import { BillingConfig } from "./Config.js"
import { planOfStripePrice } from "./internal/stripePrices.js"
import { BillingPlatforms } from "./ports/BillingPlatforms.js"
import { PaymentProvider, type ProviderSubscription } from "./ports/PaymentProvider.js"
import { Collections } from "./Collections.js"
import { FinalInvoices } from "./FinalInvoices.js"
import { makeWebhookEventsRepo } from "./WebhookEventsRepo.js"
import { Invoices } from "./Invoices.js"
import { ProviderOverage } from "./ProviderOverage.js"
import { Subscriptions } from "./Subscriptions.js"
import { type SubscriptionRow, SubscriptionsRepo } from "./SubscriptionsRepo.js"
import { badWebhookSignature, webhooksNotConfigured } from "./Errors.js"

/** What a webhook delivery answers. */
export interface WebhookAck {
  readonly received: true
  readonly id: string
  readonly type: string
  /** `true` when the event was processed before: nothing changes a second time. */
  readonly duplicate: boolean
}


/** Stripe's subscription statuses as billing's (decision 0431); `incomplete` and `paused` change nothing. */
const STATUSES: Readonly<Record<string, SubscriptionRow["status"] | undefined>> = {
  active: "active",
  trialing: "trialing",
  past_due: "past_due",
  unpaid: "past_due",
  canceled: "cancelled",
  incomplete_expired: "cancelled"
}

/** The events that change billing's state (decision 0445); any other is recorded and ignored. */
export const HANDLED_EVENTS = [
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
  "invoice.finalized",
  "customer.updated",
  "payment_method.attached",
  "charge.refunded",
  "charge.refund.updated",
  "refund.created",
  "refund.updated",
  "refund.failed",
  "credit_note.created",
  "credit_note.updated",
  "credit_note.voided"
] as const

const stringField = (object: Record<string, unknown>, field: string): string | null => {
  const value = object[field]
  if (typeof value === "string") return value.slice(0, 255)
  if (typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string") return ((value as { id: string }).id).slice(0, 255)
  return null
}

const sameRow = (a: SubscriptionRow, b: SubscriptionRow) =>
  a.planId === b.planId && a.status === b.status && a.cancelAtPeriodEnd === b.cancelAtPeriodEnd &&
  a.currentPeriodStart.getTime() === b.currentPeriodStart.getTime() && a.currentPeriodEnd.getTime() === b.currentPeriodEnd.getTime() &&
  a.cancelledAt?.getTime() === b.cancelledAt?.getTime() && a.pastDueSince?.getTime() === b.pastDueSince?.getTime() &&
  a.paymentMethodId === b.paymentMethodId && (a.providerSubscriptionId ?? null) === (b.providerSubscriptionId ?? null)

/**
 * `POST /webhooks/stripe` (decisions 0443, 0445): the raw body verified against `Stripe-Signature`
 * with `STRIPE_WEBHOOK_SECRET` (Stripe's scheme: HMAC-SHA256 over `timestamp.body`, five minutes of
 * tolerance), recorded once by event id — a second delivery answers `duplicate: true` and changes
 * nothing — and applied in the same transaction. Applying never trusts the payload's state: the
 * object is re-read from Stripe (the subscription, the customer's unpaid invoices, the customer), so
 * deliveries in any order end in the state Stripe holds now.
 */
export class Webhooks extends Effect.Service<Webhooks>()("@core/billing/Webhooks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = makeWebhookEventsRepo(sql)
    const config = yield* BillingConfig
    const provider = yield* PaymentProvider
    const repo = yield* SubscriptionsRepo
    const subscriptions = yield* Subscriptions
    const platforms = yield* BillingPlatforms
    const invoices = yield* Invoices
    const overage = yield* ProviderOverage
    const finals = yield* FinalInvoices
    const collections = yield* Collections
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** Billing's subscription of a provider customer, locked for the change; `None`: not one of ours. */
    const rowOf = (customerId: string | null) =>
      Effect.gen(function*() {
        if (customerId === null) return Option.none<SubscriptionRow>()
        const found = yield* repo.byCustomer(customerId)
        return Option.isNone(found) ? found : yield* repo.byId(found.value.id, true)
      })

    /** Write a changed row (moving the registry's tier), and restore a platform the debt suspended. */
    const write = (next: SubscriptionRow, row: SubscriptionRow) =>
      Effect.gen(function*() {
        if (sameRow(next, row)) return false
        yield* subscriptions.save(next, row)
        if (row.status === "past_due" && next.status !== "past_due") {
          const platform = yield* platforms.find(row.platformId)
          if (Option.isSome(platform) && platform.value.status === "suspended") yield* platforms.restore(row.platformId)
        }
        return true
      })

    /**
     * A subscription event: the subscription re-read from Stripe. When it has ended and the customer
     * has another live one, that one governs (an old subscription's late `deleted` changes nothing).
     */
    const applySubscription = (subscriptionId: string) =>
      Effect.gen(function*() {
        const found = yield* provider.getSubscription(subscriptionId)
        if (Option.isNone(found)) return false
        let current: ProviderSubscription = found.value
        if (STATUSES[current.status] === "cancelled") {
          const live = (yield* provider.listSubscriptions(current.customerId)).filter((other) => {
            const status = STATUSES[other.status]
            return status !== undefined && status !== "cancelled"
          })
          if (live.length > 0) current = live[live.length - 1]!
        }
        const status = STATUSES[current.status]
        if (status === undefined) return false
        const locked = yield* rowOf(current.customerId)
        if (Option.isNone(locked)) return false
        const row = locked.value
        const ours = row.providerSubscriptionId ?? null
        // A subscription the upgrade made for this row that billing has since left (a change to
        // `free` ended it): its late events change nothing (decision 0448).
        if (current.metadata.subscriptionId === row.id && current.id !== ours) return false
        const at = yield* now
        // Cancelled at period end, it has ended with no renewal invoice: the last period's overage is
        // a one-off invoice at Stripe, mirrored (decision 0449; once, whether the cycle saw it first or not).
        if (status === "cancelled" && current.id === ours && row.status !== "cancelled" && (row.cancelAtPeriodEnd || current.cancelAtPeriodEnd)) {
          yield* finals.billLastPeriod(row, "stripe")
        }
        // Stripe renewed the subscription before the billing cycle saw its period end: the ended
        // period's overage goes to the renewal now (decision 0449; once per period either way).
        if (current.id === ours && current.currentPeriodStart.getTime() > row.currentPeriodStart.getTime()) {
          yield* overage.bill(row, row.currentPeriodStart, current.currentPeriodStart)
        }
        const plan = Option.getOrElse(planOfStripePrice(config, current.priceId), () => row.planId)
        return yield* write({
          ...row,
          planId: status === "cancelled" ? row.planId : plan,
          status,
          currentPeriodStart: current.currentPeriodStart,
          currentPeriodEnd: current.currentPeriodEnd,
          cancelAtPeriodEnd: status === "cancelled" ? false : current.cancelAtPeriodEnd,
          cancelledAt: status === "cancelled" ? (row.cancelledAt ?? current.cancelledAt ?? at) : null,
          pastDueSince: status === "past_due" ? (row.pastDueSince ?? at) : null,
          overridden: status === "cancelled" ? row.overridden : false,
          paymentMethodId: current.paymentMethodId ?? row.paymentMethodId,
          providerSubscriptionId: status === "cancelled" && current.id === ours ? null : ours
        }, row)
      })

    /**
     * An invoice event: the invoice, re-read, is mirrored into billing's invoices; and whatever the
     * event says, the customer is past due exactly while Stripe holds an open invoice whose payment
     * was attempted and failed; since the earliest of them.
     */
    const applyInvoice = (invoiceId: string, paymentFailed = false) =>
      Effect.gen(function*() {
        const invoice = yield* provider.getInvoice(invoiceId)
        if (Option.isNone(invoice)) return false
        const locked = yield* rowOf(invoice.value.customerId)
        if (Option.isNone(locked)) return false
        // The platform's invoice list mirrors Stripe's invoices, one row each (decision 0449).
        const mirrored = yield* invoices.mirror(invoice.value, { platformId: locked.value.platformId, subscriptionId: locked.value.id })
        // A final invoice billing was collecting, paid at Stripe: its collection ends (decision 0586).
        if (Option.isSome(mirrored)) yield* collections.paidElsewhere(mirrored.value, "stripe")
        if (paymentFailed && Option.isSome(mirrored)) yield* invoices.paymentFailed(mirrored.value.id)
        if (locked.value.status === "cancelled") return false
        const row = locked.value
        const unpaid = yield* provider.unpaidInvoices(row.customerId)
        if (unpaid.length > 0) {
          const since = new Date(Math.min(...unpaid.map((open) => open.createdAt.getTime())))
          return yield* write({ ...row, status: "past_due", pastDueSince: row.pastDueSince ?? since }, row)
        }
        // A final invoice given up on (decision 0586) is no longer open at Stripe, yet still owed: it keeps the platform suspended.
        if (row.status !== "past_due" || (yield* collections.owing(row.id))) return false
        return yield* write({ ...row, status: "active", pastDueSince: null }, row)
      })

    /**
     * A refund or credit note at Stripe (decision 0587): the invoice it belongs to, re-read with its
     * refunds and credit notes as Stripe holds them now, is mirrored — amounts refunded and
     * credited, each one's status, and the invoice's own status (a credit note can settle an open
     * one, which ends its collection). Not an invoice of ours: nothing changes.
     */
    const applyAdjustment = (kind: "refund" | "charge" | "credit_note", id: string) =>
      Effect.gen(function*() {
        const providerInvoiceId = yield* provider.invoiceOf({ kind, id })
        if (Option.isNone(providerInvoiceId)) return false
        const invoice = yield* provider.getInvoice(providerInvoiceId.value)
        if (Option.isNone(invoice)) return false
        const locked = yield* rowOf(invoice.value.customerId)
        if (Option.isNone(locked)) return false
        const mirrored = yield* invoices.mirror(invoice.value, { platformId: locked.value.platformId, subscriptionId: locked.value.id })
        if (Option.isNone(mirrored)) return false
        const adjusted = yield* invoices.adjust(mirrored.value.id, yield* provider.invoiceAdjustments(providerInvoiceId.value))
        yield* collections.paidElsewhere(adjusted, "stripe")
        return true
      })

    /** A customer's payment method changed: the subscription charges the customer's default now. */
    const applyCustomer = (customerId: string | null) =>
      Effect.gen(function*() {
        if (customerId === null) return false
        const customer = yield* provider.getCustomer(customerId)
        if (Option.isNone(customer) || customer.value.defaultPaymentMethodId === null) return false
        const locked = yield* rowOf(customerId)
        if (Option.isNone(locked) || locked.value.status === "cancelled") return false
        return yield* write({ ...locked.value, paymentMethodId: customer.value.defaultPaymentMethodId }, locked.value)
      })

    const apply = (type: string, object: Record<string, unknown>) => {
      const id = stringField(object, "id")
      switch (type) {
        case "customer.subscription.created":
        case "customer.subscription.updated":
        case "customer.subscription.deleted":
          return id === null ? Effect.succeed(false) : applySubscription(id)
        case "invoice.paid":
        case "invoice.payment_failed":
        case "invoice.finalized":
          return id === null ? Effect.succeed(false) : applyInvoice(id, type === "invoice.payment_failed")
        case "customer.updated":
          return applyCustomer(id)
        case "payment_method.attached":
          return applyCustomer(stringField(object, "customer"))
        case "charge.refunded":
          return id === null ? Effect.succeed(false) : applyAdjustment("charge", id)
        case "charge.refund.updated":
        case "refund.created":
        case "refund.updated":
        case "refund.failed":
          return id === null ? Effect.succeed(false) : applyAdjustment("refund", id)
        case "credit_note.created":
        case "credit_note.updated":
        case "credit_note.voided":
          return id === null ? Effect.succeed(false) : applyAdjustment("credit_note", id)
        default:
          return Effect.succeed(false)
      }
    }

    const receive = Effect.fn("Webhooks.receive")(function*(raw: Uint8Array, signature: string | undefined) {
      if (Option.isNone(config.stripeWebhookSecret)) return yield* webhooksNotConfigured
      if (signature === undefined || signature === "") return yield* badWebhookSignature("missing")
      const secret = Redacted.value(config.stripeWebhookSecret.value)
      const event = yield* Effect.try({
        try: () => Stripe.webhooks.constructEvent(Buffer.from(raw), signature, secret),
        catch: (error) => badWebhookSignature(error instanceof Error ? error.message : "invalid")
      })
      const object = (typeof event.data?.object === "object" && event.data.object !== null ? event.data.object : {}) as unknown as Record<string, unknown>
      const objectId = stringField(object, "id")
      const type = String(event.type).slice(0, 100)
      const eventId = String(event.id).slice(0, 255)
      const at = new Date(yield* Clock.currentTimeMillis)
      // Recorded and applied together: an event that fails to apply is not recorded, and Stripe's retry applies it.
      return yield* sql.withTransaction(Effect.gen(function*() {
        const inserted = yield* events.record(eventId, type, objectId, at)
        if (inserted) yield* apply(type, object)
        return { received: true, id: eventId, type, duplicate: !inserted } satisfies WebhookAck
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    return { receive }
  })
}) {}
