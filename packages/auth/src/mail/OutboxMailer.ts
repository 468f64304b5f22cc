import { CoreConfig, Ids } from "@core/kernel"
import { Clock, Console, Effect, Layer } from "effect"
import { MailOutboxRepo } from "./MailOutboxRepo.js"
import { Mailer, type MailMessage } from "./Mailer.js"

/**
 * The default mailer: every message becomes a row of `iam.mail_outbox` (read it to deliver it, or in
 * tests). With `NODE_ENV=development` the message's link is also printed on stderr.
 */
export const layer = Layer.effect(
  Mailer,
  Effect.gen(function*() {
    const repo = yield* MailOutboxRepo
    const ids = yield* Ids.Ids
    const config = yield* CoreConfig
    const printLinks = config.nodeEnv === "development"

    const send = Effect.fn("OutboxMailer.send")(
      function*(message: MailMessage) {
        const id = yield* ids.make("eml")
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* repo.insert({ id, to: message.to, subject: message.subject, text: message.text, html: message.html ?? null, createdAt: now })
        if (printLinks && message.link !== undefined) {
          yield* Console.error(`[core] mail to ${message.to}: ${message.subject}\n  ${message.link}`)
        }
      }
    )

    return { send, printsLinks: printLinks }
  })
).pipe(Layer.provide(MailOutboxRepo.Default))
