import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Per-target ordering and idempotency keys (decisions 0286, 0287).
 *
 * - `jobs.target` names what a job works on (a platform's feature in an environment, a stack
 *   instance, an app, a domain, …); the claim skips a job while an earlier job of its target is
 *   unfinished. `jobs_target_idx` holds only the unfinished jobs that have a target, in creation
 *   order, so that test is one short index probe.
 * - `idempotency_keys`: a job-creating call's `Idempotency-Key`, per caller (`scope`), with the
 *   hash of its route and body and the answer it got; a key lives 24 hours.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE provisioning.jobs ADD COLUMN target text`
  yield* sql`CREATE INDEX jobs_target_idx ON provisioning.jobs (target, created_at, id)
    WHERE target IS NOT NULL AND status IN ('QUEUED', 'RUNNING')`
  yield* sql`CREATE TABLE provisioning.idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    job_id text NOT NULL,
    response jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
  )`
})
