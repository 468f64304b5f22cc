import type { Provisioning } from "@core/contracts"
import { type Caller, Policy } from "@core/kernel"
import { SqlClient, type Statement } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { jobNotFound, jobTransitionInvalid } from "./Errors.js"
import { makeDomainsRepo } from "./DomainsRepo.js"
import { JobHandlers, type OwnedJob } from "./JobHandlers.js"
import * as JobOutcomes from "./JobOutcomes.js"
import { find, makeJobsRepo } from "./JobsRepo.js"

/** The wake-up payload that tells the worker running `jobId` to stop it (decision 0283). */
export const stopPayload = (jobId: string): string => `stop:${jobId}`

/** The default reason of a cancel that names none. */
export const CANCEL_REASON = "Cancelled by an operator"

/** Who did it, as a job event's `actor`: a user's or an API key's id, or `service` for the static key. */
export const actorName = (caller: Caller): string => Policy.actorOf(caller).actorId ?? "service"

interface Transition {
  readonly to: Provisioning.JobStatus
  readonly from: ReadonlyArray<Provisioning.JobStatus>
  /** The `SET` list of the change, after `status` (one of the repository's `controlSets`). */
  readonly set: (now: Date) => Statement.Fragment
  /** What the job's records become when an operator ends it: `failed` (cancel), `active` (force-complete). */
  readonly settles?: "failed" | "active"
  /** The event an operator's end of the job is told by (`job.failed` for a cancel, `job.succeeded` when forced). */
  readonly tells?: JobOutcomes.JobOutcomeEvent
}

/**
 * The operator controls (seed 001, DESIGN §7; decision 0283): retry only from FAILED, cancel from
 * QUEUED or RUNNING, force-complete from anything but COMPLETED; 409 `INVALID_STATE` `{ from, to }`
 * otherwise. Each is one guarded `UPDATE` in a transaction that names the actor and reason for
 * the job's events; stopping a running handler is a wake-up the worker listens for (and its
 * heartbeat's fallback: a job no longer RUNNING under its lease is stopped).
 */
export class JobControls extends Effect.Service<JobControls>()("@core/provisioning/JobControls", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const domains = makeDomainsRepo(sql)
    const jobs = makeJobsRepo(sql)
    // The owners' handlers settle what their jobs own, when this process has them (the server's).
    const handlers = yield* Effect.serviceOption(JobHandlers)
    const outcomes = yield* JobOutcomes.make

    /**
     * What an operator's cancel (`failed`) or force-complete (`active`) does to what the job owns,
     * in the same transaction (decision 0312): its type's handler settles its owner's records (the
     * registry's activations and resources); its custom domain is settled here (verification
     * untouched when forced). Onboarding flows read their job's status.
     */
    const settleOwned = (job: OwnedJob, outcome: "failed" | "active") =>
      Effect.gen(function*() {
        const settle = Option.isSome(handlers) ? handlers.value.get(job.type)?.settle : undefined
        if (settle !== undefined) yield* settle(job, outcome)
        yield* domains.settleJob(job.id, outcome, new Date(yield* Clock.currentTimeMillis))
      })

    const move = (caller: Caller, jobId: string, transition: Transition, reason: string | undefined) =>
      sql.withTransaction(Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* jobs.asActor(actorName(caller), reason)
        const before = yield* jobs.lockForControl(jobId)
        if (Option.isNone(before)) return yield* jobNotFound
        const row = before.value
        const from = row.status
        if (!transition.from.includes(from)) {
          return yield* jobTransitionInvalid(from, transition.to)
        }
        yield* jobs.setStatus(jobId, transition.to, transition.set(now), now)
        if (transition.settles !== undefined) {
          const payload = typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload
          yield* settleOwned({ id: jobId, type: row.type, payload: (payload ?? {}) as Record<string, unknown> }, transition.settles)
        }
        if (transition.tells !== undefined && outcomes.enabled) {
          const after = yield* find(sql, jobId)
          if (Option.isSome(after)) yield* outcomes.record(transition.tells, after.value)
        }
        // Workers wake for a queued job; the one running a stopped job interrupts it.
        yield* jobs.notify(transition.to === "QUEUED" ? jobId : stopPayload(jobId))
        return from
      })).pipe(Effect.catchTag("SqlError", Effect.die))

    /** FAILED → QUEUED at once, its attempts renewed (finished steps stay done: memoized). */
    const retry = Effect.fn("JobControls.retry")(function*(caller: Caller, jobId: string, reason?: string) {
      yield* move(caller, jobId, {
        to: "QUEUED",
        from: ["FAILED"],
        set: jobs.controlSets.retry
      }, reason)
      return { jobId, status: "QUEUED" as const }
    })

    /** QUEUED or RUNNING → FAILED with the reason as its error; a running handler is stopped. */
    const cancel = Effect.fn("JobControls.cancel")(function*(caller: Caller, jobId: string, reason?: string) {
      const why = reason ?? CANCEL_REASON
      yield* move(caller, jobId, {
        to: "FAILED",
        from: ["QUEUED", "RUNNING"],
        settles: "failed",
        tells: "job.failed",
        set: (now) => jobs.controlSets.cancel(why, now)
      }, why)
      return { jobId, status: "FAILED" as const, reason: why }
    })

    /** Anything but COMPLETED → COMPLETED (`result.forced`), a running handler stopped. */
    const forceComplete = Effect.fn("JobControls.forceComplete")(function*(caller: Caller, jobId: string, reason?: string) {
      yield* move(caller, jobId, {
        to: "COMPLETED",
        from: ["QUEUED", "RUNNING", "FAILED"],
        settles: "active",
        tells: "job.succeeded",
        set: jobs.controlSets.forceComplete
      }, reason)
      return { jobId, status: "COMPLETED" as const }
    })

    return { retry, cancel, forceComplete } as const
  })
}) {}
