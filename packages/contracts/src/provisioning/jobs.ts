import { z } from "zod"
import { BoundedId, TEXT_MAX_LENGTH } from "../Bounds.js"
import { DeadLetterId } from "../Ids.js"
import { cursorParam, cursorQuery, deadLetterPage, jobPage, limitParam } from "../Pagination.js"
import { defineRoutes } from "../Routes.js"
import { JobParams, JobRecord, JobStatus, JobStep } from "./schemas.js"

/**
 * The job API (docs/provisioning.md) beyond reading one job: the list, the event stream, the operator
 * controls (retry, cancel, force-complete) and the dead-letter list with replay (decisions 0280–0285).
 */

/** `GET /api/v1/provision/jobs`: filters `platformId` and `status`; `limit` (a string, 1 to 100, default 25) and `cursor`. */
export const JobListQuery = z.object({
  platformId: BoundedId.optional(),
  status: JobStatus.optional(),
  cursor: cursorParam,
  limit: limitParam()
})
export type JobListQuery = z.input<typeof JobListQuery>

/** The job list: newest first, `{ data, pagination: { limit, cursor, nextCursor, count } }`. */
export const JobList = jobPage(JobRecord)
export type JobList = z.infer<typeof JobList>

/**
 * One event of a job, the `data` of a Server-Sent Event (its `id` is `seq`, its `event` the kind):
 * a status change (`from` the status before; a new attempt too), a step change (`step`), or a
 * progress change. `actor` and `reason` name an operator action; a worker's failure carries its
 * error as `reason`.
 */
export const JobEvent = z.looseObject({
  seq: z.number().int(),
  jobId: z.string(),
  kind: z.enum(["status", "step", "progress"]),
  status: JobStatus,
  from: JobStatus.nullable(),
  attempt: z.number().int(),
  progress: z.number(),
  step: JobStep.nullable(),
  actor: z.string().nullable(),
  reason: z.string().nullable(),
  at: z.string()
}).meta({ id: "JobEvent" })
export type JobEvent = z.infer<typeof JobEvent>

/** An operator action's optional body: why (recorded in the job's events). The seed sends none. */
export const OperatorActionRequest = z.object({ reason: z.string().min(1).max(TEXT_MAX_LENGTH).optional() }).optional()
export type OperatorActionRequest = z.input<typeof OperatorActionRequest>

/** What retry and force-complete answer. */
export const JobStatusResponse = z.object({ jobId: z.string(), status: JobStatus })
export type JobStatusResponse = z.infer<typeof JobStatusResponse>

/** What cancel answers: always `FAILED`, with the reason. */
export const JobCancelResponse = z.object({ jobId: z.string(), status: z.literal("FAILED"), reason: z.string() })
export type JobCancelResponse = z.infer<typeof JobCancelResponse>

/** A dead-letter entry (decision 0282): the job that failed for good, its last error, its replays. */
export const DeadLetterEntry = z.looseObject({
  entryId: z.string(),
  jobId: z.string(),
  type: z.string(),
  platformId: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  error: z.string().nullable(),
  failedAt: z.string(),
  replayCount: z.number().int(),
  replayedJobId: z.string().nullable(),
  replayedAt: z.string().nullable()
}).meta({ id: "DeadLetterEntry" })
export type DeadLetterEntry = z.infer<typeof DeadLetterEntry>

/** `GET /api/v1/provision/dlq`: `limit` (1 to 100, default 25), `cursor`. */
export const DeadLetterQuery = cursorQuery()

/** The dead-letter list, oldest failure first: `{ data, pagination: { limit, cursor } }` (`cursor`: the next page's, `""` on the last). */
export const DeadLetterList = deadLetterPage(DeadLetterEntry)
export type DeadLetterList = z.infer<typeof DeadLetterList>

/** The path of one dead-letter entry. */
export const DeadLetterParams = z.object({ entryId: DeadLetterId })

/** What replay answers: the new job, queued, and the entry it replays. */
export const ReplayResponse = z.object({ jobId: z.string(), status: z.literal("QUEUED"), entryId: z.string() })
export type ReplayResponse = z.infer<typeof ReplayResponse>

const tags = ["provisioning: jobs"]
const operatorTags = ["provisioning: operator"]

