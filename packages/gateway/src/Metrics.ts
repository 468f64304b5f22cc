import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { isUnder, ROUTES, type Route, type ServiceName, SERVICES } from "./Routes.js"

/** A label value as callers pass it; numbers (statuses) are keyed as numbers, printed as text. */
export type LabelValue = string | number

/** One series of a counter. */
export interface CounterSeries {
  readonly inc: (by?: number) => void
}

/** One series of a histogram: cumulative buckets, sum and count. */
export interface HistogramSeries {
  readonly observe: (value: number) => void
}

/**
 * A family of series under one name. `series` takes the label values in the order the labels
 * were declared (at most three: positional, so a lookup allocates nothing); the first call for a
 * combination creates its series, later calls find it through one map per label.
 */
export interface Family<S> {
  readonly series: (a?: LabelValue, b?: LabelValue, c?: LabelValue) => S
}

/**
 * A dependency-free Prometheus registry rendering the text exposition format 0.0.4
 * (docs/decisions/0162). Families render in registration order, series sorted by their labels.
 *
 * @example
 * const registry = Metrics.makeRegistry()
 * const jobs = registry.counter("core_jobs_total", "Jobs run.", ["kind"])
 * jobs.series("provision").inc()
 * registry.render() // "# HELP core_jobs_total Jobs run.\n# TYPE core_jobs_total counter\ncore_jobs_total{kind=\"provision\"} 1\n"
 */
