import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { UsageTotals } from "../ports/UsageTotals.js"
import { makeUsageDailyRepo } from "./UsageDailyRepo.js"
import { day } from "./UsageIngest.js"

/**
 * Invoices' `UsageTotals` over the daily rollups (decision 0462): usage is metered by UTC day, so a
 * period holds the days from `from`'s to `to`'s (exclusive) — the same days `/usage/current` and
 * the alerts count.
 */
export const UsageTotalsLive: Layer.Layer<UsageTotals, never, SqlClient.SqlClient> = Layer.effect(
  UsageTotals,
  Effect.map(Effect.map(SqlClient.SqlClient, makeUsageDailyRepo), (repo) =>
    UsageTotals.of({
      totals: (platformId, from, to) =>
        repo.totals(platformId, day(from), day(to)).pipe(
          Effect.map((rows) => {
            const totals = { requests: 0, resource_hours: 0, builds: 0 }
            for (const row of rows) if (row.meter in totals) totals[row.meter as keyof typeof totals] = Number(row.quantity)
            return totals
          }),
          Effect.withSpan("UsageTotals.totals")
        )
    }))
)
