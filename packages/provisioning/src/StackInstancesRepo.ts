import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A stack instance as the stack jobs record it: the resources one activation of a stack made. */
export interface StackInstance {
  readonly id: string
  readonly platformId: string
  readonly stackId: string
  readonly stackVersion: string
  readonly entityId: string
  readonly environment: string
  readonly resourceIds: ReadonlyArray<string>
}

/**
 * The SQL of `provisioning.stack_instances`. The registry's stack jobs record and end instances
 * through it (the table is provisioning's; no other package writes its SQL).
 */
export class StackInstancesRepo extends Effect.Service<StackInstancesRepo>()("@core/provisioning/StackInstancesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Record the instance `active` (activating it again updates its version and resources). */
      upsertActive: (instance: StackInstance, at: Date) =>
        sql`INSERT INTO provisioning.stack_instances
              (id, platform_id, stack_id, stack_version, entity_id, environment, status, resource_ids, created_at, updated_at)
            VALUES (${instance.id}, ${instance.platformId}, ${instance.stackId}, ${instance.stackVersion}, ${instance.entityId},
              ${instance.environment}, 'active', ${JSON.stringify(instance.resourceIds)}::jsonb, ${at}, ${at})
            ON CONFLICT (id) DO UPDATE SET stack_version = EXCLUDED.stack_version, status = 'active',
              resource_ids = EXCLUDED.resource_ids, updated_at = EXCLUDED.updated_at`.pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("StackInstancesRepo.upsertActive")
        ),
      /** The resource ids an instance recorded (none when it does not exist). */
      resourceIds: (id: string) =>
        sql<{ resourceIds: unknown }>`SELECT resource_ids AS "resourceIds" FROM provisioning.stack_instances WHERE id = ${id}`.pipe(
          Effect.orDie,
          Effect.map((rows) => {
            const raw = rows[0]?.resourceIds
            const ids = typeof raw === "string" ? JSON.parse(raw) : raw
            return Array.isArray(ids) ? (ids as ReadonlyArray<string>) : []
          }),
          Effect.withSpan("StackInstancesRepo.resourceIds")
        ),
      /** Whether the instance exists in the platform. */
      exists: (id: string, platformId: string) =>
        sql<{ id: string }>`SELECT id FROM provisioning.stack_instances
            WHERE id = ${id} AND platform_id = ${platformId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie,
          Effect.withSpan("StackInstancesRepo.exists")
        ),
      markDeleted: (id: string, at: Date) =>
        sql`UPDATE provisioning.stack_instances SET status = 'deleted', updated_at = ${at} WHERE id = ${id}`.pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("StackInstancesRepo.markDeleted")
        ),
      /** End a platform's active instances (of one environment, when named). */
      markPlatformDeleted: (platformId: string, environment: string | undefined, at: Date) =>
        (environment === undefined
          ? sql`UPDATE provisioning.stack_instances SET status = 'deleted', updated_at = ${at}
              WHERE platform_id = ${platformId} AND status = 'active'`
          : sql`UPDATE provisioning.stack_instances SET status = 'deleted', updated_at = ${at}
              WHERE platform_id = ${platformId} AND status = 'active' AND environment = ${environment}`).pipe(
          Effect.asVoid,
          Effect.orDie,
          Effect.withSpan("StackInstancesRepo.markPlatformDeleted")
        )
    } as const
  })
}) {}
