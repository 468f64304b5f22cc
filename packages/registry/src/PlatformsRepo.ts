import type { Registry } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** Tiers a platform can be on (the contract's). */
export type PlatformTier = Registry.PlatformTier

/** Lifecycle states of a platform (the contract's). */
export type PlatformStatus = Registry.PlatformStatus

/** A row of `registry.platforms`. */
export interface PlatformRow {
  readonly id: string
  readonly organizationId: string | null
  readonly ownerUserId: string | null
  readonly name: string
  readonly slug: string
  readonly tier: PlatformTier
  readonly status: PlatformStatus
  readonly edgeAccountId: string | null
  readonly repoName: string | null
  readonly paymentCustomerId: string | null
  readonly cancelledAt: Date | null
  readonly cancellationReason: string | null
  readonly suspendedAt: Date | null
  readonly suspensionReason: string | null
  readonly trialEndsAt: Date | null
  /** Bumped by every change: the record's `ETag`. */
  readonly version: number
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly deletedAt: Date | null
}

/** What a new platform row holds. */
export interface NewPlatformRow {
  readonly id: string
  readonly organizationId: string | null
  readonly ownerUserId: string | null
  readonly name: string
  readonly slug: string
  readonly tier: PlatformTier
  readonly now: Date
}

/** The fields a change may write. */
export type PlatformChange = Pick<
  PlatformRow,
  | "name"
  | "tier"
  | "status"
  | "cancelledAt"
  | "cancellationReason"
  | "suspendedAt"
  | "suspensionReason"
  | "deletedAt"
  | "updatedAt"
>

/** A filtered page request over platforms; `organizationId` undefined means every tenant. */
export interface PlatformListFilter {
  readonly organizationId?: string
  readonly status?: PlatformStatus
  readonly tier?: PlatformTier
  readonly slug?: string
  readonly after?: { readonly createdAt: Date; readonly id: string }
  readonly limit: number
}

/** A row of `registry.lifecycle_events`. */
export interface LifecycleEventRow {
  readonly id: string
  readonly platformId: string
  readonly fromStatus: PlatformStatus | null
  readonly toStatus: PlatformStatus
  readonly triggeredBy: string
  readonly triggerType: Registry.TriggerType
  readonly reason: string | null
  readonly metadata: Record<string, unknown>
  readonly createdAt: Date
}

const toRow = (raw: Record<string, unknown>): PlatformRow => ({
  id: raw.id as string,
  organizationId: Rows.textOrNull(raw.organizationId),
  ownerUserId: Rows.textOrNull(raw.ownerUserId),
  name: raw.name as string,
  slug: raw.slug as string,
  tier: raw.tier as PlatformTier,
  status: raw.status as PlatformStatus,
  edgeAccountId: Rows.textOrNull(raw.edgeAccountId),
  repoName: Rows.textOrNull(raw.repoName),
  paymentCustomerId: Rows.textOrNull(raw.paymentCustomerId),
  cancelledAt: Rows.toDateOrNull(raw.cancelledAt),
  cancellationReason: Rows.textOrNull(raw.cancellationReason),
  suspendedAt: Rows.toDateOrNull(raw.suspendedAt),
  suspensionReason: Rows.textOrNull(raw.suspensionReason),
  trialEndsAt: Rows.toDateOrNull(raw.trialEndsAt),
  version: Number(raw.version),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt),
  deletedAt: Rows.toDateOrNull(raw.deletedAt)
})

const toEvent = (raw: Record<string, unknown>): LifecycleEventRow => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  fromStatus: Rows.textOrNull(raw.fromStatus) as PlatformStatus | null,
  toStatus: raw.toStatus as PlatformStatus,
  triggeredBy: raw.triggeredBy as string,
  triggerType: raw.triggerType as Registry.TriggerType,
  reason: Rows.textOrNull(raw.reason),
  metadata: Rows.jsonObject(raw.metadata) ?? {},
  createdAt: Rows.toDate(raw.createdAt)
})

