import { EdgeProvider, JobFailed, type JobContext, type JobRow } from "@core/provisioning"
import { Context, Effect, Layer } from "effect"
import { ResourceRecords, type ResourceView } from "./ResourceRecords.js"

/** Attempts of a resource job: its steps are memoized, so a retry resumes. */
export const RESOURCE_MAX_ATTEMPTS = 5

/** Whether this attempt is the job's last: a failure then fails its resources too. */
const lastAttempt = (job: JobRow) => job.attempts >= Math.min(job.maxAttempts, RESOURCE_MAX_ATTEMPTS)

/**
 * Making registry resources real on the edge (the resource jobs and the onboard job):
 * each resource in a memoized step `create:<edgeName>` moved `provisioning`, made, then `active`
 * with its edge id and URL; `remove` deletes one and marks it `deleted`.
 */
export class ResourceProvisioner extends Context.Tag("@core/registry/ResourceProvisioner")<ResourceProvisioner, {
  readonly provision: (
    resources: ReadonlyArray<ResourceView>,
    context: JobContext,
    job: JobRow
  ) => Effect.Effect<void, JobFailed>
  readonly remove: (resource: ResourceView, deleteData: boolean, context: JobContext) => Effect.Effect<void, JobFailed>
  /** Provision the platform's live resources of those ids that are not active yet; answers them all afterwards. */
  readonly provisionIds: (
    platformId: string,
    ids: ReadonlyArray<string>,
    context: JobContext,
    job: JobRow
  ) => Effect.Effect<ReadonlyArray<ResourceView>, JobFailed>
}>() {
  static readonly Live: Layer.Layer<ResourceProvisioner, never, EdgeProvider | ResourceRecords> = Layer.effect(
    ResourceProvisioner,
    Effect.gen(function*() {
      const edge = yield* EdgeProvider
      const records = yield* ResourceRecords
      const provisionOne = (resource: ResourceView, context: JobContext, job: JobRow) =>
        context.step(
          `create:${resource.edgeName}`,
          Effect.gen(function*() {
            // The job working on it is recorded: an operator's cancel or force-complete settles it (decision 0312).
            if (resource.status !== "provisioning") yield* records.move(resource.id, "provisioning", { jobId: job.id })
            const handle = yield* edge.createResource({
              platformId: resource.platformId,
              resourceType: resource.resourceType,
              edgeName: resource.edgeName,
              environment: resource.environment,
              config: resource.config
            })
            yield* records.move(resource.id, "active", { ...handle, jobId: job.id })
          }).pipe(Effect.tapError(() => (lastAttempt(job) ? records.move(resource.id, "failed") : Effect.void)))
        )
      const provision = (resources: ReadonlyArray<ResourceView>, context: JobContext, job: JobRow) =>
        Effect.forEach(resources.filter((resource) => resource.status !== "deleted"), (resource) => provisionOne(resource, context, job), {
          discard: true
        })
      return ResourceProvisioner.of({
        provision,
        provisionIds: (platformId, ids, context, job) =>
          Effect.gen(function*() {
            const resources = yield* records.live(platformId, { ids })
            yield* provision(resources.filter((r) => r.status !== "active"), context, job)
            return yield* records.live(platformId, { ids })
          }),
        remove: (resource, deleteData, context) =>
          context.step(
            `delete:${resource.edgeName}`,
            Effect.gen(function*() {
              yield* edge.deleteResource(
                { platformId: resource.platformId, resourceType: resource.resourceType, edgeName: resource.edgeName },
                { deleteData }
              )
              yield* records.move(resource.id, "deleted")
            })
          )
      })
    })
  )
}

