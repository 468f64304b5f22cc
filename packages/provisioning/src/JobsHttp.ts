import { Provisioning } from "@core/contracts"
import { Route } from "@core/kernel"
import { HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { DeadLetters } from "./DeadLetters.js"
import { JobControls } from "./JobControls.js"
import { JobEvents } from "./JobEvents.js"
import { JobQueue } from "./JobQueue.js"

const routes = Provisioning.JobApiRoutes

/** `Last-Event-ID` (an event's seq) when a client resumes a stream; anything else starts from the first event. */
const lastEventId = (header: string | undefined): number => (header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : 0)

/** The job API's routes: the list, the event stream, the operator controls and the dead letters (`Provisioning.JobApiRoutes`). */
export const JobApiHandlers = [
  Route.handle(routes.listJobs, ({ caller, query }) =>
    Effect.gen(function*() {
      const jobs = yield* JobQueue
      return yield* jobs.list(caller, query)
    })),
  Route.handle(routes.streamJobEvents, ({ caller, params, request }) =>
    Effect.gen(function*() {
      const events = yield* JobEvents
      const body = yield* events.stream(caller, params.jobId, lastEventId(request.headers["last-event-id"]))
      return HttpServerResponse.stream(body, {
        contentType: "text/event-stream; charset=utf-8",
        headers: { "cache-control": "no-cache, no-store", "x-accel-buffering": "no" }
      })
    })),
  Route.handle(routes.retryJob, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const controls = yield* JobControls
      return yield* controls.retry(caller, params.jobId, body?.reason)
    })),
  Route.handle(routes.cancelJob, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const controls = yield* JobControls
      return yield* controls.cancel(caller, params.jobId, body?.reason)
    })),
  Route.handle(routes.forceCompleteJob, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const controls = yield* JobControls
      return yield* controls.forceComplete(caller, params.jobId, body?.reason)
    })),
  Route.handle(routes.listDeadLetters, ({ query }) =>
    Effect.gen(function*() {
      const dlq = yield* DeadLetters
      return yield* dlq.list(query)
    })),
  Route.handle(routes.replayDeadLetter, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const dlq = yield* DeadLetters
      return yield* dlq.replay(caller, params.entryId, body?.reason)
    }))
]

/** The services of the job API's routes (beside `JobQueue.Default`); they need the `SqlClient` and `Ids`. */
export const JobApiLive = Layer.mergeAll(JobEvents.Default, JobControls.Default, DeadLetters.Default)
