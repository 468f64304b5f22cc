import { EventOutbox, Ids } from "@core/kernel"
import { type EdgeResourceType, JobFailed } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { StackDefinitions } from "../ports/StackDefinitions.js"
import { makeResourceRecordsRepo } from "../ResourceRecordsRepo.js"
import { toResourceRecord } from "../Resources.js"
import type { ResourceRow } from "../ResourcesRepo.js"

/** An environment of the seed (`dev`, `stg`, `prod`). */
export type Environment = "dev" | "stg" | "prod"

/** A registry resource as the resource jobs see it. */
export interface ResourceView {
  readonly id: string
  readonly platformId: string
  readonly entityId: string
  readonly stackId: string
  readonly resourceType: EdgeResourceType
  readonly serviceName: string
  readonly environment: Environment
  readonly edgeName: string
  readonly edgeId: string | null
  readonly edgeUrl: string | null
  readonly status: "pending" | "provisioning" | "active" | "failed" | "deleted"
  readonly config: Record<string, unknown>
}

/** A platform as the resource jobs see it. */
export interface PlatformView {
  readonly platformId: string
  readonly slug: string
  readonly status: string
  /** Its default tenant (the root entity `default`), if it has one. */
  readonly defaultEntityId: string | null
}

/** A published stack version and the resources its definition lists. */
export interface StackVersionView {
  readonly templateId: string
  readonly templateName: string
  readonly version: string
  readonly resources: ReadonlyArray<{
    readonly type: string
    readonly name: string
    readonly environment: string
    readonly config: Record<string, unknown>
  }>
}

/** What a job records before it makes a resource on the edge. */
export interface NewResource {
  readonly platformId: string
  readonly entityId: string
  readonly stackId: string
  readonly resourceType: EdgeResourceType
  readonly serviceName: string
  readonly environment: Environment
  readonly edgeName: string
  readonly config: Record<string, unknown>
  readonly jobId: string
}

/**
 * The registry's resources as its jobs move them (`pending → provisioning → active | failed`,
 * `deleted` when removed; decision 0293).
 */
export class ResourceRecords extends Context.Tag("@core/registry/ResourceRecords")<ResourceRecords, {
  /** A platform by id (a deleted one too: deprovision still runs). */
  readonly platform: (platformId: string) => Effect.Effect<Option.Option<PlatformView>>
  /** Whether the entity is a live entity of the platform. */
  readonly liveEntity: (platformId: string, entityId: string) => Effect.Effect<boolean>
  /** A published version of a stack template (`stackId`: the template's name or id). */
  readonly stackVersion: (stackId: string, version: string) => Effect.Effect<Option.Option<StackVersionView>>
  /**
   * Record a `pending` resource; the live one of the platform with that edge name is answered as it
   * is (a retried job records nothing twice). Another platform's: `JobFailed`.
   */
  readonly record: (resource: NewResource) => Effect.Effect<ResourceView, JobFailed>
  /** The platform's live resources, optionally only those ids or of one environment. */
  readonly live: (
    platformId: string,
    filter?: { readonly ids?: ReadonlyArray<string>; readonly environment?: Environment }
  ) => Effect.Effect<ReadonlyArray<ResourceView>>
  /**
   * Move a live resource (its version bumped); `deleted` soft-deletes it. `edge` records what the
   * edge answered and the job now working on it (each field kept when absent). Becoming `active`
   * records `resource.provisioned`, becoming `deleted` `resource.removed`, in the same transaction.
   */
  readonly move: (
    resourceId: string,
    status: "provisioning" | "active" | "failed" | "deleted",
    edge?: { readonly edgeId?: string; readonly edgeUrl?: string | null; readonly jobId?: string }
  ) => Effect.Effect<void>
  /**
   * Settle the live resources a job left unfinished (`pending` or `provisioning` with that job as
   * theirs) as an operator ended it: `failed` when cancelled, `active` when force-completed (its
   * `failed` ones too; decision 0312); answers how many moved.
   */
  readonly settleJob: (jobId: string, status: "active" | "failed") => Effect.Effect<number>
  /** The content a DNS record of the platform points at (a custom hostname's target), if it exists. */
  readonly dnsTarget: (platformId: string, dnsRecordId: string) => Effect.Effect<Option.Option<string>>
}>() {}

/**
 * `ResourceRecords` over the registry's tables (decision 0293): the resource jobs
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
    const repo = makeResourceRecordsRepo(sql)
    const outbox = yield* Effect.serviceOption(EventOutbox.EventOutbox)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const told = { active: "resource.provisioned", deleted: "resource.removed" } as const
    /** The move and its event in one transaction: the resource as the API answers it after the move. */
    const moveAndTell = (
      outbox: EventOutbox.EventOutbox["Type"],
      type: (typeof told)[keyof typeof told],
      moving: Effect.Effect<Option.Option<{ readonly resource: ResourceRow; readonly organizationId: string | null }>>
    ) =>
      sql.withTransaction(Effect.flatMap(moving, (moved) =>
        Option.isSome(moved) && moved.value.organizationId !== null
          ? outbox.record({ type, organizationId: moved.value.organizationId, platformId: moved.value.resource.platformId, data: toResourceRecord(moved.value.resource) })
          : Effect.void)).pipe(Effect.orDie)
    const liveByEdgeName = repo.liveByEdgeName

    return ResourceRecords.of({
      platform: repo.platform,
      liveEntity: repo.liveEntity,
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
          const inserted = yield* repo.insertPending(yield* ids.make("res"), resource, at)
          if (Option.isSome(inserted)) return inserted.value
          // A racing insert of the same edge name won: answer it.
          const raced = yield* liveByEdgeName(resource.edgeName)
          if (Option.isSome(raced) && raced.value.platformId === resource.platformId) return raced.value
          return yield* new JobFailed({ message: `Could not record ${resource.edgeName}` })
        }).pipe(Effect.withSpan("ResourceRecords.record")),
      live: (platformId, filter = {}) =>
        filter.ids !== undefined && filter.ids.length === 0 ? Effect.succeed([]) : repo.live(platformId, filter),
      move: (resourceId, status, edge) =>
        Effect.flatMap(now, (at) => {
          const moving = repo.move(resourceId, status, edge, at)
          return Option.isSome(outbox) && (status === "active" || status === "deleted")
            ? moveAndTell(outbox.value, told[status], moving)
            : Effect.asVoid(moving)
        }).pipe(
          Effect.withSpan("ResourceRecords.move", { attributes: { resourceId, status } })
        ),
      settleJob: (jobId, status) =>
        Effect.flatMap(now, (at) =>
          repo.settleJob(jobId, status, status === "active" ? ["pending", "provisioning", "failed"] : ["pending", "provisioning"], at)).pipe(
          Effect.withSpan("ResourceRecords.settleJob", { attributes: { jobId, status } })
        ),
      dnsTarget: repo.dnsTarget
    })
  })
)
