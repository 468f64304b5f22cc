import type { Billing } from "@core/contracts"
import { type Caller } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { customerNotFound, subscriptionCancelled, subscriptionNotFound } from "./Errors.js"
import { Invoices } from "./Invoices.js"
import { periodLines } from "./InvoiceLines.js"
import { actorName, OperatorLog } from "./OperatorLog.js"
import { Plans } from "./Plans.js"
import { PaymentProvider } from "./ports/PaymentProvider.js"
import { UsageTotals } from "./ports/UsageTotals.js"
import { Subscriptions } from "./Subscriptions.js"
import { SubscriptionsRepo } from "./SubscriptionsRepo.js"

const DAY = 86_400_000

/**
 * The operator tools (seed 001, every `/operator/...` route; the kernel refuses non-operators):
 * credits, invoice generation, overrides, trials and the overview. Each action is kept in the
 * operator log with actor, time, reason, and the record before and after (decision 0437).
 */
export class Operator extends Effect.Service<Operator>()("@core/billing/Operator", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* SubscriptionsRepo
    const subscriptions = yield* Subscriptions
    const provider = yield* PaymentProvider
    const invoices = yield* Invoices
    const usage = yield* UsageTotals
    const plans = yield* Plans
    const log = yield* OperatorLog
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>

    /** `POST /operator/credits`: credit on the customer's balance, used by its next invoices. */
    const credit = Effect.fn("Operator.credit")(function*(caller: Caller, body: { readonly customerId: string; readonly amount: number; readonly currency: string; readonly description: string; readonly reason?: string | undefined }) {
      return yield* inTransaction(Effect.gen(function*() {
        const customer = yield* provider.getCustomer(body.customerId)
        if (Option.isNone(customer)) return yield* customerNotFound
        const { id, balanceMinor } = yield* provider.adjustBalance(body.customerId, body.amount, body.currency.toLowerCase(), body.description)
        const created: Billing.CreditRecord = {
          id,
          customerId: body.customerId,
          amountMinor: body.amount,
          currency: body.currency.toLowerCase(),
          description: body.description,
          balanceMinor,
          createdAt: (yield* now).toISOString()
        }
        yield* log.record({
          actor: actorName(caller),
          action: "credit",
          target: body.customerId,
          reason: body.reason ?? body.description,
          before: { balanceMinor: customer.value.balanceMinor },
          after: { balanceMinor }
        })
        return created
      }))
    })

    /**
     * `POST /operator/invoices/generate`: an invoice for the customer's period so far (base price,
     * overage to date, credit), finalized at once and charged when a payment method is on file.
     */
    const generateInvoice = Effect.fn("Operator.generateInvoice")(function*(caller: Caller, body: { readonly customerId: string; readonly description?: string | undefined; readonly reason?: string | undefined }) {
      return yield* inTransaction(Effect.gen(function*() {
        const customer = yield* provider.getCustomer(body.customerId)
        if (Option.isNone(customer)) return yield* customerNotFound
        const subscription = yield* repo.byCustomer(body.customerId)
        const at = yield* now
        const row = Option.getOrUndefined(subscription)
        const plan = plans.get(row?.planId ?? "free")
        const from = row?.currentPeriodStart ?? at
        const used = row === undefined ? { requests: 0, resource_hours: 0, builds: 0 } : yield* usage.totals(row.platformId, from, at)
        const lines = periodLines({ plan, trialing: row?.status === "trialing", usage: used, balanceMinor: customer.value.balanceMinor })
        const invoice = yield* invoices.create({
          platformId: row?.platformId ?? customer.value.platformId,
          customerId: body.customerId,
          subscriptionId: row?.id ?? null,
          kind: "manual",
          currency: "usd",
          description: body.description ?? null,
          periodStart: from,
          periodEnd: at,
          lines
        })
        const credited = lines.find((line) => line.kind === "credit")
        if (credited !== undefined) yield* provider.adjustBalance(body.customerId, credited.amountMinor, "usd", "Credit applied to an invoice", invoice.id)
        yield* log.record({ actor: actorName(caller), action: "invoice.generate", target: body.customerId, reason: body.reason ?? body.description, before: null, after: invoice })
        return invoice
      }))
    })

    /** `PATCH /operator/subscriptions/{id}/override`: a tier and/or a trial end (epoch ms), as the operator says. */
    const override = Effect.fn("Operator.override")(function*(caller: Caller, id: string, body: { readonly planTier?: Billing.PlanTier | undefined; readonly trialEnd?: number | undefined; readonly reason?: string | undefined }) {
      return yield* inTransaction(Effect.gen(function*() {
        const found = yield* repo.byId(id, true)
        if (Option.isNone(found)) return yield* subscriptionNotFound
        const row = found.value
        const at = yield* now
        const trialEnd = body.trialEnd === undefined ? row.trialEnd : new Date(body.trialEnd)
        const trialing = trialEnd !== null && trialEnd.getTime() > at.getTime()
        const next = {
          ...row,
          planId: body.planTier ?? row.planId,
          trialEnd,
          status: row.status === "cancelled" ? row.status : trialing ? "trialing" as const : row.status === "trialing" ? "active" as const : row.status,
          overridden: true
        }
        const saved = yield* subscriptions.save(next, row)
        yield* log.record({ actor: actorName(caller), action: "override", target: id, reason: body.reason, before: subscriptions.record(row), after: subscriptions.record(saved) })
        return subscriptions.record(saved)
      }))
    })

    /** `POST /operator/subscriptions/{id}/trial`: `trialDays` from now; no base price until it ends. */
    const trial = Effect.fn("Operator.trial")(function*(caller: Caller, id: string, body: { readonly trialDays: number; readonly reason?: string | undefined }) {
      return yield* inTransaction(Effect.gen(function*() {
        const found = yield* repo.byId(id, true)
        if (Option.isNone(found)) return yield* subscriptionNotFound
        const row = found.value
        if (row.status === "cancelled") {
          return yield* subscriptionCancelled(row.status, "trialing")
        }
        const at = yield* now
        const saved = yield* subscriptions.save({ ...row, status: "trialing", trialEnd: new Date(at.getTime() + body.trialDays * DAY) }, row)
        yield* log.record({ actor: actorName(caller), action: "trial", target: id, reason: body.reason, before: subscriptions.record(row), after: subscriptions.record(saved) })
        return subscriptions.record(saved)
      }))
    })

    /** `GET /operator/overview`: monthly recurring revenue (paying, non-trial subscriptions) and counts. */
    const overview = Effect.fn("Operator.overview")(function*() {
      const rows = yield* repo.all()
      const byTier: Record<string, number> = { free: 0, starter: 0, growth: 0, scale: 0 }
      let mrr = 0
      for (const row of rows) {
        if (row.status === "cancelled") continue
        byTier[row.planId] = (byTier[row.planId] ?? 0) + 1
        if (row.status === "active" || row.status === "past_due") mrr += plans.get(row.planId).priceMinor
      }
      return {
        mrrMinor: mrr,
        currency: "usd",
        activePlatforms: rows.filter((row) => row.status === "active").length,
        trials: rows.filter((row) => row.status === "trialing").length,
        pastDue: rows.filter((row) => row.status === "past_due").length,
        cancelled: rows.filter((row) => row.status === "cancelled").length,
        byTier,
        ...(yield* invoices.totals)
      } satisfies Billing.OverviewRecord
    })

    return { credit, generateInvoice, override, trial, overview, log: log.list }
  })
}) {}
