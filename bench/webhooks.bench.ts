import { Endpoints, EventsConfig, EventsMigrations, EventsServices, RelayLive, Signing, WebhookJobsLive } from "@core/events"
import { Callers, CoreConfig, EventOutbox, Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { ProvisioningMigrations, Worker } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg } from "node:os"
import { Agent, fetch } from "undici"
import type { Figures } from "./Figures.js"

/**
 * Webhook fan-out: `BENCH_EVENTS` (10,000) events, each recorded in its own transaction by 8
 * callers (`EventOutbox.record`, as a domain does), fanned out by the relay to `BENCH_ENDPOINTS`
 * (10) endpoints on a local receiver (127.0.0.1, answers 204) and delivered by the provisioning
 * worker (`BENCH_WEBHOOK_CONCURRENCY`, 16, jobs at once) in this process — against a bare loop of
 * as many signed `fetch` posts (Standard Webhooks headers, undici keep-alive, the same
 * concurrency) to the same receiver. Prints deliveries/s and the time from each event's commit to
 * its delivery's arrival (p50/p99). On the local PostgreSQL with `CORE_TEST_DATABASE_URL` (a
 * scratch database, as the other benches), else PGlite in memory. Bounded by `BENCH_TIMEOUT_S`
 * (600). Targets: ≥ 0.5× the bare loop; p50 ≤ 100 ms on PostgreSQL.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10)
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 16)
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 600) * 1_000
const RECORDERS = 8
const ORG = "org_bench"

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** The receiver: counts what arrives, and when, by the event's `data.id` (`mem_<n>`). */
const receiver = async () => {
  let arrivals: Array<{ readonly n: number; readonly at: number }> = []
  let waiting: { readonly count: number; readonly done: () => void } | undefined
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const at = performance.now()
      const id = /"id":"mem_(\d+)"/.exec(Buffer.concat(chunks).toString("utf8"))?.[1]
      arrivals.push({ n: id === undefined ? -1 : Number(id), at })
      response.writeHead(204).end()
      if (waiting !== undefined && arrivals.length >= waiting.count) waiting.done()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    /** Forget what arrived so far. */
    reset: () => {
      arrivals = []
    },
    arrivals: () => arrivals,
    /** Resolves once `count` posts arrived, or `deadline` passed (answers whether they did). */
    until: (count: number, deadline: number) =>
      new Promise<boolean>((resolve) => {
        if (arrivals.length >= count) return resolve(true)
        const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))
        waiting = { count, done: () => (clearTimeout(timer), (waiting = undefined), resolve(true)) }
      }),
    close: () => new Promise((resolve) => server.close(resolve))
  }
}

/** Every permission in the bench's organization (the endpoints' creation checks it). */
const BenchCallers = Layer.succeed(Callers, {
  resolve: () => Effect.succeed(undefined),
  isOperator: () => Effect.succeed(false),
  permissionsOf: (_userId: string, organizationId: string) => Effect.succeed(organizationId === ORG ? ["*"] : undefined)
})
const caller = { kind: "user", userId: "usr_bench", sessionId: "ses_bench", email: "bench@example.com", organizationId: ORG, via: "bearer", role: null, permissions: ["*"] } as const

const layer = EventsServices.pipe(
  Layer.provideMerge(Layer.mergeAll(Ids.layer, BenchCallers, EventsConfig.layer({ allowHttp: true, allowPrivate: true, retryScheduleMs: [0, 1_000, 5_000] }))),
  Layer.provideMerge(CoreConfig.layer({ CORE_SECRET: "bench-webhooks-secret-0123456789abcdef", NODE_ENV: "test" })),
  Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations, EventsMigrations]))
)
/** The relay and the worker running, as `core-server start` runs them. */
const running = Layer.mergeAll(RelayLive, Worker.layer({ concurrency: CONCURRENCY })).pipe(Layer.provide(WebhookJobsLive), Layer.provideMerge(layer))

/** Run `count` calls of `work` from `loops` loops at once. */
const loops = async (count: number, parallel: number, work: (i: number) => Promise<unknown>) => {
  let next = 0
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await work(next++)
  }))
}

