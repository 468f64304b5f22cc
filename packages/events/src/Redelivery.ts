import type { Events } from "@core/contracts"
import { type Caller, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { EventsConfig } from "./Config.js"
import { enqueueDelivery, receives } from "./Dispatch.js"
import { Endpoints } from "./Endpoints.js"
import { EventsRepo, toEnvelope } from "./EventsRepo.js"

/** The most events one replay queues. */
export const REPLAY_MAX_EVENTS = 10_000

/** Deliveries on request: a test event, a replay since a time, one attempt again. */
export class Redelivery extends Effect.Service<Redelivery>()("@core/events/Redelivery", {
  effect: Effect.gen(function*() {
    const endpoints = yield* Endpoints
    const events = yield* EventsRepo
    const settings = yield* EventsConfig
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const attempts = settings.retryScheduleMs.length

    /** Record a `webhook.test` event for this endpoint alone; the relay delivers it like any other. */
    const test = Effect.fn("Redelivery.test")(function*(caller: Caller, id: string) {
      const endpoint = yield* endpoints.owned(caller, id)
      const row = {
        id: yield* ids.make("evt"),
        type: "webhook.test" as const,
        version: 1,
        organizationId: endpoint.organizationId,
        platformId: endpoint.platformId,
        data: { endpointId: endpoint.id, message: "A test event from Core" },
        targetEndpointId: endpoint.id,
        createdAt: new Date(yield* Clock.currentTimeMillis)
      }
      yield* events.insert(row)
      return toEnvelope({ ...row, seq: 0, dispatchedSeq: null })
    })

    /** Queue every kept event of the endpoint's types since `since`, oldest first (at most 10 000). */
    const replay = Effect.fn("Redelivery.replay")(function*(caller: Caller, id: string, body: Events.ReplayRequest) {
      const endpoint = yield* endpoints.owned(caller, id)
      const rows = yield* events.since(endpoint.organizationId, new Date(body.since), REPLAY_MAX_EVENTS)
      const chosen = rows.filter((event) => receives({ ...endpoint, enabled: true }, event))
      yield* sql.withTransaction(Effect.forEach(chosen, (event) =>
        enqueueDelivery(sql, { endpointId: endpoint.id, eventId: event.id }, attempts), { discard: true })).pipe(Effect.orDie)
      return { queued: chosen.length }
    })

    /** Deliver an attempt's event to its endpoint again (a new delivery, the same `webhook-id`). */
    const retry = Effect.fn("Redelivery.retry")(function*(caller: Caller, deliveryId: string) {
      const attempt = yield* endpoints.attempt(caller, deliveryId)
      yield* enqueueDelivery(sql, { endpointId: attempt.endpointId, eventId: attempt.eventId }, attempts)
      return { endpointId: attempt.endpointId, eventId: attempt.eventId }
    })

    return { test, replay, retry } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
