import type { Events } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `events.endpoints`; `secret` and `previousSecret` are encrypted at rest. */
export interface EndpointRow {
  readonly id: string
  readonly organizationId: string
  readonly platformId: string | null
  readonly url: string
  readonly description: string
  readonly eventTypes: ReadonlyArray<Events.EventType>
  readonly enabled: boolean
  readonly secret: string
  readonly previousSecret: string | null
  readonly previousUntil: Date | null
  readonly disabledReason: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const COLUMNS = `id, organization_id AS "organizationId", platform_id AS "platformId", url, description,
  event_types AS "eventTypes", enabled, secret, previous_secret AS "previousSecret", previous_until AS "previousUntil",
  disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`

const toRow = (raw: Record<string, unknown>): EndpointRow => ({
  id: raw.id as string,
  organizationId: raw.organizationId as string,
  platformId: Rows.textOrNull(raw.platformId),
  url: raw.url as string,
  description: raw.description as string,
  eventTypes: Rows.stringArray(raw.eventTypes) as Array<Events.EventType>,
  enabled: raw.enabled === true || raw.enabled === "t",
  secret: raw.secret as string,
  previousSecret: Rows.textOrNull(raw.previousSecret),
  previousUntil: Rows.toDateOrNull(raw.previousUntil),
  disabledReason: Rows.textOrNull(raw.disabledReason),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt)
})

/** The SQL of `events.endpoints`. */
export class EndpointsRepo extends Effect.Service<EndpointsRepo>()("@core/events/EndpointsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (statement: Effect.Effect<ReadonlyArray<Record<string, unknown>>, unknown>) =>
      statement.pipe(Effect.map((found) => Option.map(Option.fromNullable(found[0]), toRow)), Effect.orDie)

    const insert = (row: EndpointRow): Effect.Effect<EndpointRow> =>
      one(sql`INSERT INTO events.endpoints (id, organization_id, platform_id, url, description, event_types, enabled, secret, created_at, updated_at)
        VALUES (${row.id}, ${row.organizationId}, ${row.platformId}, ${row.url}, ${row.description}, ${JSON.stringify(row.eventTypes)}::jsonb,
          ${row.enabled}, ${row.secret}, ${row.createdAt}, ${row.updatedAt})
        RETURNING ${sql.literal(COLUMNS)}`).pipe(Effect.map(Option.getOrThrow), Effect.withSpan("EndpointsRepo.insert"))

    /** One endpoint of an organization. */
    const find = (organizationId: string, id: string): Effect.Effect<Option.Option<EndpointRow>> =>
      one(sql`SELECT ${sql.literal(COLUMNS)} FROM events.endpoints WHERE id = ${id} AND organization_id = ${organizationId}`).pipe(
        Effect.withSpan("EndpointsRepo.find")
      )

    /** One endpoint by id, whatever its organization (the delivery job's read). */
    const findById = (id: string): Effect.Effect<Option.Option<EndpointRow>> =>
      one(sql`SELECT ${sql.literal(COLUMNS)} FROM events.endpoints WHERE id = ${id}`).pipe(Effect.withSpan("EndpointsRepo.findById"))

    /** A page of an organization's endpoints, newest first. */
    const list = (organizationId: string, after: { readonly createdAt: Date; readonly id: string } | undefined, limit: number) =>
      sql`SELECT ${sql.literal(COLUMNS)} FROM events.endpoints
        WHERE organization_id = ${organizationId} ${after === undefined ? sql`` : sql`AND (created_at, id) < (${after.createdAt}, ${after.id})`}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Effect.map((found) => found.map(toRow)),
        Effect.orDie,
        Effect.withSpan("EndpointsRepo.list")
      )

    /** The enabled endpoints of these organizations (the relay's fan-out). */
    const enabledOf = (organizationIds: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<EndpointRow>> =>
      organizationIds.length === 0
        ? Effect.succeed([])
        : sql`SELECT ${sql.literal(COLUMNS)} FROM events.endpoints WHERE enabled AND ${sql.in("organization_id", organizationIds)}`.pipe(
          Effect.map((found) => found.map(toRow)),
          Effect.orDie,
          Effect.withSpan("EndpointsRepo.enabledOf")
        )

    /** Write an endpoint's changeable columns. */
    const update = (row: EndpointRow): Effect.Effect<EndpointRow> =>
      one(sql`UPDATE events.endpoints SET url = ${row.url}, description = ${row.description},
          event_types = ${JSON.stringify(row.eventTypes)}::jsonb, enabled = ${row.enabled}, secret = ${row.secret},
          previous_secret = ${row.previousSecret}, previous_until = ${row.previousUntil}, disabled_reason = ${row.disabledReason},
          updated_at = ${row.updatedAt}
        WHERE id = ${row.id} RETURNING ${sql.literal(COLUMNS)}`).pipe(Effect.map(Option.getOrThrow), Effect.withSpan("EndpointsRepo.update"))

    /** Disable an endpoint that is still enabled; answers whether this call disabled it. */
    const disable = (id: string, reason: string, at: Date): Effect.Effect<boolean> =>
      sql`UPDATE events.endpoints SET enabled = false, disabled_reason = ${reason}, updated_at = ${at}
        WHERE id = ${id} AND enabled RETURNING id`.pipe(Effect.map((found) => found.length > 0), Effect.orDie)

    /** Delete an endpoint (its attempts go with it); answers whether it existed. */
    const remove = (organizationId: string, id: string): Effect.Effect<boolean> =>
      sql`DELETE FROM events.endpoints WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`.pipe(
        Effect.map((found) => found.length > 0),
        Effect.orDie,
        Effect.withSpan("EndpointsRepo.remove")
      )

    return { insert, find, findById, list, enabledOf, update, disable, remove } as const
  })
}) {}
