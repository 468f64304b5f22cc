import type { SqlClient } from "@effect/sql"

/**
 * The SQL of the test job types (decision 0305): one row per run of a step in
 * `public.core_test_job_runs`, a table the reliability tests create.
 */
export const makeTestJobRunsRepo = (sql: SqlClient.SqlClient) => ({
  record: (jobId: string, step: string, pid: number) =>
    sql`INSERT INTO public.core_test_job_runs (job_id, step, pid) VALUES (${jobId}, ${step}, ${pid})`
})
