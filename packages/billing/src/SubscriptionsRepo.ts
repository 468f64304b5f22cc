import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { PlanId } from "./Plans.js"

/** A subscription row. */
export interface SubscriptionRow {
  readonly id: string
  readonly platformId: string
  readonly organizationId: string | null
  readonly customerId: string
  readonly planId: PlanId
  readonly status: "trialing" | "active" | "past_due" | "cancelled"
  readonly currentPeriodStart: Date
  readonly currentPeriodEnd: Date
  readonly cancelAtPeriodEnd: boolean
  readonly cancelledAt: Date | null
  readonly trialEnd: Date | null
  readonly pastDueSince: Date | null
  readonly overridden: boolean
  readonly paymentMethodId: string | null
  /** The subscription at the payment provider (Stripe's `sub_…`) that charges this one; `null`: billing charges (decision 0448). */
  readonly providerSubscriptionId?: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const toRow = (row: any): SubscriptionRow => ({
  id: row.id,
  platformId: row.platform_id,
  organizationId: row.organization_id ?? null,
  customerId: row.customer_id,
  planId: row.plan_id,
  status: row.status,
  currentPeriodStart: Rows.toDate(row.current_period_start),
  currentPeriodEnd: Rows.toDate(row.current_period_end),
  cancelAtPeriodEnd: Boolean(row.cancel_at_period_end),
  cancelledAt: Rows.toDateOrNull(row.cancelled_at),
  trialEnd: Rows.toDateOrNull(row.trial_end),
  pastDueSince: Rows.toDateOrNull(row.past_due_since),
  overridden: Boolean(row.overridden),
  paymentMethodId: row.payment_method_id ?? null,
  providerSubscriptionId: row.provider_subscription_id ?? null,
  createdAt: Rows.toDate(row.created_at),
  updatedAt: Rows.toDate(row.updated_at)
})

/** Billing's subscriptions table: SqlClient only; a failed statement is a defect. */
export class SubscriptionsRepo extends Effect.Service<SubscriptionsRepo>()("@core/billing/SubscriptionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<any>) => Option.map(Option.fromNullable(rows[0]), toRow)

    return {
      /**
       * Hold the platform's subscription lock until the transaction ends: one maker per platform
       * (decision 0447). Only inside a transaction.
       */
      lockPlatform: (platformId: string) =>
        Effect.orDie(sql`SELECT pg_advisory_xact_lock(hashtext(${`billing.subscription:${platformId}`}))`),
      /** Insert unless the platform has one already; answers the platform's subscription either way. */
      insert: (row: SubscriptionRow) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO billing.subscriptions (id, platform_id, organization_id, customer_id, plan_id, status,
              current_period_start, current_period_end, cancel_at_period_end, trial_end, overridden, created_at, updated_at)
            VALUES (${row.id}, ${row.platformId}, ${row.organizationId}, ${row.customerId}, ${row.planId}, ${row.status},
              ${row.currentPeriodStart}, ${row.currentPeriodEnd}, false, ${row.trialEnd}, ${row.overridden}, ${row.createdAt}, ${row.updatedAt})
            ON CONFLICT (platform_id) DO NOTHING`
          return toRow((yield* sql`SELECT * FROM billing.subscriptions WHERE platform_id = ${row.platformId}`)[0])
        }).pipe(Effect.orDie),
      byPlatform: (platformId: string, lock = false) =>
        (lock
          ? sql`SELECT * FROM billing.subscriptions WHERE platform_id = ${platformId} FOR UPDATE`
          : sql`SELECT * FROM billing.subscriptions WHERE platform_id = ${platformId}`).pipe(Effect.map(one), Effect.orDie),
      byId: (id: string, lock = false) =>
        (lock
          ? sql`SELECT * FROM billing.subscriptions WHERE id = ${id} FOR UPDATE`
          : sql`SELECT * FROM billing.subscriptions WHERE id = ${id}`).pipe(Effect.map(one), Effect.orDie),
      byCustomer: (customerId: string) =>
        sql`SELECT * FROM billing.subscriptions WHERE customer_id = ${customerId}`.pipe(Effect.map(one), Effect.orDie),
      /** Write every changing field of a subscription. */
      update: (row: SubscriptionRow) =>
        sql`UPDATE billing.subscriptions SET plan_id = ${row.planId}, status = ${row.status},
            current_period_start = ${row.currentPeriodStart}, current_period_end = ${row.currentPeriodEnd},
            cancel_at_period_end = ${row.cancelAtPeriodEnd}, cancelled_at = ${row.cancelledAt}, trial_end = ${row.trialEnd},
            past_due_since = ${row.pastDueSince}, overridden = ${row.overridden}, payment_method_id = ${row.paymentMethodId},
            provider_subscription_id = ${row.providerSubscriptionId ?? null}, updated_at = ${row.updatedAt}
          WHERE id = ${row.id} RETURNING *`.pipe(Effect.map((rows) => toRow(rows[0])), Effect.orDie),
      /** Subscriptions whose period has ended by `at` (the scheduled job's work). */
      due: (at: Date) =>
        sql`SELECT * FROM billing.subscriptions WHERE status <> 'cancelled' AND current_period_end <= ${at} ORDER BY current_period_end LIMIT 500`.pipe(
          Effect.map((rows) => rows.map(toRow)),
          Effect.orDie
        ),
      /** Subscriptions past due since before `since`. */
      pastDueBefore: (since: Date) =>
        sql`SELECT * FROM billing.subscriptions WHERE status = 'past_due' AND past_due_since <= ${since}`.pipe(
          Effect.map((rows) => rows.map(toRow)),
          Effect.orDie
        ),
      all: () => sql`SELECT * FROM billing.subscriptions`.pipe(Effect.map((rows) => rows.map(toRow)), Effect.orDie)
    }
  })
}) {}
