import { Context, Data, Effect, Layer } from "effect"
import type { JobRow } from "./Jobs.js"

/** A handler's failure: retried with backoff until the job's attempts are spent. */
export class JobFailed extends Data.TaggedError("JobFailed")<{ readonly message: string }> {}

/** What a running handler may do besides its work: record steps and progress. */
export interface JobContext {
  /**
   * Run `name` once: a step already completed in an earlier attempt is skipped (steps are
   * memoized), else it runs and is recorded with its start, end and error.
   */
  readonly step: <R = never>(name: string, work: Effect.Effect<void, JobFailed, R>) => Effect.Effect<void, JobFailed, R>
  /** The job's progress, 0 to 1. */
  readonly progress: (fraction: number) => Effect.Effect<void>
}

/** The work of one job type; its dependencies are captured when its layer is built. */
export interface JobHandler {
  /** Attempts before the job fails for good. @default DEFAULT_MAX_ATTEMPTS (of the enqueued job) */
  readonly maxAttempts?: number
  /** The delay before the attempt after `attempts` failed ones, instead of the worker's backoff. @default the worker's backoff */
  readonly retryDelayMs?: (attempts: number) => number
  readonly run: (job: JobRow, context: JobContext) => Effect.Effect<Record<string, unknown> | void, JobFailed>
  /**
   * What an operator's cancel (`failed`) or force-complete (`active`) makes of what the job owns
   * (its owner's records), inside the control's transaction (decision 0312). @default nothing
   */
  readonly settle?: (job: OwnedJob, outcome: "failed" | "active") => Effect.Effect<void>
}

/** A job as an operator's control hands it to its handler's `settle`. */
export interface OwnedJob {
  readonly id: string
  readonly type: string
  readonly payload: Record<string, unknown>
}

/**
 * The handlers by job type, which the worker runs and the operator controls settle through. Each
 * owner of job types contributes its layer (the registry's `RegistryJobs`, deploy's `DeployJobs`,
 * provisioning's `ProvisioningJobs`), and the host merges them once (`JobHandlers.merge`). A type
 * without a handler fails its job.
 */
export class JobHandlers extends Context.Tag("@core/provisioning/JobHandlers")<JobHandlers, ReadonlyMap<string, JobHandler>>() {
  /** A registry of the given handlers. */
  static readonly layer = (handlers: Record<string, JobHandler>): Layer.Layer<JobHandlers> =>
    Layer.succeed(JobHandlers, new Map(Object.entries(handlers)))

  /**
   * One registry of several (each owner's job types); a type registered twice keeps the later handler.
   *
   * @example
   * Worker.layer().pipe(Layer.provide(JobHandlers.merge(ProvisioningJobs, RegistryJobs, DeployJobs)))
   */
  static readonly merge = <const L extends ReadonlyArray<Layer.Layer<JobHandlers, any, any>>>(
    ...layers: L
  ): Layer.Layer<JobHandlers, Layer.Layer.Error<L[number]>, Layer.Layer.Context<L[number]>> =>
    Layer.scoped(
      JobHandlers,
      Effect.map(
        Effect.forEach(layers, (layer) => Effect.map(Layer.build(layer), (context) => Context.get(context, JobHandlers))),
        (maps) => new Map(maps.flatMap((map) => [...map]))
      )
    )
}
