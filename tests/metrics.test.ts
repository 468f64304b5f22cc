import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, logLines, migratedDataDir, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { eventually } from "./support/poll.js"
import * as Prometheus from "./support/prometheus.js"

/**
 * `/metrics` of a service's own process (`core-server serve --service registry`), as Prometheus
 * scrapes it: on the service's port with the static key only (401 otherwise), on
 * `CORE_METRICS_PORT` without credentials, read back by a Prometheus text parser, its request
 * histogram moving as the service answers; and `core-server worker`'s, on `CORE_METRICS_PORT` alone,
 * its job counters moving as it runs a job (PostgreSQL). The all-in-one server's `/metrics` is checked on the
 * shared server (tests/gateway-auth.test.ts), the job queue's and the deliveries' instruments in
 * their packages (QueueMetrics, DeliveryMetrics).
 */
const SLOW = 90_000
const STATIC_KEY = "metrics-static-key-0123456789abcdef"
const SECRET = "metrics-secret-metrics-secret-0123456789abcd"
const work = mkdtempSync(join(tmpdir(), "core-e2e-metrics-"))

let registry: Running | undefined
let base = ""
let metricsBase = ""

beforeAll(async () => {
  registry = launch(["serve", "--service", "registry", "--port", "0"], {
    CORE_DATA_DIR: await migratedDataDir(join(work, "registry")),
    CORE_SECRET: SECRET,
    CORE_STATIC_API_KEY: STATIC_KEY,
    CORE_METRICS_PORT: "0"
  })
  base = await ready(registry)
  const port = await eventually(
    () => logLines(registry!.output.stdout).find((line) => line.message === "metrics listening")?.port,
    (found) => typeof found === "number",
    { timeout: 10_000, message: () => `a "metrics listening" line in ${registry!.output.stdout}` }
  )
  metricsBase = `http://127.0.0.1:${String(port)}`
}, SLOW)

afterAll(() => {
  registry?.child.kill("SIGKILL")
  rmSync(work, { recursive: true, force: true })
})

const scrape = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
  return Prometheus.parse(await response.text())
}

describe("a service process's /metrics", () => {
  it("answers 401 on the service's port without the static key, or with another one", async () => {
    for (const headers of [{}, { authorization: "Bearer not-the-key" }, { "x-api-key": STATIC_KEY }] as Array<Record<string, string>>) {
      const refused = await fetch(`${base}/metrics`, { headers })
      expect(refused.status).toBe(401)
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED")
    }
  }, SLOW)

  it("serves the Prometheus text with the key, and on CORE_METRICS_PORT without credentials; the request histogram moves", async () => {
    const labels = { http_request_method: "GET", http_route: "/api/v1/platforms" }
    const before = Prometheus.valueOf(await scrape(`${metricsBase}/metrics`), "http_server_request_duration_seconds", labels)
    for (let i = 0; i < 3; i++) await fetch(`${base}/api/v1/platforms`, { headers: { authorization: `Bearer ${STATIC_KEY}` } })
    const parsed = await scrape(`${base}/metrics`, { authorization: `Bearer ${STATIC_KEY}` })
    expect(Prometheus.valueOf(parsed, "http_server_request_duration_seconds", labels) - before).toBe(3)
    // Route templates only: no series names a raw path or id.
    const routes = Prometheus.seriesOf(parsed, "http_server_request_duration_seconds").map((series) => series.labels.http_route)
    expect(routes.every((route) => !/plt_|[0-9A-Z]{26}/.test(route))).toBe(true)
    // The process metrics and the job queue's and deliveries' instruments are there too.
    for (const name of ["process_resident_memory_bytes", "nodejs_eventloop_lag_p99_seconds", "process_uptime_seconds"]) {
      expect(Prometheus.typeOf(parsed, name), name).toBe("GAUGE")
    }
    expect(Prometheus.typeOf(parsed, "core_job_attempts_total")).toBe("COUNTER")
    expect(Prometheus.valueOf(parsed, "core_webhook_delivery_attempts_total", { outcome: "failed" })).toBe(0)
    const open = await scrape(`${metricsBase}/metrics`)
    expect(Prometheus.valueOf(open, "http_server_request_duration_seconds", labels) - before).toBe(3)
    const elsewhere = await fetch(`${metricsBase}/api/v1/platforms`)
    expect(elsewhere.status).toBe(404)
  }, SLOW)
})

describe.skipIf(TestDatabase.url === undefined)("the worker's /metrics (PostgreSQL)", () => {
  const scope = Effect.runSync(Scope.make())
  let worker: Running | undefined
  let db: pg.Pool | undefined

  afterAll(async () => {
    worker?.child.kill("SIGKILL")
    await worker?.exited
    await db?.end()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }, SLOW)

  it("serves CORE_METRICS_PORT without credentials, and counts the job it ran", async () => {
    const databaseUrl = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope))
    worker = launch(["worker", "--concurrency", "1"], { DATABASE_URL: databaseUrl, CORE_SECRET: SECRET, CORE_WORKER_POLL_MS: "100", CORE_METRICS_PORT: "0" })
    const running = worker
    const port = await eventually(
      () => logLines(running.output.stdout).find((line) => line.message === "metrics listening")?.port,
      (found) => typeof found === "number",
      { timeout: 60_000, message: () => `the worker's "metrics listening" line in ${running.output.stdout}${running.output.stderr}` }
    )
    const url = `http://127.0.0.1:${String(port)}/metrics`
    const labels = { job_type: "metrics.no_handler", outcome: "dead_lettered" }
    expect(Prometheus.valueOf(await scrape(url), "core_job_attempts_total", labels)).toBe(0)
    db = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    // A job of a type no handler takes: its one attempt fails for good.
    await db.query(`INSERT INTO provisioning.jobs (id, type, platform_id, organization_id, payload, status, max_attempts, run_at, created_at, updated_at)
      VALUES ('job_01JQ0000000000000000000M01', 'metrics.no_handler', NULL, NULL, '{}'::jsonb, 'QUEUED', 1, now(), now(), now())`)
    const after = await eventually(() => scrape(url), (parsed) => Prometheus.valueOf(parsed, "core_job_attempts_total", labels) === 1, {
      timeout: 30_000,
      message: "the worker's dead-lettered attempt in its metrics"
    })
    expect(Prometheus.valueOf(after, "core_job_dead_letters_total", { job_type: "metrics.no_handler" })).toBe(1)
    expect(Prometheus.valueOf(after, "core_job_queue_wait_seconds", { job_type: "metrics.no_handler" })).toBe(1)
    expect(Prometheus.typeOf(after, "core_job_queue_depth")).toBe("GAUGE")
    expect(Prometheus.typeOf(after, "nodejs_eventloop_lag_p99_seconds")).toBe("GAUGE")
  }, SLOW)
})
