import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A message as `iam.mail_outbox` keeps it. */
export interface OutboxRow {
  readonly id: string
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string | null
  readonly createdAt: Date
}

/** The SQL of `iam.mail_outbox` (SqlClient only; a database failure is a defect). */
export class MailOutboxRepo extends Effect.Service<MailOutboxRepo>()("@core/auth/MailOutboxRepo", {
  effect: Effect.map(SqlClient.SqlClient, (sql) => ({
    insert: (row: OutboxRow) =>
      sql`INSERT INTO iam.mail_outbox (id, to_address, subject, text_body, html_body, created_at)
        VALUES (${row.id}, ${row.to}, ${row.subject}, ${row.text}, ${row.html}, ${row.createdAt})`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("MailOutboxRepo.insert")
      )
  }))
}) {}
