import { NotFound, ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Redacted } from "effect"
import Stripe from "stripe"
import { BillingConfig } from "./Config.js"

/** What a webhook delivery answers. */
export interface WebhookAck {
  readonly received: true
  readonly id: string
  readonly type: string
  /** `true` when the event was processed before: nothing changes a second time. */
  readonly duplicate: boolean
}

const notConfigured = new NotFound({ message: "Stripe webhooks are not configured (STRIPE_WEBHOOK_SECRET)" })
const badSignature = (message: string) =>
  new ValidationError({ message: "The webhook signature does not verify", issues: [{ path: "stripe-signature", message: message.slice(0, 200) }] })

/**
 * `POST /webhooks/stripe` (decision 0443): the raw body verified against `Stripe-Signature` with
 * `STRIPE_WEBHOOK_SECRET` (Stripe's scheme: HMAC-SHA256 over `timestamp.body`, five minutes of
 * tolerance), then recorded once by event id — a second delivery answers `duplicate: true` and
 * changes nothing. Without the Stripe adapter the events are recorded, not yet applied.
 */
export class Webhooks extends Effect.Service<Webhooks>()("@core/billing/Webhooks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* BillingConfig

    const receive = Effect.fn("Webhooks.receive")(function*(raw: Uint8Array, signature: string | undefined) {
      if (Option.isNone(config.stripeWebhookSecret)) return yield* notConfigured
      if (signature === undefined || signature === "") return yield* badSignature("missing")
      const secret = Redacted.value(config.stripeWebhookSecret.value)
      const event = yield* Effect.try({
        try: () => Stripe.webhooks.constructEvent(Buffer.from(raw), signature, secret),
        catch: (error) => badSignature(error instanceof Error ? error.message : "invalid")
      })
      const object = (event.data?.object ?? {}) as { readonly id?: unknown }
      const at = new Date(yield* Clock.currentTimeMillis)
      const inserted = yield* sql`INSERT INTO billing.webhook_events (id, type, object_id, received_at)
        VALUES (${event.id}, ${event.type}, ${typeof object.id === "string" ? object.id : null}, ${at})
        ON CONFLICT (id) DO NOTHING RETURNING id`.pipe(Effect.orDie)
      return { received: true, id: event.id, type: event.type, duplicate: inserted.length === 0 } satisfies WebhookAck
    })

    return { receive }
  })
}) {}
