import type { Provisioning } from "@core/contracts"
import { type Caller, Cursor, Policy } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { jobNotFound } from "./Errors.js"
import { toJobRecord } from "./Jobs.js"
import { find, makeJobsRepo } from "./JobsRepo.js"
import { canReadJob } from "./Policy.js"

/** The job list's filters and page, as the contract decodes them. */
export interface JobListInput {
  readonly platformId?: string | undefined
  readonly status?: Provisioning.JobStatus | undefined
  readonly cursor?: string | undefined
  readonly limit: number
}

/** The queue's use cases for callers: read a job, list jobs (operator controls: `JobControls`). */
export class JobQueue extends Effect.Service<JobQueue>()("@core/provisioning/JobQueue", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = makeJobsRepo(sql)
    const get = Effect.fn("JobQueue.get")(function*(caller: Caller, jobId: string) {
      const job = yield* find(sql, jobId)
      if (Option.isNone(job)) return yield* jobNotFound
      yield* canReadJob(caller, job.value)
      return job.value
    })

    /**
     * Jobs newest first (decision 0281): operators and the service key see every job; anyone else
     * the jobs of the organization it acts in (`platforms:read` there), so another tenant's
     * `platformId` lists nothing. A caller outside any organization lists nothing.
     */
    const list = Effect.fn("JobQueue.list")(function*(caller: Caller, input: JobListInput) {
      const after = yield* Cursor.decodeOptional(Cursor.CreatedAtId, input.cursor)
      const privileged = yield* Policy.isPrivileged(caller)
      const organizationId = privileged ? undefined : caller.kind === "service" ? null : caller.organizationId
      const page = (data: ReadonlyArray<Provisioning.JobRecord>, nextCursor: string) => ({
        data: [...data],
        pagination: { limit: input.limit, cursor: input.cursor ?? "", nextCursor, count: data.length }
      })
      if (organizationId === null) return page([], "")
      if (organizationId !== undefined) yield* Policy.requirePermission(caller, organizationId, "platforms:read")
      const rows = yield* repo.list({ organizationId, platformId: input.platformId, status: input.status, before: after, limit: input.limit })
      const cut = Cursor.page(rows, input.limit, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }))
      return page(cut.data.map(toJobRecord), cut.nextCursor ?? "")
    })
    return { get, list } as const
  })
}) {}
