import { Events, EventsService } from "@core/contracts"
import { Route } from "@core/kernel"
import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Endpoints } from "./Endpoints.js"
import { EventLog } from "./EventLog.js"
import { isResumeId } from "./internal/dispatchOrder.js"
import { Redelivery } from "./Redelivery.js"

const webhooks = Events.WebhookRoutes
const events = Events.EventRoutes

/** `Last-Event-ID` when it names an event or a stream position (`pos_…`); anything else starts the stream from now. */
const lastEventId = (header: string | undefined): string | undefined => (header !== undefined && isResumeId(header) ? header : undefined)

/** The events service's routes, one `handle` per catalogued route (`Events.WebhookRoutes`, `Events.EventRoutes`). */
export const EventsHandlers = [
  Route.handle(webhooks.createWebhookEndpoint, ({ caller, body }) => Effect.flatMap(Endpoints, (endpoints) => endpoints.create(caller, body))),
  Route.handle(webhooks.listWebhookEndpoints, ({ caller, query }) => Effect.flatMap(Endpoints, (endpoints) => endpoints.list(caller, query))),
  Route.handle(webhooks.getWebhookEndpoint, ({ caller, params }) => Effect.flatMap(Endpoints, (endpoints) => endpoints.read(caller, params.id))),
  Route.handle(webhooks.updateWebhookEndpoint, ({ caller, params, body }) =>
    Effect.flatMap(Endpoints, (endpoints) => endpoints.update(caller, params.id, body))),
  Route.handle(webhooks.deleteWebhookEndpoint, ({ caller, params }) => Effect.flatMap(Endpoints, (endpoints) => endpoints.remove(caller, params.id))),
  Route.handle(webhooks.rotateWebhookSecret, ({ caller, params }) => Effect.flatMap(Endpoints, (endpoints) => endpoints.rotate(caller, params.id))),
  Route.handle(webhooks.testWebhookEndpoint, ({ caller, params }) => Effect.flatMap(Redelivery, (redelivery) => redelivery.test(caller, params.id))),
  Route.handle(webhooks.listWebhookDeliveries, ({ caller, params, query }) =>
    Effect.flatMap(Endpoints, (endpoints) => endpoints.attempts(caller, params.id, query))),
  Route.handle(webhooks.replayWebhookEvents, ({ caller, params, body }) =>
    Effect.flatMap(Redelivery, (redelivery) => redelivery.replay(caller, params.id, body))),
  Route.handle(webhooks.retryWebhookDelivery, ({ caller, params }) => Effect.flatMap(Redelivery, (redelivery) => redelivery.retry(caller, params.id))),
  Route.handle(events.listEvents, ({ caller, query }) => Effect.flatMap(EventLog, (log) => log.list(caller, query))),
  Route.handle(events.streamEvents, ({ caller, query, request }) =>
    Effect.gen(function*() {
      const log = yield* EventLog
      const body = yield* log.stream(caller, query, lastEventId(request.headers["last-event-id"]))
      return HttpServerResponse.stream(body, {
        contentType: "text/event-stream; charset=utf-8",
        headers: { "cache-control": "no-cache, no-store", "x-accel-buffering": "no" }
      })
    })),
  Route.handle(events.getEvent, ({ caller, params }) => Effect.flatMap(EventLog, (log) => log.get(caller, params.id)))
]

/** The events service as an app: its webhook routes under `/api/v1/webhooks` and its event routes at `/api/v1/events`. */
export const EventsRouter = Route.router(EventsHandlers, { base: EventsService.base })
