import type { Events } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** The channel an event's insert notifies (at commit), so that the relay dispatches at once. */
export const CHANNEL = "core_events"

/** A row of `events.outbox`. */
export interface EventRow {
  readonly id: string
  readonly seq: number
  readonly type: Events.EventType
  readonly version: number
  readonly organizationId: string
  readonly platformId: string | null
  readonly data: Record<string, unknown>
  readonly targetEndpointId: string | null
  readonly dispatchedSeq: number | null
  readonly createdAt: Date
}

const COLUMNS = `id, seq, type, version, organization_id AS "organizationId", platform_id AS "platformId", data,
  target_endpoint_id AS "targetEndpointId", dispatched_seq AS "dispatchedSeq", created_at AS "createdAt"`

const toRow = (raw: Record<string, unknown>): EventRow => ({
  id: raw.id as string,
  seq: Number(raw.seq),
  type: raw.type as Events.EventType,
  version: Number(raw.version),
  organizationId: raw.organizationId as string,
  platformId: Rows.textOrNull(raw.platformId),
  data: Rows.jsonObject(raw.data) ?? {},
  targetEndpointId: Rows.textOrNull(raw.targetEndpointId),
  dispatchedSeq: Rows.int8(raw.dispatchedSeq),
  createdAt: Rows.toDate(raw.createdAt)
})

/** An event as the API answers, streams and delivers it. */
export const toEnvelope = (row: EventRow): Events.EventEnvelope => ({
  id: row.id,
  type: row.type,
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  platformId: row.platformId,
  organizationId: row.organizationId,
  data: row.data
})

/** A new event row. */
export interface NewEventRow {
  readonly id: string
  readonly type: Events.EventType
  readonly version: number
  readonly organizationId: string
  readonly platformId: string | null
  readonly data: unknown
  readonly targetEndpointId?: string | null
  readonly createdAt: Date
}

/** The insert and its wake-up in one statement: in a caller's transaction the `NOTIFY` is sent at commit. */
const INSERT = `WITH inserted AS (INSERT INTO events.outbox (id, type, version, organization_id, platform_id, data, target_endpoint_id, created_at)
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8) RETURNING id)
SELECT pg_notify('${CHANNEL}', id) FROM inserted`

