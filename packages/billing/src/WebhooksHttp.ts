import { Billing } from "@core/contracts"
import { Body, Route } from "@core/kernel"
import { Effect } from "effect"
import { Webhooks } from "./Webhooks.js"

/** Stripe's webhook, read as raw bytes (the signature covers them exactly). */
export const WebhookHandlers = [
  Route.handle(Billing.BillingRoutes.stripeWebhook, ({ request }) =>
    Effect.gen(function*() {
      const raw = yield* Body.bytes({ limit: 1024 * 1024 })
      return yield* Effect.flatMap(Webhooks, (webhooks) => webhooks.receive(raw, request.headers["stripe-signature"]))
    }))
]
