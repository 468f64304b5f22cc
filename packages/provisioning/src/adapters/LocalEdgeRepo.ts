import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { EdgeResourceListing, EdgeResourceSpec, EdgeResourceType } from "../ports/EdgeProvider.js"
import * as LocalEdge from "./LocalEdge.js"

/** A resource as the local edge records it. */
export interface LocalResource {
  readonly spec: EdgeResourceSpec
  readonly edgeId: string
  readonly edgeUrl: string | null
  /** The resource's config without its script and files. */
  readonly config: Record<string, unknown>
  readonly script: string | null
}

/**
 * The SQL of the local edge: its resources' data (a schema per database, a table per key-value
 * namespace and queue, in `LocalEdge.EDGE_SCHEMA`), and its records in provisioning's schema
 * (`edge_resources`, `edge_hostnames`, `local_features`, `platform_status`). Each operation
 * answers the `SqlError`: the adapter makes it the job's failure or a defect.
 */
export const makeLocalEdgeRepo = (sql: SqlClient.SqlClient) => {
  const quoted = (name: string) => sql.literal(`"${name}"`)
  const edgeTable = (type: "kv" | "queue", edgeName: string) =>
    sql.literal(`${LocalEdge.EDGE_SCHEMA}."${LocalEdge.resourceTable(type, edgeName)}"`)
  return {
    createDatabase: (edgeName: string) =>
      sql`CREATE SCHEMA IF NOT EXISTS ${quoted(LocalEdge.databaseSchema(edgeName))}`.pipe(Effect.asVoid),
    dropDatabase: (edgeName: string) =>
      sql`DROP SCHEMA IF EXISTS ${quoted(LocalEdge.databaseSchema(edgeName))} CASCADE`.pipe(Effect.asVoid),
    createKv: (edgeName: string) =>
      sql`CREATE TABLE IF NOT EXISTS ${edgeTable("kv", edgeName)} (
          key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz)`.pipe(Effect.asVoid),
    createQueue: (edgeName: string) =>
      sql`CREATE TABLE IF NOT EXISTS ${edgeTable("queue", edgeName)} (
          id bigserial PRIMARY KEY, body jsonb NOT NULL, attempts integer NOT NULL DEFAULT 0,
          visible_at timestamptz NOT NULL DEFAULT now(), enqueued_at timestamptz NOT NULL DEFAULT now())`.pipe(Effect.asVoid),
    dropTable: (type: "kv" | "queue", edgeName: string) => sql`DROP TABLE IF EXISTS ${edgeTable(type, edgeName)}`.pipe(Effect.asVoid),
    /** The platform a resource of that type and name is recorded for. */
    ownerOf: (resourceType: string, edgeName: string) =>
      sql<{ platformId: string }>`SELECT platform_id AS "platformId" FROM provisioning.edge_resources
        WHERE resource_type = ${resourceType} AND edge_name = ${edgeName}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.platformId))
      ),
    /** Record the resource (a second create keeps its script when the new one has none). */
    upsertResource: (resource: LocalResource, at: Date) =>
      sql`INSERT INTO provisioning.edge_resources
          (resource_type, edge_name, platform_id, environment, edge_id, edge_url, config, script, created_at, updated_at)
        VALUES (${resource.spec.resourceType}, ${resource.spec.edgeName}, ${resource.spec.platformId}, ${resource.spec.environment},
          ${resource.edgeId}, ${resource.edgeUrl}, ${JSON.stringify(resource.config)}::jsonb, ${resource.script}, ${at}, ${at})
        ON CONFLICT (resource_type, edge_name) DO UPDATE SET environment = EXCLUDED.environment, edge_url = EXCLUDED.edge_url,
          config = EXCLUDED.config, script = COALESCE(EXCLUDED.script, provisioning.edge_resources.script), updated_at = EXCLUDED.updated_at`.pipe(
        Effect.asVoid
      ),
    deleteResource: (spec: Pick<EdgeResourceSpec, "platformId" | "resourceType" | "edgeName">) =>
      sql`DELETE FROM provisioning.edge_resources WHERE resource_type = ${spec.resourceType} AND edge_name = ${spec.edgeName}
        AND platform_id = ${spec.platformId}`.pipe(Effect.asVoid),
    listResources: (platformId: string) =>
      sql<{ resourceType: EdgeResourceType; edgeName: string; edgeId: string; edgeUrl: string | null }>`SELECT
          resource_type AS "resourceType", edge_name AS "edgeName", edge_id AS "edgeId", edge_url AS "edgeUrl"
        FROM provisioning.edge_resources WHERE platform_id = ${platformId} ORDER BY resource_type, edge_name`.pipe(
        Effect.map((rows): ReadonlyArray<EdgeResourceListing> =>
          rows.map((row) => ({ resourceType: row.resourceType, edgeName: row.edgeName, edgeId: row.edgeId, edgeUrl: row.edgeUrl ?? null })))
      ),
    /** The hostname's route, if one is recorded. */
    hostname: (hostname: string) =>
      sql<{ id: string; platformId: string }>`SELECT id, platform_id AS "platformId"
        FROM provisioning.edge_hostnames WHERE hostname = ${hostname}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
    /** Record the route `pending`, then `active` (a local hostname needs no DNS proof). */
    routeHostname: (route: { readonly id: string; readonly platformId: string; readonly hostname: string; readonly target: string }, at: Date) =>
      Effect.zipRight(
        sql`INSERT INTO provisioning.edge_hostnames (id, platform_id, hostname, target, status, created_at, updated_at)
          VALUES (${route.id}, ${route.platformId}, ${route.hostname}, ${route.target}, 'pending', ${at}, ${at})
          ON CONFLICT (hostname) DO UPDATE SET target = EXCLUDED.target, updated_at = EXCLUDED.updated_at`,
        sql`UPDATE provisioning.edge_hostnames SET status = 'active', updated_at = ${at} WHERE id = ${route.id}`
      ).pipe(Effect.asVoid),
    removeHostname: (input: { readonly platformId: string; readonly edgeId: string }) =>
      sql`DELETE FROM provisioning.edge_hostnames WHERE id = ${input.edgeId} AND platform_id = ${input.platformId}`.pipe(Effect.asVoid),
    /** Record a feature deployed at a version. */
    deployFeature: (feature: {
      readonly platformId: string
      readonly entityId: string
      readonly featureId: string
      readonly environment: string
      readonly featureVersion: string
    }, at: Date) =>
      sql`INSERT INTO provisioning.local_features (platform_id, entity_id, feature_id, environment, feature_version, deployed_at)
        VALUES (${feature.platformId}, ${feature.entityId}, ${feature.featureId}, ${feature.environment}, ${feature.featureVersion}, ${at})
        ON CONFLICT (platform_id, entity_id, feature_id, environment)
        DO UPDATE SET feature_version = EXCLUDED.feature_version, deployed_at = EXCLUDED.deployed_at`.pipe(Effect.asVoid),
    removeFeature: (feature: { readonly platformId: string; readonly entityId: string; readonly featureId: string; readonly environment: string }) =>
      sql`DELETE FROM provisioning.local_features WHERE platform_id = ${feature.platformId} AND entity_id = ${feature.entityId}
        AND feature_id = ${feature.featureId} AND environment = ${feature.environment}`.pipe(Effect.asVoid),
    setPlatformStatus: (platformId: string, status: "active" | "suspended", at: Date) =>
      sql`INSERT INTO provisioning.platform_status (platform_id, status, updated_at) VALUES (${platformId}, ${status}, ${at})
        ON CONFLICT (platform_id) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at`.pipe(Effect.asVoid),
    /** The platform and its status of the pages project `project`, for the pages server. */
    pagesProject: (project: string) =>
      sql<{ platformId: string; status: string | null }>`SELECT r.platform_id AS "platformId", s.status
        FROM provisioning.edge_resources r LEFT JOIN provisioning.platform_status s ON s.platform_id = r.platform_id
        WHERE r.resource_type = 'pages' AND r.edge_name = ${project}`.pipe(Effect.map((rows) => rows[0]))
  }
}
