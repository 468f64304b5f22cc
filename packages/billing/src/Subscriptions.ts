import type { Billing } from "@core/contracts"
import { EventOutbox } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { billingId } from "./internal/ids.js"
import { paymentMethodOf as paymentMethodOfRow } from "./internal/paymentMethod.js"
import { prorationLines, totalOf } from "./InvoiceLines.js"
import { FinalInvoices } from "./FinalInvoices.js"
import { Invoices } from "./Invoices.js"
import { actorName, OperatorLog } from "./OperatorLog.js"
import { type PlanId, Plans } from "./Plans.js"
import { BillingPlatforms, type PlatformView } from "./ports/BillingPlatforms.js"
import { PaymentProvider } from "./ports/PaymentProvider.js"
import { ProrationQuotesRepo } from "./ProrationQuotesRepo.js"
import { makeProviderTierChange } from "./ProviderTierChange.js"
import { type SubscriptionRow, SubscriptionsRepo } from "./SubscriptionsRepo.js"
import { addMonth } from "./adapters/PaymentProviderLocal.js"
import { alreadyOnTier, noPaymentMethod, subscriptionCancelled } from "./Errors.js"

/** A subscription as the routes answer it. */
export const toSubscriptionRecord = (row: SubscriptionRow, priceMinor: number): Billing.SubscriptionRecord => ({
  id: row.id,
  platformId: row.platformId,
  customerId: row.customerId,
  tier: row.planId,
  status: row.status,
  priceMinor,
  currency: "usd",
  currentPeriodStart: row.currentPeriodStart.toISOString(),
  currentPeriodEnd: row.currentPeriodEnd.toISOString(),
  cancelAtPeriodEnd: row.cancelAtPeriodEnd,
  cancelledAt: row.cancelledAt?.toISOString() ?? null,
  trialEnd: row.trialEnd?.toISOString() ?? null,
  pastDueSince: row.pastDueSince?.toISOString() ?? null,
  overridden: row.overridden,
  paymentMethodId: row.paymentMethodId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString()
})

const cancelled = (row: SubscriptionRow, to: string) => subscriptionCancelled(row.status, to)

/**
 * Subscriptions (DESIGN §7): one per platform, made on the platform's tier with a customer at the
 * payment provider the first time billing meets the platform (or by the backfill); the source of
 * the registry platform's tier. Statuses `trialing`, `active`, `past_due`, `cancelled` (decision 0431).
 */
