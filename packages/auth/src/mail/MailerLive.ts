import { CoreConfig } from "@core/kernel"
import { Effect, Layer, Option, Redacted } from "effect"
import { MailConfig } from "../Config.js"
import * as OutboxMailer from "./OutboxMailer.js"
import * as SmtpMailer from "./SmtpMailer.js"

/** The sender of Core's mail: `no-reply@` the host of `CORE_PUBLIC_URL`. */
export const senderOf = (publicUrl: string): string => `Core <no-reply@${new URL(publicUrl).hostname}>`

/** SMTP when `SMTP_URL` is set (`MailConfig`), else the outbox table. */
export const layer = Layer.unwrapEffect(
  Effect.zipWith(MailConfig, CoreConfig, (mail, config) =>
    Option.match(mail.smtpUrl, {
      onNone: () => OutboxMailer.layer,
      onSome: (url) => SmtpMailer.layer({ url: Redacted.value(url), from: senderOf(config.publicUrl) })
    }))
)
