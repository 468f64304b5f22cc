import { cursorPage } from "../Pagination.js"
import { defineRoutes } from "../Routes.js"
import { EventEnvelope } from "./catalogue.js"
import {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointRequest,
  EventParams,
  ListEventsQuery,
  Queued,
  ReplayRequest,
  RotatedSecret,
  StreamEventsQuery,
  UpdateWebhookEndpointRequest,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookEndpointPage,
  WebhookEndpointParams,
  WebhookEndpointQuery
} from "./schemas.js"

const tags = ["events"]
/** The organization's webhooks: a user acting in it or one of its API keys, holding `webhooks:manage`. */
const manage = { auth: "caller", callers: ["user", "apikey"], permission: "webhooks:manage", tenant: "organization", tags } as const
/** The organization's events: a user acting in it or one of its API keys, holding `events:read`. */
const read = { auth: "caller", callers: ["user", "apikey"], permission: "events:read", tenant: "organization", tags } as const

/**
 * Outbound webhooks under `/api/v1/webhooks`: the endpoints of the organization the caller acts in
 * (another organization's answer 404), their secrets, test events, delivery log, replay and retry.
 */
export const WebhookRoutes = defineRoutes({
  createWebhookEndpoint: {
    method: "POST",
    path: "/api/v1/webhooks/endpoints",
    summary: "Create a webhook endpoint; its signing secret is answered this once",
    description: "An endpoint receives the organization's events of the types it names (omitted or empty: every type), signed per Standard Webhooks. " +
      "The URL must be https (unless the server sets `CORE_WEBHOOKS_ALLOW_HTTP=1`) and must not resolve to a private, loopback or link-local address (unless `CORE_WEBHOOKS_ALLOW_PRIVATE=1`).",
    ...manage,
    request: { body: CreateWebhookEndpointRequest },
    responses: { 201: CreatedWebhookEndpoint, 400: null, 401: null, 403: null, 404: null }
  },
  listWebhookEndpoints: {
    method: "GET",
    path: "/api/v1/webhooks/endpoints",
    summary: "List the organization's webhook endpoints, newest first",
    description: "The endpoints of the organization the caller acts in, newest first, in cursor pages; never their secrets.",
    ...manage,
    request: { query: WebhookEndpointQuery },
    responses: { 200: WebhookEndpointPage, 400: null, 401: null, 403: null }
  },
  getWebhookEndpoint: {
    method: "GET",
    path: "/api/v1/webhooks/endpoints/{id}",
    summary: "Read a webhook endpoint (never its secret)",
    description: "One endpoint of the caller's organization; another organization's answers 404.",
    ...manage,
    request: { params: WebhookEndpointParams },
    responses: { 200: WebhookEndpoint, 401: null, 403: null, 404: null }
  },
  updateWebhookEndpoint: {
    method: "PATCH",
    path: "/api/v1/webhooks/endpoints/{id}",
    summary: "Change a webhook endpoint's URL, description, event types, or enable or disable it",
    description: "Changes what is given. A new URL is checked as on creation (https, no private target). Enabling an endpoint disabled for answering 410 sends it new events again.",
    ...manage,
    request: { params: WebhookEndpointParams, body: UpdateWebhookEndpointRequest },
    responses: { 200: WebhookEndpoint, 400: null, 401: null, 403: null, 404: null }
  },
  deleteWebhookEndpoint: {
    method: "DELETE",
    path: "/api/v1/webhooks/endpoints/{id}",
    summary: "Delete a webhook endpoint and its delivery log",
    description: "Deletes the endpoint and its delivery log; queued deliveries to it are dropped.",
    ...manage,
    request: { params: WebhookEndpointParams },
    responses: { 204: null, 401: null, 403: null, 404: null }
  },
  rotateWebhookSecret: {
    method: "POST",
    path: "/api/v1/webhooks/endpoints/{id}/rotate-secret",
    summary: "Give a webhook endpoint a new signing secret; the old one keeps signing beside it for 24 hours",
    description: "Answers the new secret once. During the overlap (24 hours, `CORE_WEBHOOKS_SECRET_OVERLAP_HOURS`) each delivery carries two signatures, by the new and the old secret, so a receiver can switch without losing one.",
    ...manage,
    request: { params: WebhookEndpointParams },
    responses: { 200: RotatedSecret, 401: null, 403: null, 404: null }
  },
  testWebhookEndpoint: {
    method: "POST",
    path: "/api/v1/webhooks/endpoints/{id}/test",
    summary: "Send a `webhook.test` event to this endpoint alone",
    description: "Records a `webhook.test` event for this endpoint alone and answers it; it is delivered, signed and logged like any other.",
    ...manage,
    request: { params: WebhookEndpointParams },
    responses: { 202: EventEnvelope, 401: null, 403: null, 404: null }
  },
  listWebhookDeliveries: {
    method: "GET",
    path: "/api/v1/webhooks/endpoints/{id}/deliveries",
    summary: "The endpoint's delivery attempts, newest first: time, status code, duration, the first 4 kB of the answer, the error",
    description: "Every attempt to deliver an event to the endpoint, newest first: attempt number, outcome, status code, duration, the first 4 kB of the answer and the error.",
    ...manage,
    request: { params: WebhookEndpointParams, query: WebhookEndpointQuery },
    responses: { 200: WebhookDeliveryPage, 400: null, 401: null, 403: null, 404: null }
  },
  replayWebhookEvents: {
    method: "POST",
    path: "/api/v1/webhooks/endpoints/{id}/replay",
    summary: "Send again every kept event of the endpoint's types since a time",
    description: "Queues a delivery of every kept event of the endpoint's types (and platform) created at or after `since`, oldest first, at most 10 000; each keeps its `webhook-id`.",
    ...manage,
    request: { params: WebhookEndpointParams, body: ReplayRequest },
    responses: { 202: Queued, 400: null, 401: null, 403: null, 404: null }
  },
  retryWebhookDelivery: {
    method: "POST",
    path: "/api/v1/webhooks/deliveries/{id}/retry",
    summary: "Deliver an attempt's event to its endpoint again (same webhook-id)",
    description: "Queues a new delivery of the attempt's event to its endpoint, with the same `webhook-id` and a fresh retry schedule.",
    ...manage,
    request: { params: WebhookDeliveryParams },
    responses: { 202: WebhookDelivery.pick({ endpointId: true, eventId: true }), 401: null, 403: null, 404: null }
  }
})

