import type { Registry } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `registry.resources`. */
export interface ResourceRow {
  readonly id: string
  readonly platformId: string
  readonly entityId: string
  readonly stackId: string
  readonly resourceType: Registry.ResourceType
  readonly serviceName: string
  readonly environment: Registry.ResourceEnvironment
  readonly edgeName: string
  readonly edgeId: string | null
  readonly edgeUrl: string | null
  readonly status: Registry.ResourceStatus
  readonly provisionJobId: string | null
  readonly config: Record<string, unknown>
  readonly version: number
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly deletedAt: Date | null
}

/** The columns of a resource row, named as `toResourceRow` reads them. */
export const RESOURCE_COLUMNS = `id, platform_id AS "platformId", entity_id AS "entityId", stack_id AS "stackId",
      resource_type AS "resourceType", service_name AS "serviceName", environment, edge_name AS "edgeName",
      edge_id AS "edgeId", edge_url AS "edgeUrl", status, provision_job_id AS "provisionJobId", config, version,
      created_at AS "createdAt", updated_at AS "updatedAt", deleted_at AS "deletedAt"`

/** A resource row from its selected columns (`RESOURCE_COLUMNS`). */
export const toResourceRow = (raw: Record<string, unknown>): ResourceRow => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  entityId: raw.entityId as string,
  stackId: raw.stackId as string,
  resourceType: raw.resourceType as Registry.ResourceType,
  serviceName: raw.serviceName as string,
  environment: raw.environment as Registry.ResourceEnvironment,
  edgeName: raw.edgeName as string,
  edgeId: Rows.textOrNull(raw.edgeId),
  edgeUrl: Rows.textOrNull(raw.edgeUrl),
  status: raw.status as Registry.ResourceStatus,
  provisionJobId: Rows.textOrNull(raw.provisionJobId),
  config: Rows.jsonObject(raw.config) ?? {},
  version: Number(raw.version),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt),
  deletedAt: Rows.toDateOrNull(raw.deletedAt)
})

/** The filters of a resource list; `entityId` from the query or the path. */
export type ResourceFilter = Omit<Registry.ListResourcesQuery, "cursor" | "limit">

/** Keyset position: the last row of the previous page. */
export interface After {
  readonly createdAt: Date
  readonly id: string
}

/** The SQL of `registry.resources` (SqlClient only; "no row" is `Option.none`). */
export class ResourcesRepo extends Effect.Service<ResourcesRepo>()("@core/registry/ResourcesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(RESOURCE_COLUMNS)
    const rows = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
      query.pipe(Effect.map((found) => found.map(toResourceRow)), Effect.orDie)
    const first = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
      Effect.map(rows(query), (found) => Option.fromNullable(found[0]))
    const clausesOf = (platformId: string, filter: ResourceFilter) => {
      const clauses = [sql`platform_id = ${platformId}`]
      clauses.push(filter.status !== undefined ? sql`status = ${filter.status}` : sql`deleted_at IS NULL`)
      if (filter.resourceType !== undefined) clauses.push(sql`resource_type = ${filter.resourceType}`)
      if (filter.environment !== undefined) clauses.push(sql`environment = ${filter.environment}`)
      if (filter.entityId !== undefined) clauses.push(sql`entity_id = ${filter.entityId}`)
      return clauses
    }

    return {
      /**
       * The resources live at some time in `[from, to)` — created before its end, not deleted
       * before its start, never failed nor stuck pending (provisioning's resource-hours).
       */
      liveDuring: (from: Date, to: Date) =>
        sql<{ id: string; platformId: string; entityId: string; stackId: string }>`SELECT id, platform_id AS "platformId",
          entity_id AS "entityId", stack_id AS "stackId" FROM registry.resources
          WHERE status IN ('active', 'deleted') AND created_at < ${to} AND (deleted_at IS NULL OR deleted_at > ${from})
          ORDER BY id`.pipe(Effect.orDie, Effect.withSpan("ResourcesRepo.liveDuring")),
      /** Insert a resource; `none` when a live resource already has its edge name (the partial unique index). */
      insert: (row: ResourceRow) =>
        first(sql<Record<string, unknown>>`INSERT INTO registry.resources
            (id, platform_id, entity_id, stack_id, resource_type, service_name, environment, edge_name, edge_id, edge_url,
             status, provision_job_id, config, version, created_at, updated_at)
          VALUES (${row.id}, ${row.platformId}, ${row.entityId}, ${row.stackId}, ${row.resourceType}, ${row.serviceName},
            ${row.environment}, ${row.edgeName}, ${row.edgeId}, ${row.edgeUrl}, ${row.status}, ${row.provisionJobId},
            ${JSON.stringify(row.config)}, ${row.version}, ${row.createdAt}, ${row.updatedAt})
          ON CONFLICT DO NOTHING RETURNING ${columns}`).pipe(Effect.withSpan("ResourcesRepo.insert")),
      find: (platformId: string, id: string) =>
        first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources WHERE platform_id = ${platformId} AND id = ${id}`),
      lock: (platformId: string, id: string) =>
        first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources
          WHERE platform_id = ${platformId} AND id = ${id} FOR UPDATE`),
      findLiveByEdgeName: (edgeName: string) =>
        first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources WHERE edge_name = ${edgeName} AND deleted_at IS NULL`),
      /** Write a resource's status and edge URL, bumping its version; a `deleted` status soft-deletes it. */
      update: (id: string, status: Registry.ResourceStatus, edgeUrl: string | null, now: Date) =>
        first(sql<Record<string, unknown>>`UPDATE registry.resources SET status = ${status}, edge_url = ${edgeUrl},
            version = version + 1, updated_at = ${now}, deleted_at = ${status === "deleted" ? now : null}
          WHERE id = ${id} RETURNING ${columns}`).pipe(Effect.map(Option.getOrThrow)),
      /** Whether the entity exists in the platform (live or deleted). */
      entityExists: (platformId: string, entityId: string) =>
        sql`SELECT 1 FROM registry.entities WHERE platform_id = ${platformId} AND id = ${entityId}`.pipe(
          Effect.map((found) => found.length > 0),
          Effect.orDie
        ),
      /** The ids of the platform's live resources of a stack template, oldest first. */
      liveIdsOfStack: (platformId: string, stackId: string) =>
        sql<{ id: string }>`SELECT id FROM registry.resources
          WHERE platform_id = ${platformId} AND stack_id = ${stackId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(
          Effect.map((found) => found.map((row) => row.id)),
          Effect.orDie
        ),
      /** Whether the entity exists in the platform and is live. */
      liveEntity: (platformId: string, entityId: string) =>
        sql<{ id: string }>`SELECT id FROM registry.entities
          WHERE platform_id = ${platformId} AND id = ${entityId} AND deleted_at IS NULL`.pipe(
          Effect.map((found) => found.length > 0),
          Effect.orDie
        ),
      list: (platformId: string, filter: ResourceFilter, after: After | undefined, limit: number) => {
        const clauses = clausesOf(platformId, filter)
        if (after !== undefined) clauses.push(sql`(created_at, id) > (${after.createdAt}, ${after.id})`)
        return rows(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources WHERE ${sql.and(clauses)}
          ORDER BY created_at, id LIMIT ${limit}`)
      },
      count: (platformId: string, filter: ResourceFilter) =>
        sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.resources WHERE ${sql.and(clausesOf(platformId, filter))}`.pipe(
          Effect.map((found) => Number(found[0]?.count ?? 0)),
          Effect.orDie
        )
    } as const
  })
}) {}
