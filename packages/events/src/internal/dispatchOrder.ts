import { Chunk, Duration, Effect, Option, Ref, Stream } from "effect"
import type { EventRow, EventsRepo } from "../EventsRepo.js"

// Following the outbox in dispatch order: what the SSE route (`EventLog.stream`) and the
// in-process feed (`EventFeed`) share.

/**
 * The rows dispatched after position `start`, in dispatch order, those that pass `keep`: the relay
 * dispatches under its lock in commit order, so following `dispatched_seq` never skips an event
 * that committed late. One query per batch, a pause of `pollMs` when there was none.
 */
export const follow = (
  repo: EventsRepo,
  organizationId: string | undefined,
  start: number,
  keep: (row: EventRow) => boolean,
  pollMs: number
): Stream.Stream<EventRow> =>
  Stream.unwrap(Effect.map(Ref.make(start), (position) =>
    Stream.repeatEffectChunk(Effect.gen(function*() {
      const rows = yield* repo.dispatchedAfter(organizationId, yield* Ref.get(position), 100)
      if (rows.length === 0) {
        yield* Effect.sleep(Duration.millis(pollMs))
        return Chunk.empty<EventRow>()
      }
      yield* Ref.set(position, rows[rows.length - 1].dispatchedSeq ?? 0)
      return Chunk.fromIterable(rows.filter(keep))
    }))))

/**
 * Where following starts: after the event `after` names (its dispatch position; an id no longer
 * kept, or another organization's, starts from the oldest kept event), else after the newest
 * dispatched event (from now on).
 */
export const startOf = (repo: EventsRepo, organizationId: string | undefined, after: string | undefined): Effect.Effect<number> =>
  after === undefined
    ? repo.lastDispatched()
    : Effect.map(repo.dispatchedSeqOf(organizationId, after), Option.getOrElse(() => 0))

/** A filter of rows: the wanted types (none: all) and platform. */
export const rowFilter = (types: ReadonlyArray<string> | undefined, platformId: string | undefined) => {
  const wanted = types === undefined || types.length === 0 ? undefined : new Set(types)
  return (row: EventRow): boolean => (wanted === undefined || wanted.has(row.type)) && (platformId === undefined || row.platformId === platformId)
}
