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

/** A dispatch position as a stream id: `pos_` and the position (`pos_0`: before every event). */
export const positionId = (position: number): string => `pos_${position}`

const POSITION = /^pos_(\d{1,15})$/

/** The position a `positionId` names, if `id` is one. */
export const positionOf = (id: string): number | undefined => {
  const match = POSITION.exec(id)
  return match === null ? undefined : Number(match[1])
}

/** Whether `id` can name where a stream resumes: an event id, or a dispatch position (`positionId`). */
export const isResumeId = (id: string): boolean => /^evt_[0-9A-Z]{26}$/.test(id) || POSITION.test(id)

/**
 * Where following starts: after the event `after` names (its dispatch position; an id no longer
 * kept, or another organization's, starts from the oldest kept event), at the position a
 * `positionId` names, else after the newest dispatched event (from now on).
 */
export const startOf = (repo: EventsRepo, organizationId: string | undefined, after: string | undefined): Effect.Effect<number> => {
  if (after === undefined) return repo.lastDispatched()
  const position = positionOf(after)
  return position !== undefined ? Effect.succeed(position) : Effect.map(repo.dispatchedSeqOf(organizationId, after), Option.getOrElse(() => 0))
}

/** A filter of rows: the wanted types (none: all) and platform. */
export const rowFilter = (types: ReadonlyArray<string> | undefined, platformId: string | undefined) => {
  const wanted = types === undefined || types.length === 0 ? undefined : new Set(types)
  return (row: EventRow): boolean => (wanted === undefined || wanted.has(row.type)) && (platformId === undefined || row.platformId === platformId)
}
