import { EventOutbox } from "@core/kernel"
import { Effect, Option } from "effect"
import { type JobRow, toJobRecord } from "./Jobs.js"

/** The event a job's final state is told by: a completion, a failed attempt to be retried, a dead letter. */
export type JobOutcomeEvent = "job.succeeded" | "job.failed" | "job.dead_lettered"

/** Whether a job's outcomes are told to its organization: a job of none (an operator's own, a webhook delivery) is internal. */
export const tellsOutcomes = (job: Pick<JobRow, "organizationId">): boolean => job.organizationId !== null

/**
 * The job events of one process: `record(type, row)` writes `type` with the job as the API answers
 * it (`data` is `GET /api/v1/provision/jobs/{jobId}`'s body) on the current connection — inside the
 * final-state write's transaction. `enabled` is `false` without an `EventOutbox` (a worker alone, a
 * domain's tests): the queue's writes stay single statements then.
 */
export const make = Effect.map(Effect.serviceOption(EventOutbox.EventOutbox), (outbox) => ({
  enabled: Option.isSome(outbox),
  record: (type: JobOutcomeEvent, row: JobRow): Effect.Effect<void> =>
    Option.isNone(outbox) || row.organizationId === null
      ? Effect.void
      : outbox.value.record({ type, organizationId: row.organizationId, platformId: row.platformId, data: toJobRecord(row) })
}))

/** The job events of one process (`make`). */
export type JobOutcomes = Effect.Effect.Success<typeof make>
