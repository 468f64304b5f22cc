import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The SQL of `billing.usage_daily` that invoices read (SqlClient only; a database failure is a defect). */
export const makeUsageDailyRepo = (sql: SqlClient.SqlClient) => ({
  /** Each meter's quantity summed over the UTC days `[fromDay, toDay)` (`YYYY-MM-DD`). */
  totals: (platformId: string, fromDay: string, toDay: string) =>
    sql<{ meter: string; quantity: string }>`SELECT meter, sum(quantity)::text AS quantity FROM billing.usage_daily
      WHERE platform_id = ${platformId} AND day >= ${fromDay}::date AND day < ${toDay}::date GROUP BY meter`.pipe(Effect.orDie)
})
