/**
 * The job queue's reliability, on PostgreSQL only (`CORE_TEST_DATABASE_URL`): real
 * `core-server worker` processes on a scratch database, running the TEST-ONLY job types that
 * `CORE_TEST_JOB_TYPES=1` registers (`packages/provisioning/src/TestJobs.ts`), whose side effect —
 * one row per run in `public.core_test_job_runs` — counts how often each job ran. The tests run in
 * order and share the workers: 10,000 jobs over 4 processes; a worker SIGKILLed mid-job; the
 * workers' connections terminated under load; an always-failing job; SIGTERM draining.
 */
import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, logLines, type Running } from "../packages/server/test/ServerProcess.js"
import { eventuallyDefined } from "./support/poll.js"

/**
 * The workers' lease. 5 s, not less: while connections are being terminated, a heartbeat waits for
 * the pool to reconnect, and on CI's loaded 2-core machine (two test files at once) a 2 s lease ran
 * out under a live handler once in 3,000 jobs, which ran that job twice (at-least-once, decision 0336).
 */
const LEASE_MS = 5_000
const GRACE_MS = 3_000
const SECRET = "reliability-test-secret-0123456789abcdef"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const until = <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs: number): Promise<A> =>
  eventuallyDefined(probe, { message: what, timeout: timeoutMs, interval: 100 })

