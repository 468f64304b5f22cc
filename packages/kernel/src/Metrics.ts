/**
 * The process's metrics (docs/observability.md): instruments named and measured as OpenTelemetry's
 * conventions have them, kept by prom-client and read as Prometheus text at `/metrics`. Labels are
 * bounded (route templates, job types, outcomes: never ids). Recording is a cached child's
 * `inc`/`observe`: no allocation once a label combination has been seen.
 */
import { Context } from "effect"
import * as Prom from "prom-client"

/** The registry of this process: what `core-server`'s `/metrics` and `CORE_METRICS_PORT` serve. */
export const registry: Prom.Registry = new Prom.Registry()

/** The media type of the text exposition format 0.0.4. */
export const CONTENT_TYPE: string = Prom.Registry.PROMETHEUS_CONTENT_TYPE

/** Where the metrics are served. */
export const PATH = "/metrics"

/** The exposition text of `on` (the process's registry by default). */
export const render = (on: Prom.Registry = registry): Promise<string> => on.metrics()

const withDefaults = new WeakSet<Prom.Registry>()

/**
 * prom-client's process metrics on `on` (once per registry): CPU, resident memory, heap, event-loop
 * delay (`nodejs_eventloop_lag_*`), handles, garbage collection, start time; and
 * `process_uptime_seconds`. Started by a process that serves metrics, not at import.
 */
export const collectProcessMetrics = (on: Prom.Registry = registry): void => {
  if (withDefaults.has(on)) return
  withDefaults.add(on)
  Prom.collectDefaultMetrics({ register: on })
  new Prom.Gauge({
    name: "process_uptime_seconds",
    help: "Seconds since the process started.",
    registers: [on],
    collect() {
      this.set(process.uptime())
    }
  })
}

/** OTel's advised bounds of `http.server.request.duration`, in seconds. */
export const HTTP_DURATION_BUCKETS: ReadonlyArray<number> = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

/** Bounds of the job queue's and deliveries' durations, in seconds (a job may wait or run minutes). */
export const LONG_BUCKETS: ReadonlyArray<number> = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900]

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** A method as a label: the standard ones, `_OTHER` for the rest (OTel's rule), so a client cannot add series. */
export const methodLabel = (method: string): string => (HTTP_METHODS.has(method) ? method : "_OTHER")

/** `/api/v1/platforms/:platformId` as the route template `/api/v1/platforms/{platformId}`. */
const templateOf = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}")

/** One HTTP server histogram, its children cached by route, method and status. */
export interface HttpServerMetrics {
  /**
   * Record a response: `route` the catalogue's path (`:param` or `{param}`) or a fixed label, templated
   * once when first seen; `seconds` from the request to the response head.
   */
  readonly observe: (route: string, method: string, status: number, seconds: number) => void
}

const httpServers = new WeakMap<Prom.Registry, HttpServerMetrics>()

/** One series of the request histogram: per-bucket counts (not cumulative), sum and count. */
interface Accumulated {
  readonly labels: Record<string, string>
  readonly counts: Float64Array
  sum: number
  count: number
}

/**
 * prom-client's histogram with its recording taken over: a child's `observe` validates and hashes
 * its labels on every call (about 3 µs on the 2-core machine), too much for every request. Here a
 * request adds to its series' plain counters, and the exposition reads them through prom-client's
 * own `getForPromString` contract, so that prom-client still writes the text (decision 0723).
 */
class RequestHistogram extends Prom.Histogram<string> {
  private readonly accumulated: Array<Accumulated> = []
  private readonly bounds: ReadonlyArray<number>

  constructor(configuration: Prom.HistogramConfiguration<string>) {
    super(configuration)
    this.bounds = [...(configuration.buckets ?? [])].sort((x, y) => x - y)
  }

  /** A new series (called once per label combination). */
  series(labels: Record<string, string>): Accumulated {
    const made: Accumulated = { labels, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 }
    this.accumulated.push(made)
    return made
  }

