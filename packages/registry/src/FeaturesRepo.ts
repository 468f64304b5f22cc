import type { Registry } from "@core/contracts"
import { Rows } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `registry.feature_activations`. */
export interface ActivationRow {
  readonly id: string
  readonly platformId: string
  readonly entityId: string
  readonly featureId: string
  readonly featureVersion: string
  readonly environment: Registry.Environment
  readonly status: Registry.FeatureActivationStatus
  readonly config: Record<string, unknown>
  readonly provisionJobId: string | null
  readonly activatedAt: Date | null
  readonly deactivatedAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const toRow = (raw: Record<string, unknown>): ActivationRow => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  entityId: raw.entityId as string,
  featureId: raw.featureId as string,
  featureVersion: raw.featureVersion as string,
  environment: raw.environment as Registry.Environment,
  status: raw.status as Registry.FeatureActivationStatus,
  config: Rows.jsonObject(raw.config) ?? {},
  provisionJobId: Rows.textOrNull(raw.provisionJobId),
  activatedAt: Rows.toDateOrNull(raw.activatedAt),
  deactivatedAt: Rows.toDateOrNull(raw.deactivatedAt),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt)
})

/** The statuses of a live activation: at most one per entity, feature and environment. */
export const LIVE_STATUSES: ReadonlyArray<Registry.FeatureActivationStatus> = ["pending", "active", "deactivating"]

