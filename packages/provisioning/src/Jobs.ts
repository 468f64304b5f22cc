import type { Provisioning } from "@core/contracts"
import { Rows } from "@core/kernel"

/** Attempts a job gets when its type and the enqueuer name none. */
export const DEFAULT_MAX_ATTEMPTS = 5

/** A recorded step of a job. */
export type JobStep = Provisioning.JobStep

/** A row of `provisioning.jobs`. */
export interface JobRow {
  readonly id: string
  readonly type: string
  readonly platformId: string | null
  readonly organizationId: string | null
  readonly payload: Record<string, unknown>
  readonly status: Provisioning.JobStatus
  readonly attempts: number
  readonly maxAttempts: number
  readonly runAt: Date
  readonly leaseUntil: Date | null
  readonly lockedBy: string | null
  readonly progress: number
  readonly steps: ReadonlyArray<JobStep>
  readonly result: Record<string, unknown> | null
  readonly error: string | null
  readonly startedAt: Date | null
  readonly finishedAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** What a new job is: its type, the platform it works for, and its input. */
export interface NewJob {
  readonly type: string
  readonly platformId: string | null
  /** The organization owning the platform: its members may read the job. `null`: operators only. */
  readonly organizationId?: string | null
  readonly payload: Record<string, unknown>
  /** @default DEFAULT_MAX_ATTEMPTS */
  readonly maxAttempts?: number
  /**
   * What the job works on (`Targets`): jobs of one target run one at a time in the order they
   * were enqueued (decision 0286). @default null (no ordering)
   */
  readonly target?: string | null
}

/** What enqueueing answers (seed 001's job-creating routes). */
export interface Enqueued {
  readonly jobId: string
  readonly status: "QUEUED"
}

const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

/** A job row from its selected columns (`COLUMNS`). */
export const toRow = (raw: Record<string, unknown>): JobRow => ({
  id: raw.id as string,
  type: raw.type as string,
  platformId: Rows.textOrNull(raw.platformId),
  organizationId: Rows.textOrNull(raw.organizationId),
  payload: (json(raw.payload) ?? {}) as Record<string, unknown>,
  status: raw.status as Provisioning.JobStatus,
  attempts: Number(raw.attempts),
  maxAttempts: Number(raw.maxAttempts),
  runAt: Rows.toDate(raw.runAt),
  leaseUntil: Rows.toDateOrNull(raw.leaseUntil),
  lockedBy: Rows.textOrNull(raw.lockedBy),
  progress: Number(raw.progress),
  steps: (json(raw.steps) ?? []) as ReadonlyArray<JobStep>,
  result: (json(raw.result) ?? null) as Record<string, unknown> | null,
  error: Rows.textOrNull(raw.error),
  startedAt: Rows.toDateOrNull(raw.startedAt),
  finishedAt: Rows.toDateOrNull(raw.finishedAt),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt)
})

/** The columns of a job row, named as `toRow` reads them. */
export const COLUMNS = `id, type, platform_id AS "platformId", organization_id AS "organizationId", payload, status, attempts,
  max_attempts AS "maxAttempts", run_at AS "runAt", lease_until AS "leaseUntil", locked_by AS "lockedBy", progress, steps,
  result, error, started_at AS "startedAt", finished_at AS "finishedAt", created_at AS "createdAt", updated_at AS "updatedAt"`

/** A job as `GET /api/v1/provision/jobs/{jobId}` answers it. */
export const toJobRecord = (row: JobRow): Provisioning.JobRecord => ({
  jobId: row.id,
  type: row.type,
  platformId: row.platformId,
  status: row.status,
  attempts: row.attempts,
  maxAttempts: row.maxAttempts,
  progress: row.progress,
  steps: [...row.steps],
  payload: row.payload,
  result: row.result,
  error: row.error,
  runAt: row.runAt.toISOString(),
  startedAt: row.startedAt?.toISOString() ?? null,
  finishedAt: row.finishedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString()
})

/** The workers' channel, enqueue and find: SQL, so the jobs repository's. */
export { CHANNEL, enqueue, find } from "./JobsRepo.js"
