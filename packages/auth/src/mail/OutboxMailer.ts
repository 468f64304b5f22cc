import { SqlClient } from "@effect/sql"
import { CoreConfig, Ids } from "@core/kernel"
import { Clock, Console, Effect, Layer } from "effect"
import { Mailer, type MailMessage } from "./Mailer.js"

/**
 * The default mailer: every message becomes a row of `iam.mail_outbox` (read it to deliver it, or in
 * tests). With `NODE_ENV=development` the message's link is also printed on stderr.
 */
export const layer = Layer.effect(
  Mailer,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids.Ids
    const config = yield* CoreConfig
    const printLinks = config.nodeEnv === "development"

    const send = Effect.fn("OutboxMailer.send")(
      function*(message: MailMessage) {
        const id = yield* ids.make("eml")
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* sql`INSERT INTO iam.mail_outbox (id, to_address, subject, text_body, html_body, created_at)
          VALUES (${id}, ${message.to}, ${message.subject}, ${message.text}, ${message.html ?? null}, ${now})`.pipe(Effect.orDie)
        if (printLinks && message.link !== undefined) {
          yield* Console.error(`[core] mail to ${message.to}: ${message.subject}\n  ${message.link}`)
        }
      }
    )

    return { send, printsLinks: printLinks }
  })
)
