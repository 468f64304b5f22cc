import type { Caller } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { jobNotFound } from "./Errors.js"
import { find } from "./Jobs.js"
import { canReadJob } from "./Policy.js"

/** The queue's use cases for callers: read a job (issue 13 adds the list and the operator controls). */
export class JobQueue extends Effect.Service<JobQueue>()("@core/provisioning/JobQueue", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const get = Effect.fn("JobQueue.get")(function*(caller: Caller, jobId: string) {
      const job = yield* find(sql, jobId)
      if (Option.isNone(job)) return yield* jobNotFound
      yield* canReadJob(caller, job.value)
      return job.value
    })
    return { get } as const
  })
}) {}