export class Subscriptions extends Effect.Service<Subscriptions>()("@core/billing/Subscriptions", {
  dependencies: [ProrationQuotesRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* SubscriptionsRepo
    const sql = yield* SqlClient.SqlClient
    const plans = yield* Plans
    const provider = yield* PaymentProvider
    const platforms = yield* BillingPlatforms
    const invoices = yield* Invoices
    const log = yield* OperatorLog
    const quotes = yield* ProrationQuotesRepo
    const finals = yield* FinalInvoices
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>

    const record = (row: SubscriptionRow) => toSubscriptionRecord(row, plans.get(row.planId).priceMinor)
    const outbox = yield* Effect.serviceOption(EventOutbox.EventOutbox)

    /** Record a subscription's event on the current transaction (a platform of no organization tells no one). */
    const tell = (type: "subscription.created" | "subscription.updated" | "subscription.canceled", row: SubscriptionRow) =>
      Option.isNone(outbox) || row.organizationId === null
        ? Effect.void
        : outbox.value.record({ type, organizationId: row.organizationId, platformId: row.platformId, data: record(row) })

    /**
     * Write every changing field of a subscription and its event in one transaction:
     * `subscription.canceled` when it became `cancelled`, else `subscription.updated`.
     */
    const update = (next: SubscriptionRow, before: SubscriptionRow) =>
      inTransaction(Effect.tap(repo.update(next), (saved) =>
        tell(saved.status === "cancelled" && before.status !== "cancelled" ? "subscription.canceled" : "subscription.updated", saved)))

    /**
     * The platform's subscription, made when billing first meets the platform: a customer at the
     * provider and a subscription on the platform's tier (`free` for a new one; any other tier an
     * operator set is kept and marked overridden). Then the registry's later changes are applied
     * (`reconcile`).
     */
    const ensure = Effect.fn("Subscriptions.ensure")(function*(platform: PlatformView) {
      const found = yield* repo.byPlatform(platform.id)
      if (Option.isSome(found)) return yield* reconcile(found.value, platform)
      return yield* inTransaction(Effect.gen(function*() {
        // One maker per platform, whichever process or path meets it first (the creation hook, the
        // reconciliation, a read): the others wait here and find the row (decision 0447).
        yield* repo.lockPlatform(platform.id)
        const made = yield* repo.byPlatform(platform.id)
        if (Option.isSome(made)) return yield* reconcile(made.value, platform)
        return yield* make(platform)
      }))
    })

    /** The first subscription of a platform and its customer, the customer idempotent by platform at the provider too. */
    const make = (platform: PlatformView) =>
      Effect.gen(function*() {
        const at = yield* now
        const customer = yield* provider.createCustomer({
          email: `billing+${platform.id}@core.invalid`,
          platformId: platform.id,
          metadata: { platformId: platform.id },
          idempotencyKey: `core-customer-${platform.id}`
        })
        const id = yield* billingId("sub")
        const made = yield* repo.insert({
          id,
          platformId: platform.id,
          organizationId: platform.organizationId,
          customerId: customer.id,
          planId: platform.tier,
          status: platform.status === "deleted" ? "cancelled" : "active",
          currentPeriodStart: at,
          currentPeriodEnd: addMonth(at),
          cancelAtPeriodEnd: platform.status === "cancelled",
          cancelledAt: null,
          trialEnd: null,
          pastDueSince: null,
          overridden: platform.tier !== "free",
          paymentMethodId: null,
          createdAt: at,
          updatedAt: at
        })
        // Inside `ensure`'s transaction: the subscription and `subscription.created` commit together.
        if (made.id === id) yield* tell("subscription.created", made)
        return made
      })

    /**
     * End a subscription at once (a deleted platform, or one the registry no longer has), locked:
     * its partial last period's final invoice (decision 0585), and `cancelled`.
     */
    const endNow = (row: SubscriptionRow, actor: string) =>
      inTransaction(Effect.gen(function*() {
        const locked = Option.getOrThrow(yield* repo.byId(row.id, true))
        if (locked.status === "cancelled") return locked
        const at = yield* now
        yield* finals.closeAtOnce(locked, at, actor)
        return yield* update({ ...locked, status: "cancelled", cancelledAt: at, cancelAtPeriodEnd: false, providerSubscriptionId: null, updatedAt: at }, locked)
      }))

    /**
     * Apply what the registry changed since billing last wrote (decision 0438): a tier an operator
     * set there is an override, recorded in the operator log; a cancelled platform cancels at
     * period end, a deleted one at once. Down to `free` from a paid plan, the paid period ends now
     * with its final invoice (decision 0585) and a new period starts on `free`.
     */
    const reconcile = (row: SubscriptionRow, platform: PlatformView): Effect.Effect<SubscriptionRow> =>
      Effect.gen(function*() {
        if (row.status === "cancelled") return row
        if (platform.status === "deleted") return yield* endNow(row, "registry")
        const tierChanged = platform.tier !== row.planId && platform.updatedAt.getTime() > row.updatedAt.getTime()
        if (tierChanged && platform.tier === "free") {
          // Serialized with the other readers of the platform: the final invoice is made once.
          return yield* inTransaction(Effect.gen(function*() {
            const locked = Option.getOrThrow(yield* repo.byId(row.id, true))
            return locked.planId === row.planId && locked.updatedAt.getTime() === row.updatedAt.getTime() ? yield* apply(locked, platform) : yield* reconcile(locked, platform)
          }))
        }
        return yield* apply(row, platform)
      })

    const apply = (row: SubscriptionRow, platform: PlatformView) =>
      Effect.gen(function*() {
        const at = yield* now
        let next = row
        if (platform.status === "cancelled" && !row.cancelAtPeriodEnd) {
          yield* atProvider(row, (id) => provider.cancelSubscription(id, true))
          next = { ...next, cancelAtPeriodEnd: true }
        }
        if (platform.tier !== row.planId && platform.updatedAt.getTime() > row.updatedAt.getTime()) {
          next = { ...next, planId: platform.tier, overridden: true }
          if (platform.tier === "free") {
            // The paid period ends now, billed to this instant; at Stripe the subscription ends too (decision 0448).
            yield* finals.closeAtOnce(row, at, "registry")
            next = { ...next, providerSubscriptionId: null, cancelAtPeriodEnd: false, currentPeriodStart: at, currentPeriodEnd: addMonth(at) }
          }
          yield* log.record({ actor: "registry", action: "registry.tier", target: row.id, reason: "tier set in the registry", before: record(row), after: record(next) })
        }
        return next === row ? row : yield* update({ ...next, updatedAt: at }, row)
      })

    /** The subscription of a platform the caller may see (checked by the route). */
    const ofPlatform = (platform: PlatformView) => Effect.map(ensure(platform), record)

    /**
     * The subscription of a platform whose billing email is known (an onboarding's, decision 0578):
     * made if need be, its customer's email set at the provider (idempotent: the same email again
     * changes nothing but `updated_at`).
     */
    const withBillingEmail = (platform: PlatformView, email: string) =>
      Effect.gen(function*() {
        const row = yield* ensure(platform)
        yield* provider.updateCustomer(row.customerId, { email })
        return record(row)
      })

    /** Write a change and move the registry's tier with it (billing is the source of the tier). */
    const save = (row: SubscriptionRow, before: SubscriptionRow) =>
      Effect.gen(function*() {
        const saved = yield* update({ ...row, updatedAt: yield* now }, before)
        if (saved.planId !== before.planId || (saved.status === "cancelled") !== (before.status === "cancelled")) {
          yield* platforms.setTier(saved.platformId, saved.status === "cancelled" ? "free" : saved.planId)
        }
        return saved
      })

    /** Change the subscription kept at the provider (Stripe's; decision 0448), when there is one. */
    const atProvider = <A>(row: SubscriptionRow, change: (id: string) => Effect.Effect<A>) => {
      const id = row.providerSubscriptionId ?? null
      return id === null ? Effect.void : Effect.asVoid(change(id))
    }

    /** `POST /subscription/cancel`: at the end of the period; already set: the same answer. */
    const cancel = Effect.fn("Subscriptions.cancel")(function*(platform: PlatformView) {
      const row = yield* ensure(platform)
      if (row.status === "cancelled") return yield* cancelled(row, "cancelled")
      if (row.cancelAtPeriodEnd) return record(row)
      yield* atProvider(row, (id) => provider.cancelSubscription(id, true))
      return record(yield* save({ ...row, cancelAtPeriodEnd: true }, row))
    })

    const previewOf = (row: SubscriptionRow, tier: PlanId, at: Date): Billing.ProrationPreview => {
      const lines = prorationLines({
        from: plans.get(row.planId),
        to: plans.get(tier),
        periodStart: row.currentPeriodStart,
        periodEnd: row.currentPeriodEnd,
        at,
        trialing: row.status === "trialing"
      })
      return {
        fromTier: row.planId,
        toTier: tier,
        currency: "usd",
        prorationDate: at.toISOString(),
        periodStart: row.currentPeriodStart.toISOString(),
        periodEnd: row.currentPeriodEnd.toISOString(),
        lines: [...lines],
        amountMinor: totalOf(lines)
      }
    }

    const checkChange = (row: SubscriptionRow, tier: PlanId) =>
      row.status === "cancelled"
        ? Effect.fail(cancelled(row, tier))
        : row.planId === tier
        ? Effect.fail(alreadyOnTier(tier))
        : Effect.void

    /** The payment method to charge: the subscription's, else the customer's default. */
    const paymentMethodOf = (row: SubscriptionRow) => paymentMethodOfRow(provider, row)

    /** Changes Stripe makes: of a subscription kept there, or from `free` (decisions 0448, 0449). */
    const atStripe = makeProviderTierChange({ provider, invoices, plans, quotes, save, record, paymentMethodOf })

    /**
     * `GET /subscription/proration-preview`: what `changeTier` would charge, to the cent — billing's
     * whole-day proration (decision 0434), or, for a subscription kept at Stripe, Stripe's own.
     */
    const preview = Effect.fn("Subscriptions.preview")(function*(platform: PlatformView, tier: PlanId) {
      const row = yield* ensure(platform)
      yield* checkChange(row, tier)
      const stripe = yield* atStripe.preview(row, tier)
      return Option.isSome(stripe) ? stripe.value : previewOf(row, tier, yield* now)
    })

    /**
     * `POST /subscription/change-tier`: now, the proration charged at once (a downgrade's credit
     * kept on the customer's balance) — by billing, or by Stripe for a subscription kept there.
     * Serialized per subscription by its row lock.
     */
    const changeTier = Effect.fn("Subscriptions.changeTier")(function*(platform: PlatformView, tier: PlanId) {
      yield* ensure(platform)
      return yield* inTransaction(Effect.gen(function*() {
        const row = Option.getOrThrow(yield* repo.byPlatform(platform.id, true))
        yield* checkChange(row, tier)
        const stripe = yield* atStripe.change(row, tier)
        if (Option.isSome(stripe)) return stripe.value
        const change = previewOf(row, tier, yield* now)
        let invoice: Billing.InvoiceRecord | null = null
        if (change.lines.length > 0) {
          if (change.amountMinor > 0) {
            const paymentMethodId = yield* paymentMethodOf(row)
            if (paymentMethodId === null) return yield* noPaymentMethod
            yield* provider.charge({ customerId: row.customerId, paymentMethodId, amountMinor: change.amountMinor, currency: "usd", description: `Change to ${tier}` })
          } else if (change.amountMinor < 0) {
            yield* provider.adjustBalance(row.customerId, -change.amountMinor, "usd", `Proration credit for the change to ${tier}`)
          }
          invoice = yield* invoices.create({
            platformId: row.platformId,
            customerId: row.customerId,
            subscriptionId: row.id,
            kind: "proration",
            currency: "usd",
            description: `Change from ${row.planId} to ${tier}`,
            periodStart: new Date(change.prorationDate),
            periodEnd: row.currentPeriodEnd,
            lines: change.lines
          })
        }
        const saved = yield* save({ ...row, planId: tier, overridden: false }, row)
        return { subscription: record(saved), invoice, amountMinor: change.amountMinor }
      }))
    })

    return { ensure, endNow, ofPlatform, withBillingEmail, cancel, preview, changeTier, record, save, paymentMethodOf, actorName }
  })
}) {}
