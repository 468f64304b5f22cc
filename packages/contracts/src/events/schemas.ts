import { z } from "zod"
import { BoundedId, ID_MAX_LENGTH } from "../Bounds.js"
import { cursorPage, cursorQuery, cursorParam, limitParam } from "../Pagination.js"
import { naming } from "../PathRecords.js"
import { EventTypeSchema } from "./catalogue.js"

/** The longest webhook URL accepted. */
export const WEBHOOK_URL_MAX_LENGTH = 2048
/** The longest endpoint description. */
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500
/** The most event types one endpoint may name. */
export const WEBHOOK_EVENTS_MAX_ITEMS = 64
/** The bytes of a receiver's answer kept with each attempt. */
export const DELIVERY_RESPONSE_MAX_BYTES = 4096

const Timestamp = z.iso.datetime({ offset: true }).max(64)

/** A webhook URL: `http(s)://…`, at most 2048 characters (https is required unless the server allows http). */
export const WebhookUrl = z.url({ protocol: /^https?$/, error: "Expected an http or https URL" }).max(WEBHOOK_URL_MAX_LENGTH)

/** The event types an endpoint wants: omitted or empty means every type. */
export const WebhookEventTypes = z.array(EventTypeSchema).max(WEBHOOK_EVENTS_MAX_ITEMS)

/** An endpoint of an organization: where its events are posted. The secret is never part of it. */
export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(EventTypeSchema),
    platformId: z.string().nullable(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string()
  })
  .meta({ id: "WebhookEndpoint" })
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>

/** The answer of `POST /endpoints`: the endpoint and its signing secret, shown this once. */
export const CreatedWebhookEndpoint = WebhookEndpoint.extend({ secret: z.string() }).meta({ id: "CreatedWebhookEndpoint" })
export type CreatedWebhookEndpoint = z.infer<typeof CreatedWebhookEndpoint>

/** `POST /api/v1/webhooks/endpoints`. */
export const CreateWebhookEndpointRequest = z.object({
  url: WebhookUrl,
  description: z.string().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).optional(),
  events: WebhookEventTypes.optional(),
  platformId: BoundedId.optional()
})
export type CreateWebhookEndpointRequest = z.infer<typeof CreateWebhookEndpointRequest>

/** `PATCH /api/v1/webhooks/endpoints/{id}`: what is given changes. */
export const UpdateWebhookEndpointRequest = z.object({
  url: WebhookUrl.optional(),
  description: z.string().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).optional(),
  events: WebhookEventTypes.optional(),
  enabled: z.boolean().optional()
})
export type UpdateWebhookEndpointRequest = z.infer<typeof UpdateWebhookEndpointRequest>

/** The path of one endpoint. */
export const WebhookEndpointParams = z.object({ id: naming(z.string().min(1).max(ID_MAX_LENGTH), "Webhook endpoint not found") })

/** The path of one delivery attempt. */
export const WebhookDeliveryParams = z.object({ id: naming(z.string().min(1).max(ID_MAX_LENGTH), "Webhook delivery not found") })

/** A page of endpoints, newest first. */
export const WebhookEndpointPage = cursorPage(WebhookEndpoint)

/** The endpoint list's query. */
export const WebhookEndpointQuery = cursorQuery()

/** `POST /endpoints/{id}/rotate-secret`: the new secret (the old one keeps signing for a while). */
export const RotatedSecret = z.object({ secret: z.string() })

/** One attempt to deliver an event to an endpoint. */
export const WebhookDelivery = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: EventTypeSchema,
    attempt: z.number().int().min(1),
    status: z.enum(["succeeded", "failed"]),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int().min(0),
    response: z.string().meta({ description: `The first ${DELIVERY_RESPONSE_MAX_BYTES} bytes of the receiver's answer` }),
    error: z.string().nullable(),
    createdAt: z.string()
  })
  .meta({ id: "WebhookDelivery" })
export type WebhookDelivery = z.infer<typeof WebhookDelivery>

/** A page of an endpoint's attempts, newest first. */
export const WebhookDeliveryPage = cursorPage(WebhookDelivery)

/** `POST /endpoints/{id}/replay`: every event of the endpoint's types since then is sent again. */
export const ReplayRequest = z.object({ since: Timestamp })
export type ReplayRequest = z.infer<typeof ReplayRequest>

/** How many events a replay or a retry queued. */
export const Queued = z.object({ queued: z.number().int().min(0) })

/** `GET /api/v1/events`: filters and a cursor page, newest first. */
export const ListEventsQuery = z.object({
  type: EventTypeSchema.optional(),
  platformId: BoundedId.optional(),
  since: Timestamp.optional(),
  cursor: cursorParam,
  limit: limitParam()
})
export type ListEventsQuery = z.output<typeof ListEventsQuery>

/** `GET /api/v1/events/stream`: the types to follow (comma-separated; omitted: all). */
export const StreamEventsQuery = z.object({
  types: z.string().max(2048).regex(/^[a-z_.,]*$/, { error: "Expected comma-separated event types" }).optional(),
  platformId: BoundedId.optional()
})

/** The path of one event. */
export const EventParams = z.object({ id: naming(z.string().min(1).max(ID_MAX_LENGTH), "Event not found") })
