import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The worker's two hot statements as PL/pgSQL functions (decision 0336), whose plans PostgreSQL
 * keeps for the session: sent as text each time, the claim was planned again on every call, and
 * planning cost ten times what running it does (0.3–0.5 ms of the backend's CPU against 0.045 ms).
 *
 * - `claim_job(worker, lease_end, at)`: the claim of decision 0308 — a lapsed lease first
 *   (`jobs_leased_idx`), else the earliest due queued job whose target holds no earlier unfinished
 *   job (`jobs_queued_idx`, decision 0286), `FOR UPDATE SKIP LOCKED` — and, when it takes a job,
 *   `synchronous_commit` off for its transaction (decision 0332).
 * - `complete_and_claim_job(done, result, worker, lease_end, at)`: completes `done` (guarded by
 *   `locked_by`) and then claims (decision 0330). The claim runs after the completion, as a
 *   statement of its own, and sees it: a job waiting for `done`'s target may be the one it takes.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE FUNCTION provisioning.claim_job(p_worker text, p_lease_end timestamptz, p_at timestamptz)
    RETURNS SETOF provisioning.jobs LANGUAGE plpgsql AS $fn$
    DECLARE
      taken provisioning.jobs;
    BEGIN
      UPDATE provisioning.jobs SET status = 'RUNNING', attempts = attempts + 1, lease_until = p_lease_end,
          locked_by = p_worker, started_at = COALESCE(started_at, p_at), updated_at = p_at
        WHERE id = COALESCE(
          (SELECT l.id FROM provisioning.jobs l WHERE l.status = 'RUNNING' AND l.lease_until < p_at
            ORDER BY l.lease_until LIMIT 1 FOR UPDATE SKIP LOCKED),
          (SELECT j.id FROM provisioning.jobs j
            WHERE j.status = 'QUEUED' AND j.run_at <= p_at
              AND (j.target IS NULL OR NOT EXISTS (
                SELECT 1 FROM provisioning.jobs e
                WHERE e.target = j.target AND e.status IN ('QUEUED', 'RUNNING') AND (e.created_at, e.id) < (j.created_at, j.id)))
            ORDER BY j.run_at LIMIT 1 FOR UPDATE SKIP LOCKED))
        RETURNING * INTO taken;
      IF FOUND THEN
        PERFORM set_config('synchronous_commit', 'off', true);
        RETURN NEXT taken;
      END IF;
      RETURN;
    END
  $fn$`)
  yield* sql.unsafe(`CREATE FUNCTION provisioning.complete_and_claim_job(p_done text, p_result jsonb, p_worker text,
      p_lease_end timestamptz, p_at timestamptz)
    RETURNS SETOF provisioning.jobs LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE provisioning.jobs SET status = 'COMPLETED', result = p_result, progress = 1, error = NULL, lease_until = NULL,
          finished_at = p_at, updated_at = p_at
        WHERE id = p_done AND locked_by = p_worker AND status = 'RUNNING';
      RETURN QUERY SELECT * FROM provisioning.claim_job(p_worker, p_lease_end, p_at);
    END
  $fn$`)
})
