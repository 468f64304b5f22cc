import { Database, Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Jobs } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { makeWorkerUtils } from "graphile-worker"
import type { Figures } from "./Figures.js"
import { cpuMs, localPorts } from "./ProcessCpu.js"

/**
 * No-op jobs enqueued, claimed and completed per second by 4 worker processes (concurrency 1
 * each) on the local PostgreSQL (`CORE_TEST_DATABASE_URL`), for `core-server worker` (the
 * test-only `test.noop` type, `CORE_TEST_JOB_TYPES=1`) and for graphile-worker 0.16 (a no-op task,
 * no batching), on one scratch database, one after the other. The bench enqueues `BENCH_JOBS`
 * (5,000) jobs one statement each from 8 concurrent callers (`Jobs.enqueue`, graphile's `addJob`)
 * while the workers run, and times from the first enqueue to the last completion; latency is from
 * the enqueuer's clock before the insert to the job's start (ours: `created_at` to `started_at`;
 * graphile's: the task's first line). Each queue runs twice, A-B-B-A, and the figures are the
 * means. Target: ours ≥ 1.0× graphile-worker.
 */
const JOBS = Number(process.env.BENCH_JOBS ?? 5_000)
const WORKERS = 4
const ENQUEUERS = 8
const here = fileURLToPath(new URL(".", import.meta.url))
const root = fileURLToPath(new URL("..", import.meta.url))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

interface Child {
  readonly child: ChildProcess
  readonly stdout: Array<string>
  readonly exited: Promise<void>
}

const launch = (command: ReadonlyArray<string>, env: Record<string, string>, readyWhen: (text: string) => boolean): Promise<Child> =>
  new Promise((resolve, reject) => {
    // BENCH_CPU_PROF=<dir>: each worker process writes its CPU profile there when it stops.
    const profile = process.env.BENCH_CPU_PROF === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    const child = spawn(process.execPath, [...profile, ...command], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "development", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const stdout: Array<string> = []
    let text = ""
    let ready = false
    let stderr = ""
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk
      const lines = text.split("\n")
      text = lines.pop() ?? ""
      stdout.push(...lines)
      if (!ready && lines.some(readyWhen)) {
        ready = true
        resolve({ child, stdout, exited })
      }
    })
    const exited = new Promise<void>((done) => child.on("close", () => done()))
    void exited.then(() => ready || reject(new Error(`${command.join(" ")} exited before ready\n${stderr}`)))
  })

const stopAll = async (children: ReadonlyArray<Child>) => {
  for (const { child } of children) child.kill("SIGTERM")
  await Promise.all(children.map((c) => c.exited))
}

/** Run `count` calls of `enqueue` from `ENQUEUERS` loops. */
const enqueueAll = async (count: number, enqueue: (i: number) => Promise<unknown>) => {
  let next = 0
  await Promise.all(Array.from({ length: ENQUEUERS }, async () => {
    while (next < count) await enqueue(next++)
  }))
}

interface Result {
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  /** CPU milliseconds per job: the enqueuing process, a worker process (mean), their backends. */
  readonly cpu: Cpu
}

interface Cpu {
  readonly enqueuer: number
  readonly worker: number
  readonly enqueuerBackends: number
  readonly workerBackends: number
}

/**
 * CPU time spent from `start()` to `stop()`, per job, by the enqueuing process (this one), each
 * worker process and the PostgreSQL backends serving them (told apart by their client ports; the
 * bench's own probe connections, `application_name` `bench-probe`, are left out).
 */
