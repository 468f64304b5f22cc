/**
 * @core/events — events and outbound webhooks on the domain package template: the transactional
 * outbox (`OutboxLive`, the kernel's `EventOutbox`), the relay that fans events out to endpoints as
 * `webhook.deliver` jobs on the provisioning queue (`Relay`, `WebhookJobsLive`), endpoints and their
 * delivery log (`Endpoints`), the event list and stream (`EventLog`), replay and retry
 * (`Redelivery`), Standard Webhooks signing (`Signing`) and target checks (`Targets`), and the
 * in-process feed of committed events for an embedding host (`EventFeed`: a `Stream`, or `subscribe`).
 */
export { type AuditEntry, AuditTrail } from "./ports/AuditTrail.js"
export { DEFAULT_RETRY_SCHEDULE, EVENTS_DEFAULTS, EventsConfig, type EventsSettings, parseDuration, parseSchedule } from "./Config.js"
export { DeliveriesRepo, type DeliveryRow } from "./DeliveriesRepo.js"
export { WebhookJobsLive } from "./Delivery.js"
export { type DeliveryPayload, receives, WEBHOOK_DELIVER } from "./Dispatch.js"
export { Endpoints, toEndpointRecord } from "./Endpoints.js"
export { type EndpointRow, EndpointsRepo } from "./EndpointsRepo.js"
export { EventFeed, type EventHandler, type FeedOptions, type SubscribeOptions, type Unsubscribe } from "./EventFeed.js"
export { EventLog } from "./EventLog.js"
export { CHANNEL, type EventRow, EventsRepo, toEnvelope } from "./EventsRepo.js"
export { EventsLive, EventsLiveWithoutConfig, EventsServices } from "./EventsLive.js"
export { EventsHandlers, EventsRouter } from "./Http.js"
export { EventsMigrations } from "./migrations/index.js"
export { OutboxLive } from "./Outbox.js"
export { Redelivery } from "./Redelivery.js"
export { Relay, RelayLive } from "./Relay.js"
export * as Signing from "./Signing.js"
export * as Targets from "./Targets.js"
