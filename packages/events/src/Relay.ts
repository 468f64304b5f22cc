import { Database, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Layer, Queue, Schedule, Stream } from "effect"
import { EventsConfig } from "./Config.js"
import { DeliveriesRepo } from "./DeliveriesRepo.js"
import { enqueueDelivery, receives } from "./Dispatch.js"
import { EndpointsRepo } from "./EndpointsRepo.js"
import { CHANNEL, EventsRepo } from "./EventsRepo.js"

/** Events one turn of the relay dispatches at most. */
export const BATCH = 200

/** How often old events and attempts are pruned. */
export const PRUNE_EVERY = Duration.hours(1)

/**
 * The relay: hands committed events to their endpoints. One turn, in one transaction under the
 * relay's lock: the oldest undispatched events, a delivery job for each endpoint that receives
 * one, and the events marked dispatched — so an event is fanned out exactly once, and the stream,
 * which follows the dispatch order, never skips one that committed late.
 */
export class Relay extends Effect.Service<Relay>()("@core/events/Relay", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* EventsRepo
    const endpoints = yield* EndpointsRepo
    const deliveries = yield* DeliveriesRepo
    const settings = yield* EventsConfig
    const ids = yield* Ids.Ids

    /** One batch; answers how many events it dispatched. */
    const turn = Effect.fn("Relay.turn")(function*() {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const batch = yield* events.claimUndispatched(BATCH)
        if (batch.length === 0) return 0
        const all = yield* endpoints.enabledOf([...new Set(batch.map((event) => event.organizationId))])
        for (const event of batch) {
          for (const endpoint of all) {
            if (receives(endpoint, event)) {
              yield* enqueueDelivery(sql, { endpointId: endpoint.id, eventId: event.id }, settings.retryScheduleMs.length).pipe(
                Effect.provideService(Ids.Ids, ids)
              )
            }
          }
        }
        yield* events.markDispatched(batch.map((event) => event.id))
        return batch.length
      })).pipe(Effect.orDie)
    })

    /** Dispatch until nothing is left. */
    const drain = Effect.fn("Relay.drain")(function*() {
      let total = 0
      for (;;) {
        const n = yield* turn()
        total += n
        if (n < BATCH) return total
      }
    })

    /** Delete the events and attempts older than the retention period; answers how many of each. */
    const prune = Effect.fn("Relay.prune")(function*() {
      const before = new Date((yield* Clock.currentTimeMillis) - settings.retentionDays * 86_400_000)
      return { events: yield* events.prune(before), deliveries: yield* deliveries.prune(before) }
    })

    return { turn, drain, prune } as const
  }),
  dependencies: [EventsRepo.Default, EndpointsRepo.Default, DeliveriesRepo.Default]
}) {}

/**
 * The relay running in the service's scope: woken by each event's commit (`NOTIFY`) and by polling,
 * pruning once an hour. A failed turn is logged and the next one tries again.
 */
export const RelayLive: Layer.Layer<never, never, Relay | EventsConfig | SqlClient.SqlClient> = Layer.scopedDiscard(
  Effect.gen(function*() {
    const relay = yield* Relay
    const settings = yield* EventsConfig
    const wake = yield* Queue.sliding<void>(1)
    yield* Database.subscribe(CHANNEL).pipe(
      Stream.runForEach(() => wake.offer(undefined)),
      Effect.catchAllCause((cause) => Effect.logDebug("events relay: no LISTEN, polling only", cause)),
      Effect.forkScoped
    )
    yield* relay.drain().pipe(
      Effect.catchAllCause((cause) => Database.logFailure("events relay turn failed", cause, "Warning")),
      Effect.zipRight(Effect.race(Queue.take(wake), Effect.sleep(Duration.millis(settings.pollMs)))),
      Effect.forever,
      Effect.forkScoped
    )
    yield* relay.prune().pipe(
      Effect.catchAllCause((cause) => Database.logFailure("events pruning failed", cause, "Warning")),
      Effect.repeat(Schedule.spaced(PRUNE_EVERY)),
      Effect.forkScoped
    )
  })
)
