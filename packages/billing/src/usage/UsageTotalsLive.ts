import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { UsageTotals } from "../ports/UsageTotals.js"
import { day } from "./UsageIngest.js"

/**
 * Invoices' `UsageTotals` over the daily rollups (decision 0462): usage is metered by UTC day, so a
 * period holds the days from `from`'s to `to`'s (exclusive) — the same days `/usage/current` and
 * the alerts count.
 */
export const UsageTotalsLive: Layer.Layer<UsageTotals, never, SqlClient.SqlClient> = Layer.effect(
  UsageTotals,
  Effect.map(SqlClient.SqlClient, (sql) =>
    UsageTotals.of({
      totals: (platformId, from, to) =>
        sql<{ meter: string; quantity: string }>`SELECT meter, sum(quantity)::text AS quantity FROM billing.usage_daily
          WHERE platform_id = ${platformId} AND day >= ${day(from)}::date AND day < ${day(to)}::date GROUP BY meter`.pipe(
          Effect.map((rows) => {
            const totals = { requests: 0, resource_hours: 0, builds: 0 }
            for (const row of rows) if (row.meter in totals) totals[row.meter as keyof typeof totals] = Number(row.quantity)
            return totals
          }),
          Effect.orDie,
          Effect.withSpan("UsageTotals.totals")
        )
    }))
)
