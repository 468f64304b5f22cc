import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A portal session as the portal pages read it. */
export interface PortalSessionRow {
  readonly id: string
  readonly platformId: string
  readonly customerId: string
  readonly returnUrl: string
}

/** The SQL of `billing.portal_sessions`: the local provider's hosted billing portal. */
export const makePortalSessionsRepo = (sql: SqlClient.SqlClient) => ({
  insert: (session: Omit<PortalSessionRow, "returnUrl"> & { readonly returnUrl: string }, at: Date, expiresAt: Date) =>
    sql`INSERT INTO billing.portal_sessions (id, customer_id, platform_id, return_url, created_at, expires_at)
      VALUES (${session.id}, ${session.customerId}, ${session.platformId}, ${session.returnUrl}, ${at}, ${expiresAt})`.pipe(
      Effect.asVoid,
      Effect.orDie
    ),
  /** The session, if it has not expired by `now`. */
  live: (id: string, now: Date): Effect.Effect<Option.Option<PortalSessionRow>> =>
    sql`SELECT * FROM billing.portal_sessions WHERE id = ${id} AND expires_at > ${now}`.pipe(
      Effect.orDie,
      Effect.map((rows) => {
        const row = rows[0] as any
        return row === undefined
          ? Option.none()
          : Option.some({ id: row.id, platformId: row.platform_id, customerId: row.customer_id, returnUrl: row.return_url })
      })
    )
})
