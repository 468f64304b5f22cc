import { Events } from "@core/contracts"
import { EventOutbox, Ids } from "@core/kernel"
import { Clock, Effect, Layer } from "effect"
import { EventsRepo } from "./EventsRepo.js"

/**
 * The kernel's `EventOutbox` over `events.outbox`: the event row is inserted on the current
 * connection, so inside a domain's `withTransaction` it commits or rolls back with the change, and
 * its wake-up reaches the relay at commit. `data` is checked against its type's schema first: an
 * event that breaks the catalogue is a defect, the change's transaction rolls back with it.
 */
export const OutboxLive: Layer.Layer<EventOutbox.EventOutbox, never, EventsRepo | Ids.Ids> = Layer.effect(
  EventOutbox.EventOutbox,
  Effect.gen(function*() {
    const repo = yield* EventsRepo
    const ids = yield* Ids.Ids
    return {
      record: (event) =>
        Effect.gen(function*() {
          const spec: Events.EventTypeSpec = Events.EVENT_CATALOGUE[event.type]
          const data = spec.data.parse(event.data)
          yield* repo.insert({
            id: yield* ids.make("evt"),
            type: event.type,
            version: spec.version,
            organizationId: event.organizationId,
            platformId: event.platformId ?? null,
            data,
            createdAt: new Date(yield* Clock.currentTimeMillis)
          })
        }).pipe(Effect.withSpan("EventOutbox.record", { attributes: { type: event.type } }))
    }
  })
)
