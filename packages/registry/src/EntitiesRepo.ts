import type { Registry } from "@core/contracts"
import { Rows } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `registry.entities`. */
export interface EntityRow {
  readonly id: string
  readonly platformId: string
  readonly parentId: string | null
  readonly type: Registry.EntityType
  readonly name: string
  readonly slug: string
  readonly status: Registry.EntityStatus
  readonly depth: number
  /** Bumped by every change (migration 0008): the record's `ETag`. */
  readonly version: number
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly deletedAt: Date | null
}

const toRow = (raw: Record<string, unknown>): EntityRow => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  parentId: Rows.textOrNull(raw.parentId),
  type: raw.type as Registry.EntityType,
  name: raw.name as string,
  slug: raw.slug as string,
  status: raw.status as Registry.EntityStatus,
  depth: Number(raw.depth),
  version: Number(raw.version),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt),
  deletedAt: Rows.toDateOrNull(raw.deletedAt)
})

/** The SQL of `registry.entities` (one recursive query each for ancestors and descendants). */
export const makeEntitiesRepo = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(`id, platform_id AS "platformId", parent_id AS "parentId", type, name, slug, status, depth, version,
    created_at AS "createdAt", updated_at AS "updatedAt", deleted_at AS "deletedAt"`)
  const rows = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
    query.pipe(Effect.map((found) => found.map(toRow)), Effect.orDie)
  const first = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
    Effect.map(rows(query), (found) => Option.fromNullable(found[0]))
  const filterClauses = (platformId: string, query: Omit<Registry.ListEntitiesQuery, "cursor" | "limit">) => {
    const clauses = [sql`platform_id = ${platformId}`]
    clauses.push(query.status !== undefined ? sql`status = ${query.status}` : sql`status <> 'deleted'`)
    if (query.type !== undefined) clauses.push(sql`type = ${query.type}`)
    if (query.parentId !== undefined) clauses.push(sql`parent_id = ${query.parentId}`)
    return clauses
  }
  return {
    insert: (row: EntityRow) =>
      first(sql<Record<string, unknown>>`INSERT INTO registry.entities
          (id, platform_id, parent_id, type, name, slug, status, depth, created_at, updated_at)
        VALUES (${row.id}, ${row.platformId}, ${row.parentId}, ${row.type}, ${row.name}, ${row.slug}, ${row.status},
          ${row.depth}, ${row.createdAt}, ${row.updatedAt})
        ON CONFLICT DO NOTHING RETURNING ${columns}`),
    find: (platformId: string, id: string) =>
      first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.entities WHERE platform_id = ${platformId} AND id = ${id}`),
    lock: (platformId: string, id: string) =>
      first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.entities
        WHERE platform_id = ${platformId} AND id = ${id} FOR UPDATE`),
    /** Rename or set the status, bumping the version once (not again after `deleteTree` in the same change). */
    update: (id: string, name: string, status: Registry.EntityStatus, now: Date) =>
      first(sql<Record<string, unknown>>`UPDATE registry.entities SET name = ${name}, status = ${status}, updated_at = ${now},
          deleted_at = ${status === "deleted" ? now : null},
          version = CASE WHEN deleted_at = ${now} THEN version ELSE version + 1 END
        WHERE id = ${id} RETURNING ${columns}`),
    liveChildren: (id: string) =>
      sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.entities WHERE parent_id = ${id} AND deleted_at IS NULL`.pipe(
        Effect.map((found) => Number(found[0]?.count ?? 0)),
        Effect.orDie
      ),
    /** Soft-delete an entity and every live descendant, in one recursive statement. */
    deleteTree: (id: string, now: Date) =>
      sql`WITH RECURSIVE tree AS (
          SELECT id FROM registry.entities WHERE id = ${id}
          UNION ALL
          SELECT e.id FROM registry.entities e JOIN tree ON e.parent_id = tree.id WHERE e.deleted_at IS NULL
        )
        UPDATE registry.entities SET status = 'deleted', deleted_at = ${now}, updated_at = ${now}, version = version + 1
        WHERE id IN (SELECT id FROM tree)`.pipe(Effect.asVoid, Effect.orDie),
    ancestors: (id: string) =>
      rows(sql<Record<string, unknown>>`WITH RECURSIVE up AS (
          SELECT parent_id AS id FROM registry.entities WHERE id = ${id}
          UNION ALL
          SELECT e.parent_id FROM registry.entities e JOIN up ON e.id = up.id WHERE e.parent_id IS NOT NULL
        )
        SELECT ${columns} FROM registry.entities WHERE id IN (SELECT id FROM up) ORDER BY depth`),
    /**
     * The entity (first) and its live descendants (nearest level first), in one recursive statement
     * carrying the rows (no second pass over the table: decision 0260); empty when the platform has
     * no such entity.
     */
    subtree: (platformId: string, id: string) =>
      rows(sql<Record<string, unknown>>`WITH RECURSIVE down AS (
          SELECT * FROM registry.entities WHERE platform_id = ${platformId} AND id = ${id}
          UNION ALL
          SELECT e.* FROM registry.entities e JOIN down ON e.parent_id = down.id WHERE e.deleted_at IS NULL
        )
        SELECT ${columns} FROM down ORDER BY depth, created_at, id`),
    list: (platformId: string, query: Registry.ListEntitiesQuery, after: { createdAt: Date; id: string } | undefined) => {
      const clauses = filterClauses(platformId, query)
      if (after !== undefined) clauses.push(sql`(created_at, id) > (${after.createdAt}, ${after.id})`)
      return rows(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.entities WHERE ${sql.and(clauses)}
        ORDER BY created_at, id LIMIT ${query.limit + 1}`)
    },
    /** The platform's live default tenant and the platform's status; `none` without either. */
    defaultTenantOf: (platformId: string) =>
      sql<{ id: string; status: string }>`SELECT e.id, p.status FROM registry.platforms p
          JOIN registry.entities e ON e.platform_id = p.id AND e.parent_id IS NULL AND e.slug = 'default' AND e.deleted_at IS NULL
        WHERE p.id = ${platformId}`.pipe(Effect.orDie, Effect.map((rows) => Option.fromNullable(rows[0]))),
    count: (platformId: string, query: Registry.ListEntitiesQuery) =>
      sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.entities WHERE ${sql.and(filterClauses(platformId, query))}`.pipe(
        Effect.map((found) => Number(found[0]?.count ?? 0)),
        Effect.orDie
      )
  }
}