export const JobApiRoutes = defineRoutes({
  listJobs: {
    method: "GET",
    path: "/api/v1/provision/jobs",
    summary: "List jobs, newest first: a tenant's own (another tenant's platformId lists nothing), every job for operators",
    description: "A cursor-paged list of provisioning jobs, newest first, filtered by `platformId` and `status` (QUEUED, RUNNING, COMPLETED, FAILED), `limit` 1 to 100 as a string. A tenant sees its own platforms' jobs only; operators see every job.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { query: JobListQuery },
    responses: { 200: JobList, 400: null, 401: null, 403: null },
    tags
  },
  streamJobEvents: {
    method: "GET",
    path: "/api/v1/provision/jobs/{jobId}/events",
    summary: "Stream a job's status, step and progress changes as Server-Sent Events: past ones first, then live until the job ends",
    description: "Each event: `id` (its seq; `Last-Event-ID` resumes after it), `event` (status, step or progress) and `data` (a JobEvent). " +
      "A comment line (`: keep-alive`) every 15 seconds keeps proxies from cutting an idle stream. The stream ends once the job is COMPLETED or FAILED.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { params: JobParams },
    responses: {
      200: { description: "Server-Sent Events whose data are JobEvent objects", contentType: "text/event-stream" },
      400: null,
      401: null,
      403: null,
      404: null
    },
    tags
  },
  retryJob: {
    method: "POST",
    path: "/api/v1/provision/jobs/{jobId}/retry",
    summary: "Queue a FAILED job again, its attempts renewed (operator); 409 INVALID_STATE from any other status",
    description: "Puts a FAILED job back in the queue with its attempts renewed, for an operator who fixed the cause. Recorded in the job's events with the operator; from any other status 409 INVALID_STATE.",
    auth: "operator",
    request: { params: JobParams, body: OperatorActionRequest },
    responses: { 200: JobStatusResponse, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags: operatorTags
  },
  cancelJob: {
    method: "POST",
    path: "/api/v1/provision/jobs/{jobId}/cancel",
    summary: "Cancel a QUEUED or RUNNING job: FAILED with the reason, a running handler stopped (operator); 409 INVALID_STATE otherwise",
    description: "Stops a QUEUED or RUNNING job: it becomes FAILED with the given reason, and a running handler is interrupted. Operators only; a job already finished is 409 INVALID_STATE.",
    auth: "operator",
    request: { params: JobParams, body: OperatorActionRequest },
    responses: { 200: JobCancelResponse, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags: operatorTags
  },
  forceCompleteJob: {
    method: "POST",
    path: "/api/v1/provision/jobs/{jobId}/force-complete",
    summary: "Mark a job COMPLETED whatever its state, a running handler stopped (operator); 409 INVALID_STATE when it already is",
    description: "Marks a job COMPLETED whatever it was doing, interrupting a running handler: for an operator who finished the work by hand. Already COMPLETED is 409 INVALID_STATE.",
    auth: "operator",
    request: { params: JobParams, body: OperatorActionRequest },
    responses: { 200: JobStatusResponse, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags: operatorTags
  },
  listDeadLetters: {
    method: "GET",
    path: "/api/v1/provision/dlq",
    summary: "List the dead letters: jobs that failed for good, with their last error (operator)",
    description: "The dead-letter queue, newest first, cursor-paged: jobs that failed every attempt, each with its type, platform, payload, attempts, last error and whether it was replayed. Operators only.",
    auth: "operator",
    request: { query: DeadLetterQuery },
    responses: { 200: DeadLetterList, 400: null, 401: null, 403: null },
    tags: operatorTags
  },
  replayDeadLetter: {
    method: "POST",
    path: "/api/v1/provision/dlq/{entryId}/replay",
    summary: "Replay a dead letter as a new job of the same type and payload (operator)",
    description: "Queues a new job with the dead letter's type and payload (202) and records the replay on the entry. Operators only; an unknown entry is 404.",
    auth: "operator",
    request: { params: DeadLetterParams, body: OperatorActionRequest },
    responses: { 202: ReplayResponse, 400: null, 401: null, 403: null, 404: null },
    tags: operatorTags
  }
})
