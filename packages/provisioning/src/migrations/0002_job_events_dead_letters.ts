import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A job's events and the dead-letter list (decisions 0280, 0282).
 *
 * - `job_events`: one row per status change (a new attempt included), per step change and per
 *   progress change, written by a trigger on `provisioning.jobs` in the statement that makes the
 *   change, so that no path (enqueue, the worker, operator controls, code yet to come) can change a
 *   job without its event. `seq` orders all events; `GET /jobs/{jobId}/events` streams them. An
 *   operator action names its actor and reason with `set_config('provisioning.actor' | '.reason')`
 *   in its transaction; the trigger copies them.
 * - `dead_letters` (`dlq_` ids): a copy of a job the worker failed for good (no operator set an
 *   actor), with its last error, written by the same trigger; replay records the new job.
 * - `jobs_created_idx` and `jobs_organization_idx`: the job list, newest first, for operators and
 *   for a tenant.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE provisioning.job_events (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('status', 'step', 'progress')),
    status text NOT NULL,
    from_status text,
    attempt integer NOT NULL,
    progress double precision NOT NULL,
    step jsonb,
    actor text,
    reason text,
    at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX job_events_job_idx ON provisioning.job_events (job_id, seq)`
  yield* sql`CREATE TABLE provisioning.dead_letters (
    id text PRIMARY KEY,
    job_id text NOT NULL,
    type text NOT NULL,
    platform_id text,
    organization_id text,
    payload jsonb NOT NULL,
    max_attempts integer NOT NULL,
    attempts integer NOT NULL,
    error text,
    failed_at timestamptz NOT NULL,
    replay_count integer NOT NULL DEFAULT 0,
    replayed_job_id text,
    replayed_at timestamptz
  )`
  yield* sql`CREATE INDEX dead_letters_failed_idx ON provisioning.dead_letters (failed_at, id)`
  yield* sql`CREATE INDEX jobs_created_idx ON provisioning.jobs (created_at, id)`
  yield* sql`CREATE INDEX jobs_organization_idx ON provisioning.jobs (organization_id, created_at, id)`
  // The dead letter's id: `dlq_` and a time-sortable, random 26-character tail in the `Ids` alphabet.
  yield* sql.unsafe(`CREATE FUNCTION provisioning.dead_letter_id() RETURNS text LANGUAGE plpgsql AS $fn$
    DECLARE
      alphabet constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
      millis bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
      tail text := '';
    BEGIN
      FOR i IN 1..10 LOOP
        tail := substr(alphabet, (millis % 32)::int + 1, 1) || tail;
        millis := millis / 32;
      END LOOP;
      FOR i IN 1..16 LOOP
        tail := tail || substr(alphabet, floor(random() * 32)::int + 1, 1);
      END LOOP;
      RETURN 'dlq_' || tail;
    END
  $fn$`)
  yield* sql.unsafe(`CREATE FUNCTION provisioning.record_job_event() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      actor text := nullif(current_setting('provisioning.actor', true), '');
      reason text := nullif(current_setting('provisioning.reason', true), '');
      changed jsonb;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO provisioning.job_events (job_id, kind, status, from_status, attempt, progress, actor, reason, at)
          VALUES (NEW.id, 'status', NEW.status, NULL, NEW.attempts, NEW.progress, actor, reason, NEW.updated_at);
        RETURN NULL;
      END IF;
      IF NEW.status IS DISTINCT FROM OLD.status OR NEW.attempts IS DISTINCT FROM OLD.attempts THEN
        INSERT INTO provisioning.job_events (job_id, kind, status, from_status, attempt, progress, actor, reason, at)
          VALUES (NEW.id, 'status', NEW.status, OLD.status, NEW.attempts, NEW.progress, actor,
            coalesce(reason, CASE WHEN NEW.error IS DISTINCT FROM OLD.error THEN NEW.error END), NEW.updated_at);
        IF NEW.status = 'FAILED' AND OLD.status = 'RUNNING' AND actor IS NULL THEN
          INSERT INTO provisioning.dead_letters (id, job_id, type, platform_id, organization_id, payload, max_attempts, attempts, error, failed_at)
            VALUES (provisioning.dead_letter_id(), NEW.id, NEW.type, NEW.platform_id, NEW.organization_id, NEW.payload,
              NEW.max_attempts, NEW.attempts, NEW.error, NEW.updated_at);
        END IF;
      END IF;
      IF NEW.steps IS DISTINCT FROM OLD.steps THEN
        FOR changed IN SELECT value FROM jsonb_array_elements(NEW.steps) AS s(value) WHERE NOT (OLD.steps @> jsonb_build_array(s.value)) LOOP
          INSERT INTO provisioning.job_events (job_id, kind, status, from_status, attempt, progress, step, actor, reason, at)
            VALUES (NEW.id, 'step', NEW.status, NULL, NEW.attempts, NEW.progress, changed, actor, reason, NEW.updated_at);
        END LOOP;
      ELSIF NEW.progress IS DISTINCT FROM OLD.progress AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
        INSERT INTO provisioning.job_events (job_id, kind, status, from_status, attempt, progress, actor, reason, at)
          VALUES (NEW.id, 'progress', NEW.status, NULL, NEW.attempts, NEW.progress, actor, reason, NEW.updated_at);
      END IF;
      RETURN NULL;
    END
  $fn$`)
  yield* sql`CREATE TRIGGER jobs_events AFTER INSERT OR UPDATE ON provisioning.jobs
    FOR EACH ROW EXECUTE FUNCTION provisioning.record_job_event()`
})
