import { Ids } from "@core/kernel"
import { JobFailed, ResourceRecords, type ResourceView } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { StackDefinitions } from "./ports/StackDefinitions.js"

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
 * Provisioning's `ResourceRecords` over the registry's tables (decision 0293): the resource jobs
 * record resources `pending` (a live one of that edge name is kept), move them `provisioning →
 * active | failed` with their edge id and URL, and soft-delete them; every change bumps the
 * resource's version (its `ETag`). Stack versions come from `StackDefinitions` when it is bound.
 */
export const ResourceRecordsLive: Layer.Layer<ResourceRecords, never, SqlClient.SqlClient | Ids.Ids> = Layer.effect(
  ResourceRecords,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids.Ids
    const stacks = yield* Effect.serviceOption(StackDefinitions)
    const columns = sql.literal(COLUMNS)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const liveByEdgeName = (edgeName: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources WHERE edge_name = ${edgeName} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toView)),
        Effect.orDie
      )

    return ResourceRecords.of({
      platform: (platformId) =>
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
      liveEntity: (platformId, entityId) =>
        sql`SELECT 1 FROM registry.entities WHERE platform_id = ${platformId} AND id = ${entityId} AND deleted_at IS NULL`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      stackVersion: (stackId, version) =>
        Option.isNone(stacks) || stacks.value.version === undefined
          ? Effect.succeed(Option.none())
          : stacks.value.version(stackId, version),
      record: (resource) =>
        Effect.gen(function*() {
          const existing = yield* liveByEdgeName(resource.edgeName)
          if (Option.isSome(existing)) {
            return existing.value.platformId === resource.platformId
              ? existing.value
              : yield* new JobFailed({ message: `The edge name ${resource.edgeName} is another platform's` })
          }
          const at = yield* now
          const inserted = yield* sql<Record<string, unknown>>`INSERT INTO registry.resources
              (id, platform_id, entity_id, stack_id, resource_type, service_name, environment, edge_name, status, provision_job_id,
               config, version, created_at, updated_at)
            VALUES (${yield* ids.make("res")}, ${resource.platformId}, ${resource.entityId}, ${resource.stackId}, ${resource.resourceType},
              ${resource.serviceName}, ${resource.environment}, ${resource.edgeName}, 'pending', ${resource.jobId},
              ${JSON.stringify(resource.config)}, 1, ${at}, ${at})
            ON CONFLICT DO NOTHING RETURNING ${columns}`.pipe(Effect.orDie)
          if (inserted[0] !== undefined) return toView(inserted[0])
          // A racing insert of the same edge name won: answer it.
          const raced = yield* liveByEdgeName(resource.edgeName)
          if (Option.isSome(raced) && raced.value.platformId === resource.platformId) return raced.value
          return yield* new JobFailed({ message: `Could not record ${resource.edgeName}` })
        }).pipe(Effect.withSpan("ResourceRecords.record")),
      live: (platformId, filter = {}) => {
        if (filter.ids !== undefined && filter.ids.length === 0) return Effect.succeed([])
        const clauses = [sql`platform_id = ${platformId}`, sql`deleted_at IS NULL`]
        if (filter.ids !== undefined) clauses.push(sql`id IN ${sql.in(filter.ids)}`)
        if (filter.environment !== undefined) clauses.push(sql`environment = ${filter.environment}`)
        return sql<Record<string, unknown>>`SELECT ${columns} FROM registry.resources WHERE ${sql.and(clauses)} ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(toView)),
          Effect.orDie
        )
      },
      move: (resourceId, status, edge) =>
        Effect.flatMap(now, (at) =>
          sql`UPDATE registry.resources SET status = ${status},
              edge_id = ${edge?.edgeId === undefined ? sql`edge_id` : edge.edgeId},
              edge_url = ${edge?.edgeUrl === undefined ? sql`edge_url` : edge.edgeUrl},
              provision_job_id = ${edge?.jobId === undefined ? sql`provision_job_id` : edge.jobId},
              version = version + 1, updated_at = ${at}, deleted_at = ${status === "deleted" ? at : null}
            WHERE id = ${resourceId} AND deleted_at IS NULL AND status <> ${status}`).pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("ResourceRecords.move", { attributes: { resourceId, status } })
        ),
      settleJob: (jobId, status) =>
        Effect.flatMap(now, (at) =>
          sql<{ id: string }>`UPDATE registry.resources SET status = ${status}, version = version + 1, updated_at = ${at}
            WHERE provision_job_id = ${jobId} AND deleted_at IS NULL
              AND status IN ${sql.in(status === "active" ? ["pending", "provisioning", "failed"] : ["pending", "provisioning"])}
            RETURNING id`).pipe(
          Effect.map((rows) => rows.length),
          Effect.orDie,
          Effect.withSpan("ResourceRecords.settleJob", { attributes: { jobId, status } })
        ),
      dnsTarget: (platformId, dnsRecordId) =>
        sql<{ content: string }>`SELECT content FROM registry.dns_records WHERE platform_id = ${platformId} AND id = ${dnsRecordId}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]?.content)),
          Effect.orDie
        )
    })
  })
)
