import { Ids } from "@core/kernel"
import { JobFailed, ResourceRecords } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { StackDefinitions } from "./ports/StackDefinitions.js"
import { makeResourceRecordsRepo } from "./ResourceRecordsRepo.js"

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
    const repo = makeResourceRecordsRepo(sql)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
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
        Effect.flatMap(now, (at) => repo.move(resourceId, status, edge, at)).pipe(
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