  /** Add one value to a series: a bucket, the sum and the count (no allocation). */
  add(series: Accumulated, value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]) i++
    if (i < bounds.length) series.counts[i]++
    series.sum += value
    series.count++
  }

  override reset(): void {
    // prom-client's constructor resets before this class's fields exist.
    const accumulated = this.accumulated as Array<Accumulated> | undefined
    if (accumulated === undefined) return
    for (const series of accumulated) {
      series.counts.fill(0)
      series.sum = 0
      series.count = 0
    }
  }

  /** What prom-client's registry formats: cumulative `le` buckets, `+Inf`, sum and count per series. */
  async getForPromString() {
    const name = "http_server_request_duration_seconds"
    const values: Array<{ value: number; labels: Record<string, string | number>; metricName: string }> = []
    for (const series of this.accumulated) {
      let cumulative = 0
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]
        values.push({ value: cumulative, labels: { ...series.labels, le: bound }, metricName: `${name}_bucket` })
      })
      values.push({ value: series.count, labels: { ...series.labels, le: "+Inf" }, metricName: `${name}_bucket` })
      values.push({ value: series.sum, labels: series.labels, metricName: `${name}_sum` })
      values.push({ value: series.count, labels: series.labels, metricName: `${name}_count` })
    }
    return { name, help: HTTP_HELP, type: "histogram", values, aggregator: "sum" }
  }
}

const HTTP_HELP = "Duration of HTTP server requests, from the request to the response head, by route template, method and status."

/**
 * `http.server.request.duration` on `on` (one per registry), exposed as
 * `http_server_request_duration_seconds{http_request_method,http_route,http_response_status_code}`;
 * its `_count` is the number of responses.
 */
export const httpServer = (on: Prom.Registry = registry): HttpServerMetrics => {
  const known = httpServers.get(on)
  if (known !== undefined) return known
  const histogram = new RequestHistogram({
    name: "http_server_request_duration_seconds",
    help: HTTP_HELP,
    labelNames: ["http_request_method", "http_route", "http_response_status_code"],
    buckets: [...HTTP_DURATION_BUCKETS],
    registers: [on]
  })
  const byRoute = new Map<string, Map<string, Map<number, Accumulated>>>()
  const made: HttpServerMetrics = {
    observe: (route, method, status, seconds) => {
      // Keyed by the bounded method, so that unknown methods do not grow the cache either.
      const bounded = methodLabel(method)
      let byMethod = byRoute.get(route)
      if (byMethod === undefined) byRoute.set(route, byMethod = new Map())
      let byStatus = byMethod.get(bounded)
      if (byStatus === undefined) byMethod.set(bounded, byStatus = new Map())
      let series = byStatus.get(status)
      if (series === undefined) {
        byStatus.set(status, series = histogram.series({ http_request_method: bounded, http_route: templateOf(route), http_response_status_code: String(status) }))
      }
      histogram.add(series, seconds)
    }
  }
  httpServers.set(on, made)
  return made
}

/**
 * Present where a service's own routes record `http.server.request.duration` (`core-server serve
 * --service`): in the all-in-one server the gateway records each request once, so the services it
 * runs in its process do not.
 */
export class ServerMetrics extends Context.Tag("@core/kernel/Metrics/ServerMetrics")<ServerMetrics, HttpServerMetrics>() {}

/** How one attempt of a job ended. */
export type JobAttemptOutcome = "succeeded" | "retried" | "dead_lettered" | "released"

/** What the queue holds now: jobs by state and type (read when the metrics are scraped). */
export interface QueueDepthRow {
  readonly state: string
  readonly type: string
  readonly count: number
}

let queueDepthSource: (() => Promise<ReadonlyArray<QueueDepthRow>>) | undefined

/**
 * Where `core_job_queue_depth` is read from when scraped: the worker sets it (one grouped count of
 * the queued and running jobs); a failing read leaves the gauge empty for that scrape.
 */
export const setQueueDepthSource = (source: () => Promise<ReadonlyArray<QueueDepthRow>>): void => {
  queueDepthSource = source
}

/** Forget `source` when it is still the one read (a worker that stops; another may have started since). */
export const clearQueueDepthSource = (source: () => Promise<ReadonlyArray<QueueDepthRow>>): void => {
  if (queueDepthSource === source) queueDepthSource = undefined
}