const meter = async (db: pg.Pool, workerPids: ReadonlyArray<number>) => {
  const backends = async () =>
    (await db.query<{ pid: number; port: number }>(
      `SELECT pid, client_port AS port FROM pg_stat_activity
        WHERE datname = current_database() AND application_name <> 'bench-probe' AND client_port IS NOT NULL`
    )).rows
  const self0 = process.cpuUsage()
  const workers0 = workerPids.map(cpuMs)
  const backends0 = new Map((await backends()).map((b) => [b.pid, cpuMs(b.pid)]))
  return async (jobs: number): Promise<Cpu> => {
    const self = process.cpuUsage(self0)
    const workers = workerPids.map((pid, i) => cpuMs(pid) - workers0[i])
    const mine = localPorts(process.pid)
    const theirs = new Set(workerPids.flatMap((pid) => [...localPorts(pid)]))
    let enqueuerBackends = 0
    let workerBackends = 0
    for (const b of await backends()) {
      const spent = cpuMs(b.pid) - (backends0.get(b.pid) ?? 0)
      if (mine.has(b.port)) enqueuerBackends += spent
      else if (theirs.has(b.port)) workerBackends += spent
    }
    return {
      enqueuer: (self.user + self.system) / 1_000 / jobs,
      worker: workers.reduce((a, b) => a + b, 0) / workers.length / jobs,
      enqueuerBackends: enqueuerBackends / jobs,
      workerBackends: workerBackends / jobs
    }
  }
}

const ours = async (url: string, db: pg.Pool): Promise<Result> => {
  const bin = fileURLToPath(new URL("../packages/server/bin/core-server.mjs", import.meta.url))
  const env = { DATABASE_URL: url, CORE_SECRET: "bench-secret-0123456789abcdef-0123456789", CORE_TEST_JOB_TYPES: "1", LOG_LEVEL: "warn" }
  // The first migrates (and builds the bundle); the other three start together. LOG_LEVEL=warn: no
  // `worker started` line, so readiness is a probe job each.
  const started = (text: string) => text.includes("worker started")
  // A second run starts from an empty table (its probe must be the only completed job).
  if (await db.query(`SELECT to_regclass('provisioning.jobs') AS t`).then((r) => r.rows[0].t !== null)) await db.query(`DELETE FROM provisioning.jobs`)
  const first = await launch([bin, "worker", "--concurrency", "1"], { ...env, LOG_LEVEL: "info" }, started)
  const others = await Promise.all(Array.from({ length: WORKERS - 1 }, () => launch([bin, "worker", "--concurrency", "1"], { ...env, LOG_LEVEL: "info" }, started)))
  const workers = [first, ...others]
  const runtime = ManagedRuntime.make(Layer.merge(Database.layer({ url }), Ids.layer))
  try {
    const enqueue = () =>
      runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => Jobs.enqueue(sql, { type: "test.noop", platformId: null, payload: {} })))
    await enqueue()
    while (Number((await db.query(`SELECT count(*) AS n FROM provisioning.jobs WHERE status = 'COMPLETED'`)).rows[0].n) < 1) await sleep(20)
    await db.query(`DELETE FROM provisioning.jobs`)
    const cpu = await meter(db, workers.map((w) => w.child.pid!))
    const t0 = performance.now()
    await enqueueAll(JOBS, () => enqueue())
    while (Number((await db.query(`SELECT count(*) AS n FROM provisioning.jobs WHERE status = 'COMPLETED'`)).rows[0].n) < JOBS) await sleep(20)
    const seconds = (performance.now() - t0) / 1_000
    const spent = await cpu(JOBS)
    const latencies = (await db.query<{ ms: number }>(
      `SELECT extract(epoch FROM started_at - created_at) * 1000 AS ms FROM provisioning.jobs`
    )).rows.map((row) => Number(row.ms))
    return { perSecond: JOBS / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpu: spent }
  } finally {
    await runtime.dispose()
    await stopAll(workers)
  }
}

const graphile = async (url: string, db: pg.Pool): Promise<Result> => {
  const pool = new pg.Pool({ connectionString: url, max: ENQUEUERS })
  pool.on("error", () => {})
  const utils = await makeWorkerUtils({ pgPool: pool })
  await utils.migrate()
  const script = `${here}provisioning-graphile-worker.ts`
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, () => launch(["--import", "tsx", script], { DATABASE_URL: url }, (text) => text === "ready"))
  )
  try {
    const latencyLines = () => workers.reduce((n, w) => n + w.stdout.filter((line) => /^\d+$/.test(line)).length, 0)
    await utils.addJob("noop", { t: Date.now() })
    while (latencyLines() < 1) await sleep(20)
    for (const w of workers) w.stdout.length = 0
    const cpu = await meter(db, workers.map((w) => w.child.pid!))
    const t0 = performance.now()
    await enqueueAll(JOBS, () => utils.addJob("noop", { t: Date.now() }))
    const pending = async () => Number((await db.query(`SELECT count(*) AS n FROM graphile_worker._private_jobs`)).rows[0].n)
    while (latencyLines() < JOBS || (await pending()) > 0) await sleep(20)
    const seconds = (performance.now() - t0) / 1_000
    const spent = await cpu(JOBS)
    const latencies = workers.flatMap((w) => w.stdout.filter((line) => /^\d+$/.test(line)).map(Number))
    return { perSecond: JOBS / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpu: spent }
  } finally {
    await stopAll(workers)
    await utils.release()
    await pool.end()
  }
}

