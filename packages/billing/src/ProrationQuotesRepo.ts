import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option } from "effect"
import type { PlanId } from "./Plans.js"
import type { SubscriptionRow } from "./SubscriptionsRepo.js"

/** How long a preview's proration date holds for the change that follows it. @default 10 minutes */
export const QUOTE_TTL = Duration.minutes(10)

/**
 * The proration date a preview of a subscription kept at Stripe pinned (decision 0449): Stripe
 * prorates by the second, so the change that follows the preview within `QUOTE_TTL` — on the same
 * plan and period — is made at the preview's instant and charges what it showed, to the cent. The
 * seed's change body is `{ tier }`, so the date is kept here rather than handed back by the client.
 * The SQL of `billing.proration_quotes`.
 */
export class ProrationQuotesRepo extends Effect.Service<ProrationQuotesRepo>()("@core/billing/ProrationQuotesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Keep the preview's date (the newest preview of a tier wins). */
    const keep = (row: SubscriptionRow, tier: PlanId, prorationDate: Date, amountMinor: number) =>
      sql`INSERT INTO billing.proration_quotes (subscription_id, tier, from_tier, period_start, proration_date, amount_minor, expires_at)
        VALUES (${row.id}, ${tier}, ${row.planId}, ${row.currentPeriodStart}, ${prorationDate}, ${amountMinor},
          ${new Date(prorationDate.getTime() + Duration.toMillis(QUOTE_TTL))})
        ON CONFLICT (subscription_id, tier) DO UPDATE SET from_tier = EXCLUDED.from_tier, period_start = EXCLUDED.period_start,
          proration_date = EXCLUDED.proration_date, amount_minor = EXCLUDED.amount_minor, expires_at = EXCLUDED.expires_at`.pipe(Effect.asVoid, Effect.orDie)

    /** Take the date a preview pinned for this change, if it still holds (same plan, same period, not expired); it is used once. */
    const take = (row: SubscriptionRow, tier: PlanId, at: Date) =>
      Effect.gen(function*() {
        const rows = yield* sql`DELETE FROM billing.proration_quotes WHERE subscription_id = ${row.id} AND tier = ${tier} RETURNING *`
        const quote = rows[0] as any
        if (quote === undefined || quote.from_tier !== row.planId || Rows.toDate(quote.period_start).getTime() !== row.currentPeriodStart.getTime()) {
          return Option.none<Date>()
        }
        return Rows.toDate(quote.expires_at).getTime() > at.getTime() ? Option.some(Rows.toDate(quote.proration_date)) : Option.none<Date>()
      }).pipe(Effect.orDie)

    return { keep, take }
  })
}) {}
