import { z } from "zod"
import { BoundedId } from "../Bounds.js"
import { JobId } from "../Ids.js"

/**
 * A provisioning job's status (docs/provisioning.md): `QUEUED → RUNNING → COMPLETED | FAILED`, back to `QUEUED` between attempts.
 */
export const JobStatus = z.enum(["QUEUED", "RUNNING", "COMPLETED", "FAILED"])
export type JobStatus = z.infer<typeof JobStatus>

/** One step of a job: its name, status, and when it started and finished (ISO 8601). */
export const JobStep = z.object({
  name: z.string(),
  status: z.enum(["running", "completed", "failed"]),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable()
})
export type JobStep = z.infer<typeof JobStep>

/**
 * A provisioning job as `GET /api/v1/provision/jobs/{jobId}` answers it. The seed leaves the
 * record open; these are the fields Core writes (decision 0250), and clients must accept more.
 */
export const JobRecord = z.looseObject({
  jobId: z.string(),
  type: z.string(),
  platformId: z.string().nullable(),
  status: JobStatus,
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  progress: z.number().min(0).max(1),
  steps: z.array(JobStep),
  payload: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  runAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string()
})
export type JobRecord = z.infer<typeof JobRecord>

/** The path of one job. */
export const JobParams = z.object({ jobId: JobId })

/** `POST /internal/platform-status`: whether a platform's edge resources serve. */
export const PlatformStatusRequest = z.object({
  platformId: BoundedId,
  status: z.enum(["suspended", "active"])
})
export type PlatformStatusRequest = z.input<typeof PlatformStatusRequest>

/** What `POST /internal/platform-status` answers (the seed shows no body: decision 0256). */
export const PlatformStatusResponse = z.object({
  platformId: z.string(),
  status: z.enum(["suspended", "active"]),
  updatedAt: z.string()
})
export type PlatformStatusResponse = z.infer<typeof PlatformStatusResponse>