/** The organization's events under `/api/v1/events`: kept 30 days, listed, read and streamed. */
export const EventRoutes = defineRoutes({
  listEvents: {
    method: "GET",
    path: "/api/v1/events",
    summary: "List the organization's events, newest first (filters: type, platformId, since)",
    description: "The events of the caller's organization kept so far (30 days by default), newest first, in cursor pages; filtered by type, platform and time.",
    ...read,
    request: { query: ListEventsQuery },
    responses: { 200: cursorPage(EventEnvelope), 400: null, 401: null, 403: null }
  },
  streamEvents: {
    method: "GET",
    path: "/api/v1/events/stream",
    summary: "Follow the organization's events as Server-Sent Events, resumable with Last-Event-ID",
    description: "Each event: `id` (the event id; `Last-Event-ID` resumes after it), `event` (its type) and `data` (the Event). " +
      "Without `Last-Event-ID` the stream starts with the events that follow the connection, and its first block (a `: open` comment) carries an `id` naming that position " +
      "(the organization's newest event before it, or `pos_0` when it has none yet), so a client that drops before the first event resumes there; `Last-Event-ID` takes an event id or such a `pos_…`. A comment line keeps idle streams open.",
    ...read,
    request: { query: StreamEventsQuery },
    responses: {
      200: { description: "Server-Sent Events whose data are Event objects", contentType: "text/event-stream" },
      400: null,
      401: null,
      403: null
    }
  },
  getEvent: {
    method: "GET",
    path: "/api/v1/events/{id}",
    summary: "Read one event",
    description: "One event of the caller's organization; another organization's, or one no longer kept, answers 404.",
    ...read,
    request: { params: EventParams },
    responses: { 200: EventEnvelope, 401: null, 403: null, 404: null }
  }
})
