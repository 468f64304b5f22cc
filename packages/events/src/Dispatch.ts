import type { Ids } from "@core/kernel"
import { Jobs } from "@core/provisioning"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { EndpointRow } from "./EndpointsRepo.js"
import type { EventRow } from "./EventsRepo.js"

/** The job type of one delivery: an event to an endpoint, on the provisioning queue. */
export const WEBHOOK_DELIVER = "webhook.deliver"

/** What a delivery job carries. */
export interface DeliveryPayload {
  readonly endpointId: string
  readonly eventId: string
}

/**
 * Whether an endpoint receives an event: the same organization, the endpoint's platform (if it names
 * one), one of its types (all when it names none), and — for a test event — that very endpoint.
 */
export const receives = (endpoint: EndpointRow, event: EventRow): boolean =>
  endpoint.organizationId === event.organizationId &&
  endpoint.enabled &&
  (event.targetEndpointId === null || endpoint.id === event.targetEndpointId) &&
  (endpoint.platformId === null || event.targetEndpointId !== null || endpoint.platformId === event.platformId) &&
  (endpoint.eventTypes.length === 0 || event.targetEndpointId !== null || endpoint.eventTypes.includes(event.type))

/**
 * Queue one delivery (in the caller's transaction when there is one). Delivery jobs are internal:
 * no organization and no platform, so no tenant's job list or dead letters shows them; the
 * endpoint's delivery log does.
 */
export const enqueueDelivery = (sql: SqlClient.SqlClient, payload: DeliveryPayload, maxAttempts: number): Effect.Effect<void, never, Ids.Ids> =>
  Effect.asVoid(Jobs.enqueue(sql, { type: WEBHOOK_DELIVER, platformId: null, organizationId: null, payload: { ...payload }, maxAttempts }))
