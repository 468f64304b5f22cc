import { EdgeProvider, FEATURE_ACTIVATE, FEATURE_DEACTIVATE, JobFailed, type JobHandler, JobHandlers, type JobRow } from "@core/provisioning"
import { Effect, Layer } from "effect"
import { Features } from "../Features.js"

/** Attempts of a feature job before it fails (and its activation with it). */
export const FEATURE_MAX_ATTEMPTS = 3

/** The payload of both feature jobs, as the registry enqueues it. */
export interface FeaturePayload {
  readonly activationId: string
  readonly platformId: string
  readonly entityId: string
  readonly featureId: string
  readonly featureVersion: string
  readonly environment: string
}

const payloadOf = (job: JobRow): Effect.Effect<FeaturePayload, JobFailed> => {
  const p = job.payload
  const fields = ["activationId", "platformId", "entityId", "featureId", "featureVersion", "environment"] as const
  return fields.every((field) => typeof p[field] === "string")
    ? Effect.succeed(p as unknown as FeaturePayload)
    : Effect.fail(new JobFailed({ message: `A ${job.type} job needs ${fields.join(", ")} in its payload` }))
}

/** Whether this attempt is the job's last: its failure is then the activation's. */
const lastAttempt = (job: JobRow) => job.attempts >= Math.min(job.maxAttempts, FEATURE_MAX_ATTEMPTS)

/**
 * `feature.activate` and `feature.deactivate` over the `EdgeProvider` (steps `deploy`/`remove`,
 * then `record`), moving the registry's activation (`Features.settle`): `pending → active`, or
 * `failed` once the last attempt fails; `deactivating → deactivated`. An operator's cancel makes an
 * activation `failed` and a deactivation `active` again (it stays deployed as it was); a
 * force-complete makes them `active` and `deactivated` (decision 0312).
 */
export const FeatureJobsLive: Layer.Layer<JobHandlers, never, EdgeProvider | Features> = Layer.effect(
  JobHandlers,
  Effect.gen(function*() {
    const edge = yield* EdgeProvider
    const activations = yield* Features
    const activationOf = (job: { readonly payload: Record<string, unknown> }) =>
      typeof job.payload.activationId === "string" ? job.payload.activationId : undefined
    const activate: JobHandler = {
      maxAttempts: FEATURE_MAX_ATTEMPTS,
      settle: (job, outcome) => {
        const id = activationOf(job)
        return id === undefined ? Effect.void : activations.settle(id, outcome)
      },
      run: (job, context) =>
        Effect.gen(function*() {
          const feature = yield* payloadOf(job)
          yield* context.step("deploy", edge.activateFeature(feature))
          yield* context.progress(0.5)
          yield* context.step("record", activations.settle(feature.activationId, "active"))
          return { activationId: feature.activationId, status: "active", provider: edge.name }
        }).pipe(Effect.tapError(() =>
          lastAttempt(job) && typeof job.payload.activationId === "string"
            ? activations.settle(job.payload.activationId, "failed")
            : Effect.void))
    }
    const deactivate: JobHandler = {
      maxAttempts: FEATURE_MAX_ATTEMPTS,
      settle: (job, outcome) => {
        const id = activationOf(job)
        return id === undefined ? Effect.void : activations.settle(id, outcome === "active" ? "deactivated" : "restored")
      },
      run: (job, context) =>
        Effect.gen(function*() {
          const feature = yield* payloadOf(job)
          // `deleteData` (default false): the feature's data at the edge goes too (decision 0313).
          yield* context.step("remove", edge.deactivateFeature(feature, { deleteData: job.payload.deleteData === true }))
          yield* context.progress(0.5)
          yield* context.step("record", activations.settle(feature.activationId, "deactivated"))
          return { activationId: feature.activationId, status: "deactivated", provider: edge.name }
        })
    }
    return new Map([[FEATURE_ACTIVATE, activate], [FEATURE_DEACTIVATE, deactivate]])
  })
)
