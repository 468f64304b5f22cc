import type { NewResource, ResourceView } from "./jobs/ResourceRecords.js"
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { RESOURCE_COLUMNS, type ResourceRow, toResourceRow } from "./ResourcesRepo.js"

const COLUMNS = `id, platform_id AS "platformId", entity_id AS "entityId", stack_id AS "stackId", resource_type AS "resourceType",
  service_name AS "serviceName", environment, edge_name AS "edgeName", edge_id AS "edgeId", edge_url AS "edgeUrl", status, config`

const toView = (raw: Record<string, unknown>): ResourceView => {
  let config: Record<string, unknown> = {}
  try {
    const parsed = typeof raw.config === "string" ? JSON.parse(raw.config) : raw.config
    if (typeof parsed === "object" && parsed !== null) config = parsed as Record<string, unknown>
  } catch {
    config = {}
  }
  return {
    id: raw.id as string,
    platformId: raw.platformId as string,
    entityId: raw.entityId as string,
    stackId: raw.stackId as string,
    resourceType: raw.resourceType as ResourceView["resourceType"],
    serviceName: raw.serviceName as string,
    environment: raw.environment as ResourceView["environment"],
    edgeName: raw.edgeName as string,
    edgeId: (raw.edgeId as string | null) ?? null,
    edgeUrl: (raw.edgeUrl as string | null) ?? null,
    status: raw.status as ResourceView["status"],
    config
  }
}

/**
 * The SQL of provisioning's view of `registry.resources` (with the platform's slug and default
 * tenant, and the DNS records a domain targets): SqlClient only; a database failure is a defect.
 */
export const makeResourceRecordsRepo = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(COLUMNS)
  return {
    /** The live resource of an edge name, if any. */
    liveByEdgeName: (edgeName: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources WHERE edge_name = ${edgeName} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toView)),
        Effect.orDie
      ),
    /** A platform's id, slug, status and live default tenant. */
    platform: (platformId: string) =>
      sql<{ id: string; slug: string; status: string; defaultEntityId: string | null }>`SELECT p.id, p.slug, p.status,
          (SELECT e.id FROM registry.entities e WHERE e.platform_id = p.id AND e.parent_id IS NULL AND e.slug = 'default'
            AND e.deleted_at IS NULL LIMIT 1) AS "defaultEntityId"
        FROM registry.platforms p WHERE p.id = ${platformId}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            platformId: row.id,
            slug: row.slug,
            status: row.status,
            defaultEntityId: row.defaultEntityId ?? null
          }))),
        Effect.orDie
      ),
    /** Whether the entity is the platform's and live. */
    liveEntity: (platformId: string, entityId: string) =>
      sql`SELECT 1 FROM registry.entities WHERE platform_id = ${platformId} AND id = ${entityId} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    /** Insert a `pending` resource (`id` new); `none` when a live one of its edge name won. */
    insertPending: (id: string, resource: NewResource, at: Date) =>
      sql<Record<string, unknown>>`INSERT INTO registry.resources
          (id, platform_id, entity_id, stack_id, resource_type, service_name, environment, edge_name, status, provision_job_id,
           config, version, created_at, updated_at)
        VALUES (${id}, ${resource.platformId}, ${resource.entityId}, ${resource.stackId}, ${resource.resourceType},
          ${resource.serviceName}, ${resource.environment}, ${resource.edgeName}, 'pending', ${resource.jobId},
          ${JSON.stringify(resource.config)}, 1, ${at}, ${at})
        ON CONFLICT DO NOTHING RETURNING ${columns}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toView)),
        Effect.orDie
      ),
    /** The platform's live resources, by ids and environment when given, oldest first. */
    live: (platformId: string, filter: { readonly ids?: ReadonlyArray<string>; readonly environment?: string }) => {
      const clauses = [sql`platform_id = ${platformId}`, sql`deleted_at IS NULL`]
      if (filter.ids !== undefined) clauses.push(sql`id IN ${sql.in(filter.ids)}`)
      if (filter.environment !== undefined) clauses.push(sql`environment = ${filter.environment}`)
      return sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources WHERE ${sql.and(clauses)} ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toView)),
        Effect.orDie
      )
    },
    /**
     * Move a live resource to `status` (unless it is there), its edge id, URL and job when given; the
     * version bumped. Answers the resource after it, with its platform's organization, when it moved.
     */
    move: (
      resourceId: string,
      status: ResourceView["status"],
      edge: { readonly edgeId?: string | null; readonly edgeUrl?: string | null; readonly jobId?: string } | undefined,
      at: Date
    ) =>
      sql`UPDATE registry.resources SET status = ${status},
          edge_id = ${edge?.edgeId === undefined ? sql`edge_id` : edge.edgeId},
          edge_url = ${edge?.edgeUrl === undefined ? sql`edge_url` : edge.edgeUrl},
          provision_job_id = ${edge?.jobId === undefined ? sql`provision_job_id` : edge.jobId},
          version = version + 1, updated_at = ${at}, deleted_at = ${status === "deleted" ? at : null}
        WHERE id = ${resourceId} AND deleted_at IS NULL AND status <> ${status}
        RETURNING ${sql.literal(RESOURCE_COLUMNS)},
          (SELECT p.organization_id FROM registry.platforms p WHERE p.id = platform_id) AS "organizationId"`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (raw): { readonly resource: ResourceRow; readonly organizationId: string | null } => ({
            resource: toResourceRow(raw),
            organizationId: (raw.organizationId as string | null | undefined) ?? null
          }))),
        Effect.orDie
      ),
    /** Settle the live resources of a job that are still `from` one of `from`; how many moved. */
    settleJob: (jobId: string, status: string, from: ReadonlyArray<string>, at: Date) =>
      sql<{ id: string }>`UPDATE registry.resources SET status = ${status}, version = version + 1, updated_at = ${at}
        WHERE provision_job_id = ${jobId} AND deleted_at IS NULL
          AND status IN ${sql.in(from)}
        RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie),
    /** The content of one of the platform's DNS records. */
    dnsTarget: (platformId: string, dnsRecordId: string) =>
      sql<{ content: string }>`SELECT content FROM registry.dns_records WHERE platform_id = ${platformId} AND id = ${dnsRecordId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.content)),
        Effect.orDie
      )
  } as const
}
