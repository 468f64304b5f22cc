import { Context, Data, Effect } from "effect"

/** One message to deliver. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html?: string
  /**
   * The action link the message carries (magic link, reset, verification). The outbox adapter prints
   * it on stderr in development; nothing else ever logs it.
   */
  readonly link?: string
}

/** The message could not be handed to the mail system. */
export class MailError extends Data.TaggedError("MailError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * Sends mail. Adapters: the outbox (`iam.mail_outbox`, the default; the link also printed in
 * development) and SMTP (`SMTP_URL`, nodemailer). See `mail/`.
 */
export class Mailer extends Context.Tag("@core/auth/Mailer")<Mailer, {
  readonly send: (message: MailMessage) => Effect.Effect<void, MailError>
  /** Whether links are also printed on the server's stderr (the outbox in development): pages say so. */
  readonly printsLinks?: boolean
}>() {}

/**
 * Send a message whose delivery must not change the answer (no account enumeration through errors):
 * a failure is logged with the recipient and subject, never the link.
 */
export const deliver = (mailer: Mailer["Type"], message: MailMessage): Effect.Effect<void> =>
  mailer.send(message).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning("mail delivery failed").pipe(
        Effect.annotateLogs({ to: message.to, subject: message.subject, reason: error.message })
      ))
  )