/** The job queue's instruments, on the process's registry. */
export const jobs = (() => {
  const wait = new Prom.Histogram({
    name: "core_job_queue_wait_seconds",
    help: "Time from a job being due (enqueued, or its retry's time) to a worker starting it, by job type.",
    labelNames: ["job_type"],
    buckets: [...LONG_BUCKETS],
    registers: [registry]
  })
  const run = new Prom.Histogram({
    name: "core_job_run_duration_seconds",
    help: "Duration of one attempt of a job's handler, by job type and outcome.",
    labelNames: ["job_type", "outcome"],
    buckets: [...LONG_BUCKETS],
    registers: [registry]
  })
  const attempts = new Prom.Counter({
    name: "core_job_attempts_total",
    help: "Attempts of jobs ended, by job type and outcome (succeeded, retried, dead_lettered, released).",
    labelNames: ["job_type", "outcome"],
    registers: [registry]
  })
  const deadLetters = new Prom.Counter({
    name: "core_job_dead_letters_total",
    help: "Jobs failed for good (their attempts spent), by job type.",
    labelNames: ["job_type"],
    registers: [registry]
  })
  const leasesLost = new Prom.Counter({
    name: "core_job_leases_lost_total",
    help: "Jobs a worker's heartbeat found no longer its own (lease expired and taken over, cancelled or force-completed), by job type.",
    labelNames: ["job_type"],
    registers: [registry]
  })
  new Prom.Gauge({
    name: "core_job_queue_depth",
    help: "Jobs in the queue now, by state (QUEUED, RUNNING) and job type.",
    labelNames: ["state", "job_type"],
    registers: [registry],
    async collect() {
      this.reset()
      if (queueDepthSource === undefined) return
      const rows = await queueDepthSource().catch(() => [] as ReadonlyArray<QueueDepthRow>)
      for (const row of rows) this.labels(row.state, row.type).set(row.count)
    }
  })
  return {
    /** A worker started a job that was due `waitSeconds` ago. */
    started: (type: string, waitSeconds: number): void => wait.labels(type).observe(Math.max(0, waitSeconds)),
    /** One attempt ended. */
    ended: (type: string, outcome: JobAttemptOutcome, seconds: number): void => {
      run.labels(type, outcome).observe(seconds)
      attempts.labels(type, outcome).inc()
      if (outcome === "dead_lettered") deadLetters.labels(type).inc()
    },
    /** The heartbeat found a job no longer this worker's. */
    leaseLost: (type: string): void => leasesLost.labels(type).inc()
  }
})()

/** The webhook deliveries' instruments, on the process's registry. */
export const webhooks = (() => {
  const attempts = new Prom.Counter({
    name: "core_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts, by outcome (succeeded: a 2xx; failed: another status, a timeout or no connection).",
    labelNames: ["outcome"],
    registers: [registry]
  })
  const duration = new Prom.Histogram({
    name: "core_webhook_delivery_duration_seconds",
    help: "Duration of one webhook delivery attempt's request, by outcome.",
    labelNames: ["outcome"],
    buckets: [...LONG_BUCKETS],
    registers: [registry]
  })
  // Both outcomes are served from the start, at zero, so that a rate of failures is defined.
  for (const outcome of ["succeeded", "failed"]) {
    attempts.labels(outcome).inc(0)
    duration.zero({ outcome })
  }
  const children = {
    succeeded: { attempts: attempts.labels("succeeded"), duration: duration.labels("succeeded") },
    failed: { attempts: attempts.labels("failed"), duration: duration.labels("failed") }
  }
  return {
    /** One attempt's outcome, as it is recorded. */
    attempted: (ok: boolean, seconds: number): void => {
      const child = ok ? children.succeeded : children.failed
      child.attempts.inc()
      child.duration.observe(seconds)
    }
  }
})()

/** Billing's usage ingestion, on the process's registry. */
export const usage = (() => {
  const events = new Prom.Counter({
    name: "core_billing_usage_events_total",
    help: "Usage events billing ingested, by result (accepted: counted; duplicate: an event id seen before, not counted again).",
    labelNames: ["result"],
    registers: [registry]
  })
  const accepted = events.labels("accepted")
  const duplicate = events.labels("duplicate")
  accepted.inc(0)
  duplicate.inc(0)
  return {
    /** One batch ingested. */
    ingested: (acceptedEvents: number, duplicates: number): void => {
      accepted.inc(acceptedEvents)
      duplicate.inc(duplicates)
    }
  }
})()

export type { Registry } from "prom-client"
