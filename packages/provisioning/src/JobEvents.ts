import type { Provisioning } from "@core/contracts"
import { type Caller, Config as KernelConfig, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Chunk, Config, Duration, Effect, Option, Ref, Schedule, Stream } from "effect"
import { JobQueue } from "./JobQueue.js"
import { makeJobsRepo } from "./JobsRepo.js"

/** How the event stream runs (decision 0280). */
export interface JobEventsSettings {
  /** A comment line this often keeps proxies and the gateway from cutting an idle stream (`CORE_SSE_KEEPALIVE_MS`). @default 15 000 */
  readonly keepAliveMs: number
  /** How often a live stream looks for new events. @default 250 */
  readonly pollMs: number
}

export const JOB_EVENTS_DEFAULTS: JobEventsSettings = { keepAliveMs: 15_000, pollMs: 250 }

const keepAliveMs = Config.withDefault(
  Config.map(
    KernelConfig.setting("CORE_SSE_KEEPALIVE_MS", {
      test: (value) => /^\d{1,7}$/.test(value) && Number(value) >= 10 && Number(value) <= 3_600_000,
      must: "must be a whole number of milliseconds from 10 to 3600000"
    }),
    Number
  ),
  JOB_EVENTS_DEFAULTS.keepAliveMs
)

const TERMINAL: ReadonlySet<string> = new Set(["COMPLETED", "FAILED"])

/** An event row as the API shows it. */
const toEvent = (raw: Record<string, unknown>): Provisioning.JobEvent => ({
  seq: Number(raw.seq),
  jobId: raw.jobId as string,
  kind: raw.kind as Provisioning.JobEvent["kind"],
  status: raw.status as Provisioning.JobStatus,
  from: Rows.textOrNull(raw.fromStatus) as Provisioning.JobStatus | null,
  attempt: Number(raw.attempt),
  progress: Number(raw.progress),
  step: (typeof raw.step === "string" ? JSON.parse(raw.step) : raw.step ?? null) as Provisioning.JobEvent["step"],
  actor: Rows.textOrNull(raw.actor),
  reason: Rows.textOrNull(raw.reason),
  at: Rows.toDate(raw.at).toISOString()
})

const encoder = new TextEncoder()

/** One Server-Sent Event: `id` (its seq), `event` (its kind), `data` (the event as JSON on one line). */
export const sseFrame = (event: Provisioning.JobEvent): string =>
  `id: ${event.seq}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`

/** The keep-alive comment (ignored by every SSE client). */
export const KEEP_ALIVE = ": keep-alive\n\n"

/**
 * A job's events (`provisioning.job_events`, written by the jobs table's trigger: decision 0280):
 * read them, or follow them live as Server-Sent Events until the job ends.
 */
export class JobEvents extends Effect.Service<JobEvents>()("@core/provisioning/JobEvents", {
  effect: Effect.gen(function*() {
    const repo = makeJobsRepo(yield* SqlClient.SqlClient)
    const queue = yield* JobQueue
    const settings: JobEventsSettings = { ...JOB_EVENTS_DEFAULTS, keepAliveMs: yield* Effect.orDie(keepAliveMs) }

    /** The job's events after `afterSeq` (all of them from 0), oldest first. */
    const after = (jobId: string, afterSeq: number) =>
      repo.eventsAfter(jobId, afterSeq).pipe(Effect.map((rows) => rows.map(toEvent)), Effect.withSpan("JobEvents.after"))

    const statusOf = repo.statusOf

    /**
     * The events of a job the caller may read (404 otherwise), after `lastEventId` when the client
     * resumes: the past ones at once, then each new one as it is written, ending after the event
     * that makes the job COMPLETED or FAILED. The status is read before the events, and a status
     * change and its event are written by one statement, so the final event is never missed.
     */
    const follow = (jobId: string, lastEventId: number, options: Partial<JobEventsSettings> = {}) =>
      Effect.gen(function*() {
        const pollMs = options.pollMs ?? settings.pollMs
        const state = yield* Ref.make({ seq: lastEventId, ended: false, first: true })
        return Stream.repeatEffectChunkOption(Effect.gen(function*() {
          const current = yield* Ref.get(state)
          if (current.ended) return yield* Effect.fail(Option.none())
          if (!current.first) yield* Effect.sleep(Duration.millis(pollMs))
          const status = yield* statusOf(jobId)
          const events = yield* after(jobId, current.seq)
          yield* Ref.set(state, {
            seq: events.length > 0 ? events[events.length - 1].seq : current.seq,
            ended: status === undefined || TERMINAL.has(status),
            first: false
          })
          return Chunk.fromIterable(events)
        }))
      })

    /** `follow` as the bytes of a `text/event-stream`, a keep-alive comment every `keepAliveMs` while it waits. */
    const stream = Effect.fn("JobEvents.stream")(function*(caller: Caller, jobId: string, lastEventId = 0, options: Partial<JobEventsSettings> = {}) {
      yield* queue.get(caller, jobId)
      const events = yield* follow(jobId, lastEventId, options)
      const keepAlive = Stream.fromSchedule(Schedule.spaced(Duration.millis(options.keepAliveMs ?? settings.keepAliveMs))).pipe(
        Stream.map(() => KEEP_ALIVE)
      )
      return Stream.merge(Stream.map(events, sseFrame), keepAlive, { haltStrategy: "left" }).pipe(
        Stream.map((text) => encoder.encode(text))
      )
    })

    return { after, follow, stream, settings } as const
  }),
  dependencies: [JobQueue.Default]
}) {}
