import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The SQL of `billing.webhook_events`: the provider's events received, each applied once. */
export const makeWebhookEventsRepo = (sql: SqlClient.SqlClient) => ({
  /** Record the event; `false` when it was recorded before (a redelivery). In the caller's transaction. */
  record: (eventId: string, type: string, objectId: string | null, at: Date) =>
    sql`INSERT INTO billing.webhook_events (id, type, object_id, received_at)
      VALUES (${eventId}, ${type}, ${objectId}, ${at})
      ON CONFLICT (id) DO NOTHING RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))
})
