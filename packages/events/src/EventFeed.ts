import type { Events } from "@core/contracts"
import { Duration, Effect, Fiber, Runtime, Stream } from "effect"
import { EventsRepo, toEnvelope } from "./EventsRepo.js"
import { follow, positionId, rowFilter, startOf } from "./internal/dispatchOrder.js"

/** Which committed events a feed follows, and from where. */
export interface FeedOptions {
  /** Only this organization's events. @default every organization's */
  readonly organizationId?: string | undefined
  /** Only events of these types. @default every type */
  readonly types?: ReadonlyArray<Events.EventType> | undefined
  /** Only the events of this platform. */
  readonly platformId?: string | undefined
  /**
   * Start after this event (an `evt_…` id), in dispatch order, or at a position `position()`
   * answered (`pos_…`); an id no longer kept starts from the oldest kept event. @default the events
   * dispatched from now on
   */
  readonly after?: string | undefined
  /** Milliseconds between two looks for new events when there were none. @default 250 */
  readonly pollMs?: number | undefined
}

/** What a subscriber is handed: the event as the API answers, streams and delivers it. */
export type EventHandler = (event: Events.EventEnvelope) => void | Promise<void>

/** `subscribe`'s options: the feed's, and what to do when the handler fails. */
export interface SubscribeOptions extends FeedOptions {
  /**
   * Called when the handler throws or rejects; the subscription goes on with the next event.
   * @default a warning in the log
   */
  readonly onError?: ((error: unknown, event: Events.EventEnvelope) => void) | undefined
}

/** Ends a subscription; resolves once its handler is no longer called. */
export type Unsubscribe = () => Promise<void>

/**
 * Committed events in process, for a host app that embeds the services (no HTTP): `committed` is
 * an Effect `Stream` of them, `subscribe` the same as a plain callback. Both follow the dispatch
 * order of the events service's relay, which must run in the process or another one on the same
 * database (`EventsLive`); subscriptions end with the layer's scope.
 *
 * @example
 * const feed = await runtime.runPromise(EventFeed)
 * const unsubscribe = feed.subscribe((event) => console.log(event.type, event.data), { types: ["tenant.created"] })
 * // later
 * await unsubscribe()
 */
export class EventFeed extends Effect.Service<EventFeed>()("@core/events/EventFeed", {
  scoped: Effect.gen(function*() {
    const repo = yield* EventsRepo
    const runtime = yield* Effect.runtime<never>()
    const running = new Set<Fiber.RuntimeFiber<unknown>>()
    yield* Effect.addFinalizer(() => Fiber.interruptAll(running))

    /** The committed events that pass `options`, in dispatch order, from now on (or after `options.after`). */
    const committed = (options: FeedOptions = {}): Stream.Stream<Events.EventEnvelope> =>
      Stream.unwrap(Effect.gen(function*() {
        const start = yield* startOf(repo, options.organizationId, options.after)
        return follow(repo, options.organizationId, start, rowFilter(options.types, options.platformId), options.pollMs ?? 250).pipe(Stream.map(toEnvelope))
      })).pipe(Stream.withSpan("EventFeed.committed"))

    /**
     * Calls `handler` with each committed event that passes `options`, one at a time in dispatch
     * order (the next waits for a returned promise). Answers the function that ends it.
     */
    const subscribe = (handler: EventHandler, options: SubscribeOptions = {}): Unsubscribe => {
      const handle = (event: Events.EventEnvelope) =>
        Effect.tryPromise(async () => handler(event)).pipe(
          Effect.catchAll(({ error }) =>
            options.onError === undefined
              ? Effect.logWarning("an event subscriber failed", error).pipe(Effect.annotateLogs({ eventId: event.id, type: event.type }))
              : Effect.ignore(Effect.try(() => options.onError!(error, event))))
        )
      // Past a failure of the feed itself (the database away), the subscription follows again after
      // the last event it handled: it ends only when it is unsubscribed or the scope closes.
      let after = options.after
      const resilient = Effect.suspend(() =>
        Stream.runForEach(committed({ ...options, after }), (event) => Effect.zipRight(handle(event), Effect.sync(() => (after = event.id))))
      ).pipe(
        Effect.catchAllCause((cause) => Effect.zipRight(Effect.logWarning("an event subscription failed; following again in 1 s", cause), Effect.sleep(Duration.seconds(1)))),
        Effect.forever
      )
      const fiber = Runtime.runFork(runtime)(resilient)
      running.add(fiber)
      fiber.addObserver(() => running.delete(fiber))
      return () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
    }

    /**
     * The dispatch position now, as an `after` (`pos_…`): a feed started after it misses no event
     * dispatched later, however long the start takes.
     */
    const position = (): Effect.Effect<string> => Effect.map(repo.lastDispatched(), positionId)

    return { committed, subscribe, position } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
