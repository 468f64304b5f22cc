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

const toRow = (raw: Record<string, unknown>): PlatformRow => ({
  id: raw.id as string,
  organizationId: Rows.textOrNull(raw.organizationId),
  ownerUserId: Rows.textOrNull(raw.ownerUserId),
  name: raw.name as string,
  slug: raw.slug as string,
  tier: raw.tier as PlatformTier,
  status: raw.status as PlatformStatus,
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt),
  deletedAt: Rows.toDateOrNull(raw.deletedAt)
})

/** The SQL of `registry.platforms`. A database failure is a defect. */
export class PlatformsRepo extends Effect.Service<PlatformsRepo>()("@core/registry/PlatformsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, organization_id AS "organizationId", owner_user_id AS "ownerUserId", name, slug,
      tier, status, created_at AS "createdAt", updated_at AS "updatedAt", deleted_at AS "deletedAt"`)

    const first = (rows: ReadonlyArray<Record<string, unknown>>) => Option.map(Option.fromNullable(rows[0]), toRow)

    /** Insert a platform; `None` when its slug (or its organization) already has one. */
    const insert = (row: NewPlatformRow) =>
      sql<Record<string, unknown>>`INSERT INTO registry.platforms
          (id, organization_id, owner_user_id, name, slug, tier, status, created_at, updated_at)
        VALUES (${row.id}, ${row.organizationId}, ${row.ownerUserId}, ${row.name}, ${row.slug}, ${row.tier},
          'active', ${row.now}, ${row.now})
        ON CONFLICT DO NOTHING
        RETURNING ${columns}`.pipe(Effect.map(first), Effect.orDie, Effect.withSpan("PlatformsRepo.insert"))

    const findById = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms WHERE id = ${id}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.findById")
      )

    const findBySlug = (slug: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms WHERE slug = ${slug}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.findBySlug")
      )

    const findByOrganization = (organizationId: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.platforms
        WHERE organization_id = ${organizationId}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("PlatformsRepo.findByOrganization")
      )

    return { insert, findById, findBySlug, findByOrganization } as const
  })
}) {}