describe.skipIf(TestDatabase.url === undefined)("provisioning reliability (PostgreSQL, core-server worker processes)", () => {
  const scope = Effect.runSync(Scope.make())
  let databaseUrl = ""
  let db: pg.Pool
  const workers: Array<Running> = []

  const startWorker = async (env: Record<string, string> = {}, args: ReadonlyArray<string> = ["--concurrency", "4"]) => {
    const running = launch(["worker", ...args], {
      DATABASE_URL: databaseUrl,
      CORE_SECRET: SECRET,
      CORE_TEST_JOB_TYPES: "1",
      CORE_JOB_LEASE_MS: String(LEASE_MS),
      CORE_WORKER_POLL_MS: "200",
      CORE_JOB_BACKOFF_MS: "100",
      CORE_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      LOG_LEVEL: "info",
      ...env
    })
    let exited = false
    void running.exited.then(() => (exited = true))
    await until("worker started", async () => {
      if (exited) throw new Error(`the worker exited\nstdout:\n${running.output.stdout}\nstderr:\n${running.output.stderr}`)
      return logLines(running.output.stdout).some((line) => line.message === "worker started") ? true : undefined
    }, 90_000)
    workers.push(running)
    return running
  }

  const alive = () => workers.filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)

  const query = async <R extends pg.QueryResultRow>(text: string, values: ReadonlyArray<unknown> = []) =>
    (await db.query<R>(text, [...values])).rows

  /** Enqueue `count` jobs of `type` as `Jobs.enqueue` writes them (one statement), then wake the workers. */
  const enqueue = async (prefix: string, count: number, type: string, payload: Record<string, unknown>, maxAttempts = 5) => {
    await db.query(
      `INSERT INTO provisioning.jobs (id, type, platform_id, payload, status, max_attempts, run_at, created_at, updated_at)
       SELECT $1 || lpad(n::text, 6, '0'), $2, NULL, $3::jsonb, 'QUEUED', $4, now(), now(), now()
       FROM generate_series(1, $5::int) AS n`,
      [`job_${prefix}_`, type, JSON.stringify(payload), maxAttempts, count]
    )
    await db.query(`SELECT pg_notify('core_provisioning_jobs', $1)`, [prefix])
    return Array.from({ length: count }, (_, i) => `job_${prefix}_${String(i + 1).padStart(6, "0")}`)
  }

  const statusCounts = async (prefix: string) =>
    Object.fromEntries(
      (await query<{ status: string; n: string }>(
        `SELECT status, count(*) AS n FROM provisioning.jobs WHERE id LIKE $1 GROUP BY status`,
        [`job_${prefix}_%`]
      )).map((row) => [row.status, Number(row.n)])
    )

  const runsOf = async (prefix: string) =>
    query<{ job_id: string; step: string; pid: number }>(
      `SELECT job_id, step, pid FROM public.core_test_job_runs WHERE job_id LIKE $1 ORDER BY at, job_id`,
      [`job_${prefix}_%`]
    )

  beforeAll(async () => {
    databaseUrl = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope))
    db = new pg.Pool({ connectionString: databaseUrl, max: 4, application_name: "reliability-test" })
    db.on("error", () => {})
    await db.query(`CREATE TABLE public.core_test_job_runs (
      job_id text NOT NULL, step text NOT NULL, pid integer NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`)
    // The first worker migrates the database (and builds the bundle), then three more start together.
    await startWorker()
    await Promise.all([startWorker(), startWorker(), startWorker()])
  }, 180_000)

  afterAll(async () => {
    for (const worker of workers) worker.child.kill("SIGKILL")
    await Promise.all(workers.map((worker) => worker.exited))
    await db?.end()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }, 60_000)

  it("runs 10,000 jobs over 4 worker processes, each exactly once, none left behind", async () => {
    const started = Date.now()
    await enqueue("bulk", 10_000, "test.noop", { record: true })
    await until("10,000 jobs completed", async () => {
      const counts = await statusCounts("bulk")
      return counts.COMPLETED === 10_000 ? counts : undefined
    }, 150_000)
    const elapsed = Date.now() - started
    const runs = await runsOf("bulk")
    expect(runs).toHaveLength(10_000)
    expect(new Set(runs.map((run) => run.job_id)).size).toBe(10_000)
    const pids = new Set(runs.map((run) => run.pid))
    expect(pids.size).toBe(4)
    const [{ attempts, leased }] = await query<{ attempts: string; leased: string }>(
      `SELECT max(attempts) AS attempts, count(*) FILTER (WHERE lease_until IS NOT NULL OR locked_by IS NULL) AS leased
       FROM provisioning.jobs WHERE id LIKE 'job_bulk_%'`
    )
    expect(Number(attempts)).toBe(1)
    expect(Number(leased)).toBe(0)
    console.log(`10,000 jobs over 4 workers in ${elapsed} ms (${Math.round(10_000 / (elapsed / 1000))} jobs/s)`)
  }, 180_000)

  it("reclaims the job of a worker SIGKILLed mid-job after its lease; its finished step is not repeated", async () => {
    const [jobId] = await enqueue("killed", 1, "test.steps", { record: true, sleepMs: 4_000 })
    const victimPid = await until("the second step to start", async () => {
      const runs = await runsOf("killed")
      return runs.find((run) => run.step === "second-start")?.pid
    }, 20_000)
    const victim = workers.find((worker) => worker.child.pid === victimPid)
    expect(victim).toBeDefined()
    const killedAt = Date.now()
    victim!.child.kill("SIGKILL")
    await victim!.exited
    const job = await until("the job to complete on another worker", async () => {
      const [row] = await query<{ status: string; attempts: number; steps: Array<{ name: string; status: string }> }>(
        `SELECT status, attempts, steps FROM provisioning.jobs WHERE id = $1`,
        [jobId]
      )
      return row?.status === "COMPLETED" ? row : undefined
    }, 30_000)
    const reclaimedAfter = Date.now() - killedAt
    expect(job.attempts).toBe(2)
    expect(job.steps.map((step) => [step.name, step.status])).toEqual([["first", "completed"], ["second", "completed"]])
    const runs = await runsOf("killed")
    expect(runs.filter((run) => run.step === "first")).toHaveLength(1)
    expect(runs.filter((run) => run.step === "second-start")).toHaveLength(2)
    const second = runs.filter((run) => run.step === "second")
    expect(second).toHaveLength(1)
    expect(second[0].pid).not.toBe(victimPid)
    // Taken again once the lease (2 s after the last heartbeat) ended, then 4 s of work.
    expect(reclaimedAfter).toBeGreaterThanOrEqual(4_000)
    expect(reclaimedAfter).toBeLessThan(4_000 + LEASE_MS + 3_000)
    // Back to four workers for what follows.
    await startWorker()
  }, 120_000)

  it("survives pg_terminate_backend on the workers' connections under load: none lost, none doubled", async () => {
    const workerBackends = `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
        AND application_name <> 'reliability-test'`
    await enqueue("terminated", 3_000, "test.noop", { record: true })
    let terminated = 0
    for (let round = 0; round < 6; round++) {
      await sleep(150)
      const rows = await query<{ killed: boolean }>(workerBackends)
      terminated += rows.filter((row) => row.killed).length
    }
    expect(terminated).toBeGreaterThan(0)
    await until("3,000 jobs completed", async () => {
      const counts = await statusCounts("terminated")
      return counts.COMPLETED === 3_000 ? counts : undefined
    }, 90_000)
    const runs = await runsOf("terminated")
    expect(runs).toHaveLength(3_000)
    expect(new Set(runs.map((run) => run.job_id)).size).toBe(3_000)
    expect(alive()).toHaveLength(4)
    // Each worker's LISTEN connection was terminated too, and each listens again (decision 0331).
    await until("every worker listening again", async () => {
      const [row] = await query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'core-listen' AND query LIKE 'LISTEN %'`)
      return Number(row!.n) >= 4 ? row : undefined
    }, 30_000)
    console.log(`terminated ${terminated} worker connections under load`)
  }, 120_000)

  it("fails an always-failing job for good after its attempts, with its last error", async () => {
    const [jobId] = await enqueue("failing", 1, "test.fail", { record: true }, 3)
    const job = await until("the job to fail for good", async () => {
      const [row] = await query<{ status: string; attempts: number; error: string | null }>(
        `SELECT status, attempts, error FROM provisioning.jobs WHERE id = $1`,
        [jobId]
      )
      return row?.status === "FAILED" ? row : undefined
    }, 30_000)
    expect(job).toEqual({ status: "FAILED", attempts: 3, error: "test.fail always fails" })
    expect(await runsOf("failing")).toHaveLength(3)
    // The dead-letter list, once the queue keeps one.
    const [{ table }] = await query<{ table: string | null }>(`SELECT to_regclass('provisioning.dead_letters')::text AS table`)
    if (table !== null) {
      const letters = await query<{ n: string }>(`SELECT count(*) AS n FROM provisioning.dead_letters WHERE job_id = $1`, [jobId])
      expect(Number(letters[0].n)).toBe(1)
    }
  }, 60_000)

  it("drains on SIGTERM: running jobs finish within CORE_SHUTDOWN_GRACE_MS, the rest are given back", async () => {
    // Every shared worker stops first (idle: each exits at once).
    const idle = alive()
    const idleStarted = Date.now()
    const stopped = await Promise.all(idle.map((worker) => {
      worker.child.kill("SIGTERM")
      return worker.exited
    }))
    expect(stopped.map((finished) => finished.code)).toEqual(idle.map(() => 0))
    expect(Date.now() - idleStarted).toBeLessThan(GRACE_MS)

    const worker = await startWorker({}, ["--concurrency", "2"])
    const [short] = await enqueue("drain_short", 1, "test.sleep", { record: true, ms: 1_000 })
    const [long] = await enqueue("drain_long", 1, "test.sleep", { record: true, ms: 60_000 })
    await until("both jobs running", async () => {
      const rows = await query<{ n: string }>(`SELECT count(*) AS n FROM provisioning.jobs WHERE id = ANY($1) AND status = 'RUNNING'`, [[short, long]])
      return Number(rows[0].n) === 2 ? true : undefined
    }, 20_000)
    const signalled = Date.now()
    worker.child.kill("SIGTERM")
    const finished = await worker.exited
    const took = Date.now() - signalled
    expect(finished.code).toBe(0)
    expect(took).toBeLessThan(GRACE_MS + 2_000)
    expect(took).toBeGreaterThanOrEqual(GRACE_MS - 200)
    const rows = await query<{ id: string; status: string; attempts: number; locked_by: string | null }>(
      `SELECT id, status, attempts, locked_by FROM provisioning.jobs WHERE id = ANY($1) ORDER BY id`,
      [[short, long]]
    )
    expect(rows).toEqual([
      { id: long, status: "QUEUED", attempts: 0, locked_by: null },
      { id: short, status: "COMPLETED", attempts: 1, locked_by: expect.any(String) }
    ])
    expect((await runsOf("drain_short")).map((run) => run.step)).toEqual(["done"])
    expect(await runsOf("drain_long")).toEqual([])
    expect(logLines(finished.stdout).map((line) => line.message)).toContain("provisioning worker draining")
  }, 120_000)
})
