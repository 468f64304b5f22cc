import type { Events } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `events.deliveries`: one attempt to deliver an event to an endpoint. */
export interface DeliveryRow {
  readonly id: string
  readonly endpointId: string
  readonly eventId: string
  readonly eventType: Events.EventType
  readonly attempt: number
  readonly status: "succeeded" | "failed"
  readonly statusCode: number | null
  readonly durationMs: number
  readonly response: string
  readonly error: string | null
  readonly createdAt: Date
}

const COLUMNS = `d.id, d.endpoint_id AS "endpointId", d.event_id AS "eventId", d.event_type AS "eventType", d.attempt, d.status,
  d.status_code AS "statusCode", d.duration_ms AS "durationMs", d.response, d.error, d.created_at AS "createdAt"`

const toRow = (raw: Record<string, unknown>): DeliveryRow => ({
  id: raw.id as string,
  endpointId: raw.endpointId as string,
  eventId: raw.eventId as string,
  eventType: raw.eventType as Events.EventType,
  attempt: Number(raw.attempt),
  status: raw.status as DeliveryRow["status"],
  statusCode: Rows.int8(raw.statusCode),
  durationMs: Number(raw.durationMs),
  response: raw.response as string,
  error: Rows.textOrNull(raw.error),
  createdAt: Rows.toDate(raw.createdAt)
})

/** An attempt as the API answers it. */
export const toDeliveryRecord = (row: DeliveryRow): Events.WebhookDelivery => ({ ...row, createdAt: row.createdAt.toISOString() })

/** The SQL of `events.deliveries`. */
export class DeliveriesRepo extends Effect.Service<DeliveriesRepo>()("@core/events/DeliveriesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (row: DeliveryRow): Effect.Effect<void> =>
      sql`INSERT INTO events.deliveries (id, endpoint_id, event_id, event_type, attempt, status, status_code, duration_ms, response, error, created_at)
        VALUES (${row.id}, ${row.endpointId}, ${row.eventId}, ${row.eventType}, ${row.attempt}, ${row.status}, ${row.statusCode},
          ${row.durationMs}, ${row.response}, ${row.error}, ${row.createdAt})`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("DeliveriesRepo.insert"))

    /** A page of an endpoint's attempts, newest first. */
    const list = (endpointId: string, after: { readonly createdAt: Date; readonly id: string } | undefined, limit: number) =>
      sql`SELECT ${sql.literal(COLUMNS)} FROM events.deliveries d WHERE d.endpoint_id = ${endpointId}
        ${after === undefined ? sql`` : sql`AND (d.created_at, d.id) < (${after.createdAt}, ${after.id})`}
        ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit}`.pipe(
        Effect.map((found) => found.map(toRow)),
        Effect.orDie,
        Effect.withSpan("DeliveriesRepo.list")
      )

    /** One attempt of an endpoint of the organization. */
    const find = (organizationId: string, id: string): Effect.Effect<Option.Option<DeliveryRow>> =>
      sql`SELECT ${sql.literal(COLUMNS)} FROM events.deliveries d JOIN events.endpoints e ON e.id = d.endpoint_id
        WHERE d.id = ${id} AND e.organization_id = ${organizationId}`.pipe(
        Effect.map((found) => Option.map(Option.fromNullable(found[0]), toRow)),
        Effect.orDie,
        Effect.withSpan("DeliveriesRepo.find")
      )

    /**
     * When the endpoint's current run of failures began: its first attempt after its last
     * successful one (any attempt, when it never succeeded); `none` when its last attempt succeeded.
     */
    const failingSince = (endpointId: string): Effect.Effect<Option.Option<Date>> =>
      sql<{ since: unknown }>`SELECT min(d.created_at) AS since FROM events.deliveries d
        WHERE d.endpoint_id = ${endpointId} AND d.created_at > COALESCE((SELECT s.created_at FROM events.deliveries s
          WHERE s.endpoint_id = ${endpointId} AND s.status = 'succeeded' ORDER BY s.created_at DESC LIMIT 1), 'epoch'::timestamptz)`.pipe(
        Effect.map((found) => Option.map(Option.fromNullable(found[0]?.since ?? null), Rows.toDate)),
        Effect.orDie,
        Effect.withSpan("DeliveriesRepo.failingSince")
      )

    /** Delete the attempts made before `before`; answers how many. */
    const prune = (before: Date): Effect.Effect<number> =>
      sql`DELETE FROM events.deliveries WHERE created_at < ${before} RETURNING id`.pipe(Effect.map((deleted) => deleted.length), Effect.orDie)

    return { insert, list, find, failingSince, prune } as const
  })
}) {}