export const run = async (): Promise<Figures> => {
  const target = await receiver()
  const runtime = ManagedRuntime.make(running.pipe(Layer.orDie))
  const deliveries = EVENTS * ENDPOINTS
  try {
    await runtime.runPromise(Effect.flatMap(Endpoints, (endpoints) =>
      Effect.forEach(Array.from({ length: ENDPOINTS }), () => endpoints.create(caller, { url: target.url, events: ["member.removed"] }))).pipe(Effect.orDie))
    const committedAt = new Array<number>(EVENTS + 1)
    const record = async (n: number) => {
      await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(EventOutbox.record({ type: "member.removed", organizationId: ORG, data: { id: `mem_${n}`, organizationId: ORG, userId: "usr_bench", role: "member" } }))).pipe(Effect.orDie))
      committedAt[n] = performance.now()
    }
    // Warm-up: one event to every endpoint (connections, statements, the worker's first claims).
    await record(EVENTS)
    if (!(await target.until(ENDPOINTS, Date.now() + 60_000))) throw new Error("webhooks bench: the warm-up event was not delivered in 60 s")
    target.reset()

    const deadline = Date.now() + TIMEOUT_MS
    const t0 = performance.now()
    const recording = loops(EVENTS, RECORDERS, record)
    const complete = await target.until(deliveries, deadline)
    await recording
    const arrivals = target.arrivals()
    const seconds = (Math.max(...arrivals.map((a) => a.at)) - t0) / 1_000
    const core = arrivals.length / seconds
    const latencies = arrivals.filter((a) => a.n >= 0 && committedAt[a.n] !== undefined).map((a) => a.at - committedAt[a.n]!)
    const p50 = percentile(latencies, 50)
    const p99 = percentile(latencies, 99)

    // The reference: as many signed posts of an event's size to the same receiver, at the same concurrency.
    target.reset()
    const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 60_000 })
    const secret = Signing.newSecret()
    const b0 = performance.now()
    await loops(deliveries, CONCURRENCY, async (n) => {
      const body = JSON.stringify({ id: `evt_${String(n).padStart(26, "0")}`, type: "member.removed", version: 1, createdAt: new Date().toISOString(), platformId: null, organizationId: ORG, data: { id: `mem_${n}`, organizationId: ORG, userId: "usr_bench", role: "member" } })
      const headers = await Signing.headersFor([secret], `evt_${n}`, Math.floor(Date.now() / 1000), body)
      const response = await fetch(target.url, { method: "POST", body, headers: { ...headers, "content-type": "application/json" }, dispatcher: agent })
      await response.arrayBuffer()
    })
    const bare = deliveries / ((performance.now() - b0) / 1_000)
    await agent.close()

    const ratio = core / bare
    const onPg = TestDatabase.driver === "pg"
    return {
      title: `${EVENTS} events to ${ENDPOINTS} endpoints (${deliveries} deliveries) on a local receiver, worker concurrency ${CONCURRENCY}, ${onPg ? "PostgreSQL" : "PGlite"}; load average ${loadavg().map((n) => n.toFixed(2)).join(" ")}`,
      columns: ["path", "deliveries/s", "commit→delivery p50 ms", "p99 ms"],
      rows: [
        [`outbox → relay → webhook.deliver jobs${complete ? "" : ` (only ${arrivals.length} arrived in ${TIMEOUT_MS / 1000} s)`}`, Math.round(core), p50.toFixed(1), p99.toFixed(1)],
        ["bare loop of signed fetch posts", Math.round(bare), "", ""]
      ],
      checks: [
        `${ratio.toFixed(2)}x the bare loop's deliveries/s (target >= 0.5): ${ratio >= 0.5 && complete ? "met" : "NOT met"}`,
        `commit→delivery p50 ${p50.toFixed(1)} ms (target <= 100 ms on PostgreSQL): ${onPg ? (p50 <= 100 ? "met" : "NOT met") : "PGlite, set CORE_TEST_DATABASE_URL for the target's run"}`
      ]
    }
  } finally {
    await runtime.dispose()
    await target.close()
  }
}