/** The SQL of `registry.feature_activations`. */
export const makeFeaturesRepo = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(`id, platform_id AS "platformId", entity_id AS "entityId", feature_id AS "featureId",
    feature_version AS "featureVersion", environment, status, config, provision_job_id AS "provisionJobId",
    activated_at AS "activatedAt", deactivated_at AS "deactivatedAt", created_at AS "createdAt", updated_at AS "updatedAt"`)
  const rows = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
    query.pipe(Effect.map((found) => found.map(toRow)), Effect.orDie)
  const first = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
    Effect.map(rows(query), (found) => Option.fromNullable(found[0]))
  const filters = (entityId: string, query: Omit<Registry.ListFeaturesQuery, "cursor" | "limit">) => {
    const clauses = [sql`entity_id = ${entityId}`]
    if (query.environment !== undefined) clauses.push(sql`environment = ${query.environment}`)
    if (query.status !== undefined) clauses.push(sql`status = ${query.status}`)
    if (query.featureId !== undefined) clauses.push(sql`feature_id = ${query.featureId}`)
    return clauses
  }
  return {
    /** The entity, locked: activations of one entity serialize on it. `None` when absent or deleted. */
    lockEntity: (platformId: string, entityId: string) =>
      sql<{ id: string }>`SELECT id FROM registry.entities
        WHERE platform_id = ${platformId} AND id = ${entityId} AND deleted_at IS NULL FOR UPDATE`.pipe(
        Effect.map((found) => found.length > 0),
        Effect.orDie
      ),
    entityExists: (platformId: string, entityId: string) =>
      sql<{ id: string }>`SELECT id FROM registry.entities WHERE platform_id = ${platformId} AND id = ${entityId}`.pipe(
        Effect.map((found) => found.length > 0),
        Effect.orDie
      ),
    defaultEntity: (platformId: string) =>
      sql<{ id: string }>`SELECT id FROM registry.entities
        WHERE platform_id = ${platformId} AND parent_id IS NULL AND slug = 'default' AND deleted_at IS NULL`.pipe(
        Effect.map((found) => Option.fromNullable(found[0]?.id)),
        Effect.orDie
      ),
    live: (entityId: string, featureId: string, environment: string) =>
      first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.feature_activations
        WHERE entity_id = ${entityId} AND feature_id = ${featureId} AND environment = ${environment}
          AND status IN ('pending', 'active', 'deactivating') FOR UPDATE`),
    insert: (row: ActivationRow) =>
      first(sql<Record<string, unknown>>`INSERT INTO registry.feature_activations
          (id, platform_id, entity_id, feature_id, feature_version, environment, status, config, provision_job_id,
           activated_at, deactivated_at, created_at, updated_at)
        VALUES (${row.id}, ${row.platformId}, ${row.entityId}, ${row.featureId}, ${row.featureVersion}, ${row.environment},
          ${row.status}, ${JSON.stringify(row.config)}::jsonb, ${row.provisionJobId}, ${row.activatedAt}, ${row.deactivatedAt},
          ${row.createdAt}, ${row.updatedAt})
        RETURNING ${columns}`).pipe(Effect.map(Option.getOrThrow)),
    /** Make a live activation `pending` again at another feature version. */
    setPendingVersion: (id: string, featureVersion: string, now: Date) =>
      sql`UPDATE registry.feature_activations SET status = 'pending', feature_version = ${featureVersion}, updated_at = ${now}
        WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
    /** Name the job now working on an activation. */
    attachJob: (id: string, jobId: string, now: Date) =>
      sql`UPDATE registry.feature_activations SET provision_job_id = ${jobId}, updated_at = ${now} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    setStatus: (id: string, status: Registry.FeatureActivationStatus, jobId: string | null, now: Date) =>
      first(sql<Record<string, unknown>>`UPDATE registry.feature_activations
        SET status = ${status}, provision_job_id = COALESCE(${jobId}, provision_job_id), updated_at = ${now}
        WHERE id = ${id} RETURNING ${columns}`).pipe(Effect.map(Option.getOrThrow)),
    /**
     * Move an activation to its job's outcome, only from the status (or statuses) that job was for;
     * never to `active` while another live activation of its feature exists (a failed one made
     * active again by its job's retry or force-complete after a new activation was asked).
     */
    settle: (
      id: string,
      from: Registry.FeatureActivationStatus | ReadonlyArray<Registry.FeatureActivationStatus>,
      to: Registry.FeatureActivationStatus,
      now: Date
    ) =>
      sql`UPDATE registry.feature_activations SET status = ${to}, updated_at = ${now},
          activated_at = ${to === "active" && from !== "deactivating" ? sql`${now}` : sql`activated_at`},
          deactivated_at = ${to === "deactivated" ? sql`${now}` : sql`deactivated_at`}
        WHERE id = ${id} AND status IN ${sql.in(typeof from === "string" ? [from] : from)}
          AND ${to === "active" ? sql`NOT EXISTS (SELECT 1 FROM registry.feature_activations live
            WHERE live.entity_id = feature_activations.entity_id AND live.feature_id = feature_activations.feature_id
              AND live.environment = feature_activations.environment AND live.id <> feature_activations.id
              AND live.status IN ('pending', 'active', 'deactivating'))` : sql`TRUE`}`.pipe(Effect.asVoid, Effect.orDie),
    find: (platformId: string, entityId: string, id: string) =>
      first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.feature_activations
        WHERE platform_id = ${platformId} AND entity_id = ${entityId} AND id = ${id}`),
    active: (entityId: string, environment: string) =>
      rows(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.feature_activations
        WHERE entity_id = ${entityId} AND environment = ${environment} AND status = 'active' ORDER BY feature_id`),
    list: (entityId: string, query: Registry.ListFeaturesQuery, after: { createdAt: Date; id: string } | undefined) => {
      const clauses = filters(entityId, query)
      if (after !== undefined) clauses.push(sql`(created_at, id) > (${after.createdAt}, ${after.id})`)
      return rows(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.feature_activations WHERE ${sql.and(clauses)}
        ORDER BY created_at, id LIMIT ${query.limit + 1}`)
    },
    count: (entityId: string, query: Registry.ListFeaturesQuery) =>
      sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.feature_activations WHERE ${sql.and(filters(entityId, query))}`.pipe(
        Effect.map((found) => Number(found[0]?.count ?? 0)),
        Effect.orDie
      )
  }
}
