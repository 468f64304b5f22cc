import { routeCaller } from "../call.js"
import { webhookDeliveries, type WebhookDeliveries, webhookEndpoints, type WebhookEndpoints } from "../generated/webhooks.js"
import type { Transport } from "../transport.js"

export type { WebhookDeliveries, WebhookEndpoints, WebhooksCallOptions } from "../generated/webhooks.js"

/** The organization's outbound webhooks (`client.webhooks`): endpoints, their delivery log, replays and retries (docs/webhooks.md). */
export interface WebhooksClient {
  readonly endpoints: WebhookEndpoints
  readonly deliveries: WebhookDeliveries
}

/** `client.webhooks` on `transport`, under `basePath` (the routes' own `/api/v1/webhooks` by default). */
export const webhooks = (transport: Transport, basePath?: string): WebhooksClient => {
  const caller = routeCaller(transport, { basePath })
  return { endpoints: webhookEndpoints(caller), deliveries: webhookDeliveries(caller) }
}