export interface Registry {
  readonly counter: (name: string, help: string, labelNames?: ReadonlyArray<string>) => Family<CounterSeries>
  readonly histogram: (
    name: string,
    help: string,
    labelNames: ReadonlyArray<string>,
    buckets: ReadonlyArray<number>
  ) => Family<HistogramSeries>
  /** A value read when rendered (memory, uptime): a `gauge`, or a `counter` kept elsewhere. */
  readonly collect: (name: string, help: string, type: "gauge" | "counter", read: () => number) => void
  readonly render: () => string
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/** A label value as the exposition format writes it: `\`, `"` and newlines escaped. */
export const escapeLabelValue = (value: string): string =>
  value.replace(/[\\"\n]/g, (char) => (char === "\n" ? "\\n" : `\\${char}`))

const escapeHelp = (text: string): string => text.replace(/[\\\n]/g, (char) => (char === "\n" ? "\\n" : "\\\\"))

/** A sample value or bucket bound as the exposition format writes it (`+Inf`, `-Inf`, `NaN`). */
export const formatValue = (value: number): string =>
  Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value)

interface Written {
  readonly labels: string
  readonly write: (name: string, lines: Array<string>) => void
}

const sample = (name: string, labels: string, value: number): string =>
  `${name}${labels === "" ? "" : `{${labels}}`} ${formatValue(value)}`

const makeFamily = <S extends Written>(labelNames: ReadonlyArray<string>, create: (labels: string) => S) => {
  const root = new Map<LabelValue, unknown>()
  const byLabels = new Map<string, S>()
  const descend = (level: Map<LabelValue, unknown>, key: LabelValue): Map<LabelValue, unknown> => {
    let next = level.get(key) as Map<LabelValue, unknown> | undefined
    if (next === undefined) level.set(key, next = new Map())
    return next
  }
  const series = (a?: LabelValue, b?: LabelValue, c?: LabelValue): S => {
    const depth = labelNames.length
    const level = depth === 3 ? descend(descend(root, a ?? ""), b ?? "") : depth === 2 ? descend(root, a ?? "") : root
    const key = (depth === 3 ? c : depth === 2 ? b : a) ?? ""
    const known = level.get(key) as S | undefined
    if (known !== undefined) return known
    const values = [a, b, c]
    const labels = labelNames.map((name, i) => `${name}="${escapeLabelValue(String(values[i] ?? ""))}"`).join(",")
    const created = byLabels.get(labels) ?? create(labels)
    byLabels.set(labels, created)
    level.set(key, created)
    return created
  }
  const write = (name: string, lines: Array<string>) => {
    for (const entry of [...byLabels.values()].sort((x, y) => (x.labels < y.labels ? -1 : x.labels > y.labels ? 1 : 0))) {
      entry.write(name, lines)
    }
  }
  if (labelNames.length === 0) series()
  return { series, write }
}

/** Make an empty registry. Names and labels are checked here, once, never on the hot path. */
export const makeRegistry = (): Registry => {
  const writers: Array<(lines: Array<string>) => void> = []
  const names = new Set<string>()
  const declare = (name: string, help: string, type: string, labelNames: ReadonlyArray<string>) => {
    if (!METRIC_NAME.test(name) || names.has(name)) throw new TypeError(`Bad or duplicate metric name ${name}`)
    const bad = labelNames.find((label) => !LABEL_NAME.test(label) || label.startsWith("__") || label === "le")
    if (bad !== undefined || labelNames.length > 3) throw new TypeError(`Bad labels for ${name}: ${labelNames.join(",")}`)
    names.add(name)
    return [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`]
  }
  return {
    counter: (name, help, labelNames = []) => {
      const header = declare(name, help, "counter", labelNames)
      const family = makeFamily(labelNames, (labels) => {
        let total = 0
        return {
          labels,
          inc: (by = 1) => void (total += by),
          write: (metric: string, lines: Array<string>) => void lines.push(sample(metric, labels, total))
        }
      })
      writers.push((lines) => (lines.push(...header), family.write(name, lines)))
      return family
    },
    histogram: (name, help, labelNames, buckets) => {
      const header = declare(name, help, "histogram", labelNames)
      const bounds = [...buckets].sort((x, y) => x - y).filter((bound) => bound !== Infinity)
      const family = makeFamily(labelNames, (labels) => {
        const counts = new Float64Array(bounds.length)
        let sum = 0
        let count = 0
        const separator = labels === "" ? "" : ","
        return {
          labels,
          observe: (value: number) => {
            let i = 0
            while (i < bounds.length && value > bounds[i]) i++
            if (i < bounds.length) counts[i]++
            sum += value
            count++
          },
          write: (metric: string, lines: Array<string>) => {
            let cumulative = 0
            bounds.forEach((bound, i) => {
              cumulative += counts[i]
              lines.push(`${metric}_bucket{${labels}${separator}le="${formatValue(bound)}"} ${cumulative}`)
            })
            lines.push(`${metric}_bucket{${labels}${separator}le="+Inf"} ${count}`)
            lines.push(sample(`${metric}_sum`, labels, sum), sample(`${metric}_count`, labels, count))
          }
        }
      })
      writers.push((lines) => (lines.push(...header), family.write(name, lines)))
      return family
    },
    collect: (name, help, type, read) => {
      const header = declare(name, help, type, [])
      writers.push((lines) => lines.push(...header, sample(name, "", read())))
    },
    render: () => {
      const lines: Array<string> = []
      for (const write of writers) write(lines)
      return `${lines.join("\n")}\n`
    }
  }
}

/** What kind of upstream failure: 502 `UPSTREAM_UNAVAILABLE` or 504 `UPSTREAM_TIMEOUT`. */
export type UpstreamErrorKind = "unavailable" | "timeout"

/**
 * The gateway's metrics. Every recording method is cheap enough for every request: a few map
 * lookups, no allocation once a series exists.
 */
export interface Metrics {
  /** Count a response and its duration; `route` is a `routeLabel`, `method` is bounded here. */
  readonly observeRequest: (route: string, method: string, status: number, seconds: number) => void
  /** Count a lookup of the authentication cache. */
  readonly authCache: (hit: boolean) => void
  /** Count a request the rate limiter refused. */
  readonly rateLimited: () => void
  /** Count an upstream the gateway could not reach, or that did not answer in time. */
  readonly upstreamError: (service: ServiceName, kind: UpstreamErrorKind) => void
  /** The exposition text of every metric, the registry's own additions included. */
  readonly render: () => string
  /** The registry behind them, for a process that adds its own metrics to `/metrics`. */
  readonly registry: Registry
}

/** Bounds of `core_http_request_duration_seconds`, in seconds (Prometheus' defaults). */
export const DURATION_BUCKETS: ReadonlyArray<number> = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The route labels of paths outside the routing table; anything else is `other`. */
export const FIXED_ROUTES: ReadonlyArray<string> = ["/health", "/ready", "/metrics", "/api/v1/openapi.json"]

/** The route label of every path neither routed nor fixed. */
export const OTHER = "other"

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
const FIXED = new Set(FIXED_ROUTES)

/**
 * The `route` label of a path: the longest routing-table prefix it lies under, one of
 * `FIXED_ROUTES` exactly, else `other` — never the path itself, whose values are unbounded.
 *
 * @example
 * routeLabel("/api/v1/platforms/plt_1") // "/api/v1/platforms"
 * routeLabel("/wp-login.php") // "other"
 */
export const routeLabel = (pathname: string, routes: ReadonlyArray<Route> = ROUTES): string => {
  let best: string | undefined
  for (const route of routes) {
    if (isUnder(pathname, route.prefix) && (best === undefined || route.prefix.length > best.length)) best = route.prefix
  }
  return best ?? (FIXED.has(pathname) ? pathname : OTHER)
}

/**
 * Make the gateway's metrics on a new registry: `core_http_requests_total{route,method,status}`,
 * `core_http_request_duration_seconds{route,method}`, `core_auth_cache_total{result}`,
 * `core_rate_limit_rejections_total`, `core_upstream_errors_total{service,kind}` and the
 * process's resident memory, start time and uptime.
 */
export const make = (): Metrics => {
  const registry = makeRegistry()
  const requests = registry.counter("core_http_requests_total", "Responses of the gateway by route prefix, method and status.", ["route", "method", "status"])
  const durations = registry.histogram(
    "core_http_request_duration_seconds",
    "Time from the request to the response head, by route prefix and method.",
    ["route", "method"],
    DURATION_BUCKETS
  )
  const authCache = registry.counter("core_auth_cache_total", "Lookups of the gateway's credential cache.", ["result"])
  const hit = authCache.series("hit")
  const miss = authCache.series("miss")
  const rejections = registry.counter("core_rate_limit_rejections_total", "Requests the rate limiter refused (429).").series()
  const upstreamErrors = registry.counter("core_upstream_errors_total", "Upstreams unreachable (502) or too slow (504).", ["service", "kind"])
  for (const service of SERVICES) for (const kind of ["unavailable", "timeout"]) upstreamErrors.series(service, kind)
  const startedAt = Date.now() / 1000 - process.uptime()
  registry.collect("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", () => process.memoryUsage.rss())
  registry.collect("process_start_time_seconds", "Start time of the process since the Unix epoch in seconds.", "gauge", () => startedAt)
  registry.collect("process_uptime_seconds", "Seconds since the process started.", "gauge", () => process.uptime())
  return {
    observeRequest: (route, method, status, seconds) => {
      const bounded = METHODS.has(method) ? method : OTHER
      requests.series(route, bounded, status).inc()
      durations.series(route, bounded).observe(seconds)
    },
    authCache: (wasHit) => (wasHit ? hit : miss).inc(),
    rateLimited: () => rejections.inc(),
    upstreamError: (service, kind) => upstreamErrors.series(service, kind).inc(),
    render: registry.render,
    registry
  }
}

/** The media type of the text exposition format. */
export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** Where the metrics are served. */
export const PATH = "/metrics"

/**
 * `GET /metrics` (and `HEAD`): the exposition text, never cached. Other requests fail with the
 * router's `RouteNotFound`, so it concatenates with the server's other fallback routes.
 *
 * @example
 * Gateway.make({ upstreams, fallback: HttpRouter.concat(Health.routes(checks), Metrics.route(metrics)) })
 */
export const route = (metrics: Metrics): HttpRouter.HttpRouter =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      PATH,
      Effect.sync(() => HttpServerResponse.text(metrics.render(), { contentType: CONTENT_TYPE, headers: { "cache-control": "no-store" } }))
    )
  )