/** The SQL of `events.outbox`. */
export class EventsRepo extends Effect.Service<EventsRepo>()("@core/events/EventsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = (statement: Effect.Effect<ReadonlyArray<Record<string, unknown>>, unknown>) =>
      statement.pipe(Effect.map((found) => found.map(toRow)), Effect.orDie)

    /** Write an event on the current connection (the caller's transaction, when there is one). */
    const insert = (event: NewEventRow): Effect.Effect<void> =>
      sql.unsafe(INSERT, [
        event.id,
        event.type,
        event.version,
        event.organizationId,
        event.platformId,
        JSON.stringify(event.data),
        event.targetEndpointId ?? null,
        event.createdAt
      ]).pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("EventsRepo.insert"))

    /** One event of an organization. */
    const find = (organizationId: string, id: string): Effect.Effect<Option.Option<EventRow>> =>
      rows(sql`SELECT ${sql.literal(COLUMNS)} FROM events.outbox WHERE id = ${id} AND organization_id = ${organizationId}`).pipe(
        Effect.map((found) => Option.fromNullable(found[0])),
        Effect.withSpan("EventsRepo.find")
      )

    /** A page of an organization's events, newest first, after the `(createdAt, id)` cursor. */
    const list = Effect.fn("EventsRepo.list")(function*(filter: {
      readonly organizationId: string
      readonly type?: string | undefined
      readonly platformId?: string | undefined
      readonly since?: Date | undefined
      readonly after?: { readonly createdAt: Date; readonly id: string } | undefined
      readonly limit: number
    }) {
      const conditions = [
        sql`organization_id = ${filter.organizationId}`,
        ...(filter.type === undefined ? [] : [sql`type = ${filter.type}`]),
        ...(filter.platformId === undefined ? [] : [sql`platform_id = ${filter.platformId}`]),
        ...(filter.since === undefined ? [] : [sql`created_at >= ${filter.since}`]),
        ...(filter.after === undefined ? [] : [sql`(created_at, id) < (${filter.after.createdAt}, ${filter.after.id})`])
      ]
      return yield* rows(sql`SELECT ${sql.literal(COLUMNS)} FROM events.outbox WHERE ${sql.and(conditions)}
        ORDER BY created_at DESC, id DESC LIMIT ${filter.limit}`)
    })

    /**
     * The dispatched events after `afterSeq` (their `dispatched_seq`), in dispatch order, of one
     * organization (or of every one, `undefined`: an embedding host's feed): the stream.
     */
    const dispatchedAfter = (organizationId: string | undefined, afterSeq: number, limit: number): Effect.Effect<ReadonlyArray<EventRow>> =>
      rows(sql`SELECT ${sql.literal(COLUMNS)} FROM events.outbox
        WHERE ${organizationId === undefined ? sql`TRUE` : sql`organization_id = ${organizationId}`} AND dispatched_seq > ${afterSeq} AND target_endpoint_id IS NULL
        ORDER BY dispatched_seq LIMIT ${limit}`).pipe(Effect.withSpan("EventsRepo.dispatchedAfter"))

    /** The highest `dispatched_seq` so far (0 before any): where a stream without `Last-Event-ID` starts. */
    const lastDispatched = (): Effect.Effect<number> =>
      sql<{ readonly last: unknown }>`SELECT COALESCE(MAX(dispatched_seq), 0) AS last FROM events.outbox`.pipe(
        Effect.map((found) => Number(found[0]?.last ?? 0)),
        Effect.orDie
      )

    /** The dispatch position of an event of the organization (of any, `undefined`), if it is kept and dispatched. */
    const dispatchedSeqOf = (organizationId: string | undefined, id: string): Effect.Effect<Option.Option<number>> =>
      sql<{ readonly seq: unknown }>`SELECT dispatched_seq AS seq FROM events.outbox
        WHERE id = ${id} AND ${organizationId === undefined ? sql`TRUE` : sql`organization_id = ${organizationId}`} AND dispatched_seq IS NOT NULL`.pipe(
        Effect.map((found) => Option.map(Option.fromNullable(found[0]), (row) => Number(row.seq))),
        Effect.orDie
      )

    /**
     * The newest dispatched event of the organization at or before position `seq`: the id that
     * names that position in the organization's stream (resuming after it is starting at `seq`).
     */
    const dispatchedIdAtOrBefore = (organizationId: string, seq: number): Effect.Effect<Option.Option<string>> =>
      sql<{ readonly id: string }>`SELECT id FROM events.outbox
        WHERE organization_id = ${organizationId} AND dispatched_seq <= ${seq} AND target_endpoint_id IS NULL
        ORDER BY dispatched_seq DESC LIMIT 1`.pipe(
        Effect.map((found) => Option.map(Option.fromNullable(found[0]), (row) => row.id)),
        Effect.orDie,
        Effect.withSpan("EventsRepo.dispatchedIdAtOrBefore")
      )

    /**
     * In the relay's transaction: take the relay's lock (one relay dispatches at a time, so
     * `dispatched_seq` grows in commit order) and the oldest undispatched events.
     */
    const claimUndispatched = (limit: number): Effect.Effect<ReadonlyArray<EventRow>> =>
      Effect.zipRight(
        sql`SELECT pg_advisory_xact_lock(${0x65767473})`.pipe(Effect.orDie),
        rows(sql`SELECT ${sql.literal(COLUMNS)} FROM events.outbox WHERE dispatched_seq IS NULL ORDER BY seq LIMIT ${limit}`)
      ).pipe(Effect.withSpan("EventsRepo.claimUndispatched"))

    /** Mark events dispatched, each with the next dispatch position. */
    const markDispatched = (ids: ReadonlyArray<string>): Effect.Effect<void> =>
      ids.length === 0
        ? Effect.void
        : sql`UPDATE events.outbox SET dispatched_seq = nextval('events.dispatch_seq') WHERE ${sql.in("id", ids)}`.pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("EventsRepo.markDispatched")
        )

    /** Events of an endpoint's organization since a time, oldest first (a replay), at most `limit`. */
    const since = (organizationId: string, from: Date, limit: number): Effect.Effect<ReadonlyArray<EventRow>> =>
      rows(sql`SELECT ${sql.literal(COLUMNS)} FROM events.outbox
        WHERE organization_id = ${organizationId} AND created_at >= ${from} AND target_endpoint_id IS NULL
        ORDER BY created_at, id LIMIT ${limit}`).pipe(Effect.withSpan("EventsRepo.since"))

    /** Delete the events written before `before`; answers how many. */
    const prune = (before: Date): Effect.Effect<number> =>
      sql`DELETE FROM events.outbox WHERE created_at < ${before} AND dispatched_seq IS NOT NULL RETURNING id`.pipe(
        Effect.map((deleted) => deleted.length),
        Effect.orDie,
        Effect.withSpan("EventsRepo.prune")
      )

    return { insert, find, list, dispatchedAfter, lastDispatched, dispatchedSeqOf, dispatchedIdAtOrBefore, claimUndispatched, markDispatched, since, prune } as const
  })
}) {}