export const run = async (): Promise<Figures> => {
  const admin = TestDatabase.url
  if (admin === undefined) {
    return { title: "Provisioning queue vs graphile-worker", columns: ["skipped"], rows: [["set CORE_TEST_DATABASE_URL"]], checks: [] }
  }
  const scope = Effect.runSync(Scope.make())
  try {
    const url = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(admin), scope))
    const db = new pg.Pool({ connectionString: url, max: 2, application_name: "bench-probe" })
    db.on("error", () => {})
    try {
      // A-B-B-A: each queue runs twice, in mirrored order, so that a machine busier at the start or
      // at the end weighs on both alike; the figures are the mean of the two runs.
      const report = (name: string) => (r: Result) => {
        process.stderr.write(`${name}: ${Math.round(r.perSecond)} jobs/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, CPU ms/job ${JSON.stringify(r.cpu, (_, v) => typeof v === "number" ? Number(v.toFixed(3)) : v)}, load ${loadavg()[0].toFixed(2)}\n`)
        return r
      }
      const core1 = await ours(url, db).then(report("core 1"))
      const other1 = await graphile(url, db).then(report("graphile 1"))
      const other2 = await graphile(url, db).then(report("graphile 2"))
      const core2 = await ours(url, db).then(report("core 2"))
      const mean = (a: Result, b: Result): Result => ({
        perSecond: (a.perSecond + b.perSecond) / 2,
        p50: (a.p50 + b.p50) / 2,
        p99: (a.p99 + b.p99) / 2,
        cpu: {
          enqueuer: (a.cpu.enqueuer + b.cpu.enqueuer) / 2,
          worker: (a.cpu.worker + b.cpu.worker) / 2,
          enqueuerBackends: (a.cpu.enqueuerBackends + b.cpu.enqueuerBackends) / 2,
          workerBackends: (a.cpu.workerBackends + b.cpu.workerBackends) / 2
        }
      })
      const core = mean(core1, core2)
      const other = mean(other1, other2)
      const ratio = core.perSecond / other.perSecond
      const ms = (n: number) => n.toFixed(2)
      const row = (name: string, r: Result) => [
        name,
        Math.round(r.perSecond),
        r.p50.toFixed(1),
        r.p99.toFixed(1),
        ms(r.cpu.enqueuer),
        ms(r.cpu.worker),
        ms(r.cpu.enqueuerBackends),
        ms(r.cpu.workerBackends)
      ]
      return {
        title: `${JOBS} no-op jobs enqueued, claimed and completed by ${WORKERS} worker processes (concurrency 1 each), ${ENQUEUERS} enqueuers, local PostgreSQL; mean of two runs each, A-B-B-A; CPU ms per job (a worker: one process's mean; backends: all of that kind together); load average ${loadavg().map((n) => n.toFixed(2)).join(" ")}`,
        columns: ["queue", "jobs/s", "enqueue→start p50 ms", "p99 ms", "CPU enqueuer", "CPU a worker", "CPU enqueue backends", "CPU worker backends"],
        rows: [
          row("core-server worker", core),
          row("graphile-worker 0.16.6", other),
          row("  core run 1", core1),
          row("  graphile run 1", other1),
          row("  graphile run 2", other2),
          row("  core run 2", core2)
        ],
        checks: [`core-server worker at ${ratio.toFixed(2)}x graphile-worker's throughput (target >= 1.0): ${ratio >= 1 ? "met" : "NOT met"}`]
      }
    } finally {
      await db.end()
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