/** The SQL of `registry.platforms` and `registry.lifecycle_events`. A database failure is a defect. */
export class PlatformsRepo extends Effect.Service<PlatformsRepo>()("@core/registry/PlatformsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, organization_id AS "organizationId", owner_user_id AS "ownerUserId", name, slug,
      tier, status, edge_account_id AS "edgeAccountId", repo_name AS "repoName",
      payment_customer_id AS "paymentCustomerId", cancelled_at AS "cancelledAt",
      cancellation_reason AS "cancellationReason", suspended_at AS "suspendedAt",
      suspension_reason AS "suspensionReason", trial_ends_at AS "trialEndsAt", version,
      created_at AS "createdAt", updated_at AS "updatedAt", deleted_at AS "deletedAt"`)
    const eventColumns = sql.literal(`id, platform_id AS "platformId", from_status AS "fromStatus",
      to_status AS "toStatus", triggered_by AS "triggeredBy", trigger_type AS "triggerType", reason, metadata,
      created_at AS "createdAt"`)

    const first = (rows: ReadonlyArray<Record<string, unknown>>) => Option.map(Option.fromNullable(rows[0]), toRow)
    const one = (span: string) => <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
      query.pipe(Effect.map(first), Effect.orDie, Effect.withSpan(span))

    /** Insert a platform; `None` when its slug (or its organization) already has one. */
    const insert = (row: NewPlatformRow) =>
      sql<Record<string, unknown>>`INSERT INTO registry.platforms
          (id, organization_id, owner_user_id, name, slug, tier, status, created_at, updated_at)
        VALUES (${row.id}, ${row.organizationId}, ${row.ownerUserId}, ${row.name}, ${row.slug}, ${row.tier},
          'active', ${row.now}, ${row.now})
        ON CONFLICT DO NOTHING
        RETURNING ${columns}`.pipe(one("PlatformsRepo.insert"))

    /** A new platform's default tenant (slug `default`, decision 0230), in the creation's transaction. */
    const insertDefaultTenant = (platformId: string, entityId: string, now: Date) =>
      sql`INSERT INTO registry.entities (id, platform_id, parent_id, type, name, slug, status, depth, created_at, updated_at)
        VALUES (${entityId}, ${platformId}, NULL, 'tenant', 'Default', 'default', 'active', 0, ${now}, ${now})`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.insertDefaultTenant")
      )

    const findById = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms WHERE id = ${id}`.pipe(one("PlatformsRepo.findById"))

    /** One platform locked for the rest of the transaction (`FOR UPDATE`): lifecycle changes serialize on it. */
    const lockById = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms WHERE id = ${id} FOR UPDATE`.pipe(
        one("PlatformsRepo.lockById")
      )

    const findBySlug = (slug: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms WHERE slug = ${slug}`.pipe(one("PlatformsRepo.findBySlug"))

    const findByOrganization = (organizationId: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms
        WHERE organization_id = ${organizationId}`.pipe(one("PlatformsRepo.findByOrganization"))

    /** Write a change and bump the version; the updated row. */
    const update = (id: string, change: PlatformChange) =>
      sql<Record<string, unknown>>`UPDATE registry.platforms SET
          name = ${change.name}, tier = ${change.tier}, status = ${change.status},
          cancelled_at = ${change.cancelledAt}, cancellation_reason = ${change.cancellationReason},
          suspended_at = ${change.suspendedAt}, suspension_reason = ${change.suspensionReason},
          deleted_at = ${change.deletedAt}, updated_at = ${change.updatedAt}, version = version + 1
        WHERE id = ${id}
        RETURNING ${columns}`.pipe(
        one("PlatformsRepo.update"),
        Effect.map(Option.getOrThrowWith(() => new Error(`platform ${id} vanished under its lock`)))
      )

    const filterClauses = (filter: Omit<PlatformListFilter, "after" | "limit">) => {
      const clauses = []
      if (filter.organizationId !== undefined) clauses.push(sql`organization_id = ${filter.organizationId}`)
      if (filter.status !== undefined) clauses.push(sql`status = ${filter.status}`)
      // Soft-deleted platforms are listed only when asked for by status.
      else clauses.push(sql`status <> 'deleted'`)
      if (filter.tier !== undefined) clauses.push(sql`tier = ${filter.tier}`)
      if (filter.slug !== undefined) clauses.push(sql`slug = ${filter.slug}`)
      return clauses
    }

    /** One keyset page (`created_at, id` ascending) of `limit` rows after `after`. */
    const list = (filter: PlatformListFilter) => {
      const clauses = filterClauses(filter)
      if (filter.after !== undefined) clauses.push(sql`(created_at, id) > (${filter.after.createdAt}, ${filter.after.id})`)
      return sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms
        WHERE ${sql.and(clauses)} ORDER BY created_at, id LIMIT ${filter.limit}`.pipe(
        Effect.map((rows) => rows.map(toRow)),
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.list")
      )
    }

    /** Every platform not deleted, oldest first (billing's reconciliation). */
    const listLive = () =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms
        WHERE deleted_at IS NULL AND status <> 'deleted' ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toRow)),
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.listLive")
      )

    /** How many platforms match the filter (the page's `total`). */
    const count = (filter: Omit<PlatformListFilter, "after" | "limit">) =>
      sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.platforms WHERE ${sql.and(filterClauses(filter))}`.pipe(
        Effect.map((rows) => Number(rows[0]?.count ?? 0)),
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.count")
      )

    const insertEvent = (event: LifecycleEventRow) =>
      sql`INSERT INTO registry.lifecycle_events
          (id, platform_id, from_status, to_status, triggered_by, trigger_type, reason, metadata, created_at)
        VALUES (${event.id}, ${event.platformId}, ${event.fromStatus}, ${event.toStatus}, ${event.triggeredBy},
          ${event.triggerType}, ${event.reason}, ${JSON.stringify(event.metadata)}, ${event.createdAt})`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.insertEvent")
      )

    /** A keyset page of a platform's events, oldest first. */
    const listEvents = (platformId: string, after: { readonly createdAt: Date; readonly id: string } | undefined, limit: number) =>
      (after === undefined
        ? sql<Record<string, unknown>>`SELECT ${eventColumns} FROM registry.lifecycle_events
            WHERE platform_id = ${platformId} ORDER BY created_at, id LIMIT ${limit}`
        : sql<Record<string, unknown>>`SELECT ${eventColumns} FROM registry.lifecycle_events
            WHERE platform_id = ${platformId} AND (created_at, id) > (${after.createdAt}, ${after.id})
            ORDER BY created_at, id LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map(toEvent)),
          Effect.orDie,
          Effect.withSpan("PlatformsRepo.listEvents")
        )

    const countEvents = (platformId: string) =>
      sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.lifecycle_events WHERE platform_id = ${platformId}`.pipe(
        Effect.map((rows) => Number(rows[0]?.count ?? 0)),
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.countEvents")
      )

    return { insert, insertDefaultTenant, findById, lockById, findBySlug, findByOrganization, update, list, listLive, count, insertEvent, listEvents, countEvents } as const
  })
}) {}
