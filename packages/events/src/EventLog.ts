import { Events } from "@core/contracts"
import { type Caller, Cursor } from "@core/kernel"
import { Duration, Effect, Option, Schedule, Stream } from "effect"
import { eventNotFound, unknownEventType } from "./Errors.js"
import { type EventRow, EventsRepo, toEnvelope } from "./EventsRepo.js"
import { follow, positionId, rowFilter, startOf } from "./internal/dispatchOrder.js"
import { organizationFor } from "./Policy.js"

const keyOf = (row: EventRow) => ({ createdAt: row.createdAt.toISOString(), id: row.id })

const encoder = new TextEncoder()

/** One Server-Sent Event: `id` (the event id), `event` (its type), `data` (the event on one line). */
export const sseFrame = (event: Events.EventEnvelope): string => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`

/** The keep-alive comment. */
export const KEEP_ALIVE = ": keep-alive\n\n"

/**
 * The block that opens every stream: a comment, and (when the client named no `Last-Event-ID`) an
 * `id` naming the stream's start, which sets the client's `Last-Event-ID` without an event: a
 * connection dropped before the first event resumes there. It is the organization's newest event
 * before the start, or `pos_0` when the organization had none (its stream's beginning, which is
 * the same place then, and says nothing of other organizations' events).
 */
export const openingFrame = (position: string | undefined): string => `: open\n${position === undefined ? "" : `id: ${position}\n`}\n`

/** How the stream runs. */
export interface StreamOptions {
  readonly pollMs?: number
  readonly keepAliveMs?: number
}

/** An organization's events: the list, one event, and the live stream. */
export class EventLog extends Effect.Service<EventLog>()("@core/events/EventLog", {
  effect: Effect.gen(function*() {
    const repo = yield* EventsRepo

    const list = Effect.fn("EventLog.list")(function*(caller: Caller, query: Events.ListEventsQuery) {
      const organizationId = yield* organizationFor(caller, "events:read")
      const after = yield* Cursor.decodeOptional(Cursor.CreatedAtId, query.cursor)
      const rows = yield* repo.list({
        organizationId,
        type: query.type,
        platformId: query.platformId,
        since: query.since === undefined ? undefined : new Date(query.since),
        after: after === undefined ? undefined : { createdAt: new Date(after.createdAt), id: after.id },
        limit: query.limit + 1
      })
      const page = Cursor.page(rows, query.limit, keyOf)
      return { ...page, data: page.data.map(toEnvelope) }
    })

    const get = Effect.fn("EventLog.get")(function*(caller: Caller, id: string) {
      const organizationId = yield* organizationFor(caller, "events:read")
      const found = yield* repo.find(organizationId, id)
      return Option.isSome(found) ? toEnvelope(found.value) : yield* Effect.fail(eventNotFound)
    })

    /**
     * The organization's events as `text/event-stream` bytes, in dispatch order: after the event
     * (or at the position, `pos_…`) `lastEventId` names when the client resumes (from the stream's
     * start when that event is no longer kept), else from now on.
     */
    const stream = Effect.fn("EventLog.stream")(function*(
      caller: Caller,
      filter: { readonly types?: string | undefined; readonly platformId?: string | undefined },
      lastEventId: string | undefined,
      options: StreamOptions = {}
    ) {
      const organizationId = yield* organizationFor(caller, "events:read")
      const types = filter.types === undefined || filter.types === "" ? undefined : filter.types.split(",").filter((type) => type !== "")
      for (const type of types ?? []) if (!Events.isEventType(type)) return yield* Effect.fail(unknownEventType(type))
      const start = yield* startOf(repo, organizationId, lastEventId)
      const position = lastEventId === undefined
        ? Option.getOrElse(yield* repo.dispatchedIdAtOrBefore(organizationId, start), () => positionId(0))
        : undefined
      const live = follow(repo, organizationId, start, rowFilter(types, filter.platformId), options.pollMs ?? 250)
      const keepAlive = Stream.fromSchedule(Schedule.spaced(Duration.millis(options.keepAliveMs ?? 15_000))).pipe(Stream.map(() => KEEP_ALIVE))
      // The opening block first: the response's head leaves at once (through the gateway too), so a
      // client knows the stream is open — and where it starts — before the first event.
      return Stream.concat(Stream.make(openingFrame(position)), Stream.merge(Stream.map(live, (row) => sseFrame(toEnvelope(row))), keepAlive, { haltStrategy: "left" })).pipe(
        Stream.map((text) => encoder.encode(text))
      )
    })

    return { list, get, stream } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
