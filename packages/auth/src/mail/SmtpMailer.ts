import { Effect, Layer } from "effect"
import { createTransport } from "nodemailer"
import { MailError, Mailer, type MailMessage } from "./Mailer.js"

/** How to reach the SMTP server and whom the mail comes from. */
export interface SmtpOptions {
  /** `smtp://user:pass@host:port` or `smtps://…` (`SMTP_URL`). */
  readonly url: string
  /** The sender, e.g. `Core <no-reply@example.com>`. */
  readonly from: string
}

/**
 * A mailer that delivers over SMTP with nodemailer. The transport is closed with the layer.
 * Delivery failures fail with `MailError` (its message never carries the link).
 */
export const layer = (options: SmtpOptions) =>
  Layer.scoped(
    Mailer,
    Effect.gen(function*() {
      const transport = yield* Effect.acquireRelease(
        Effect.sync(() => createTransport(options.url)),
        (transport) => Effect.sync(() => transport.close())
      )
      const send = Effect.fn("SmtpMailer.send")(function*(message: MailMessage) {
        yield* Effect.tryPromise({
          try: () =>
            transport.sendMail({
              from: options.from,
              to: message.to,
              subject: message.subject,
              text: message.text,
              ...(message.html === undefined ? {} : { html: message.html })
            }),
          catch: (cause) => new MailError({ message: `SMTP delivery to ${message.to} failed`, cause })
        })
      })
      return { send }
    })
  )
