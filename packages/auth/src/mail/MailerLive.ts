import { CoreConfig } from "@core/kernel"
import { Effect, Layer } from "effect"
import * as OutboxMailer from "./OutboxMailer.js"
import * as SmtpMailer from "./SmtpMailer.js"

/** The sender of Core's mail: `no-reply@` the host of `CORE_PUBLIC_URL`. */
export const senderOf = (publicUrl: string): string => `Core <no-reply@${new URL(publicUrl).hostname}>`

/** SMTP when `SMTP_URL` is set, else the outbox table. */
export const layer = Layer.unwrapEffect(
  Effect.map(CoreConfig, (config) =>
    config.smtpUrl === undefined
      ? OutboxMailer.layer
      : SmtpMailer.layer({ url: config.smtpUrl, from: senderOf(config.publicUrl) }))
)
