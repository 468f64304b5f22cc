import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Crypto, Metrics as KernelMetrics, Unauthorized } from "@core/kernel"
import { Effect, Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import * as Prom from "prom-client"
import { isUnder, ROUTES, type Route, type ServiceName, SERVICES } from "./Routes.js"

/** What kind of upstream failure: 502 `UPSTREAM_UNAVAILABLE` or 504 `UPSTREAM_TIMEOUT`. */
export type UpstreamErrorKind = "unavailable" | "timeout"

/**
 * The gateway's metrics. Every recording method is cheap enough for every request: a few map
 * lookups and one histogram observation, no allocation once a series exists.
 */
export interface Metrics {
  /**
   * Count a response and its duration: `route` is the catalogue's path of the request's rule
   * (`:param`s, templated once) or a `routeLabel`, `method` is bounded here.
   */
  readonly observeRequest: (route: string, method: string, status: number, seconds: number) => void
  /** Count a lookup of the authentication cache. */
  readonly authCache: (hit: boolean) => void
  /** Count a request the rate limiter refused. */
  readonly rateLimited: () => void
  /** Count an upstream the gateway could not reach, or that did not answer in time. */
  readonly upstreamError: (service: ServiceName, kind: UpstreamErrorKind) => void
  /** The exposition text of every metric of the registry (prom-client's). */
  readonly render: () => Promise<string>
  /** The registry behind them (prom-client's), for a process that adds its own metrics to `/metrics`. */
  readonly registry: Prom.Registry
}

/** The route labels of paths outside the routing table; anything else is `other`. */
export const FIXED_ROUTES: ReadonlyArray<string> = ["/health", "/ready", "/metrics", "/api/v1/openapi.json"]

/** The route label of every path neither routed nor fixed. */
export const OTHER = "other"

const FIXED = new Set(FIXED_ROUTES)

/**
 * The `http_route` label of a path no catalogued rule matched: the longest routing-table prefix it
 * lies under, one of `FIXED_ROUTES` exactly, else `other` — never the path itself, whose values
 * are unbounded.
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

/** The `http_route` of a request: its rule's catalogued path, else its `routeLabel`. */
export const routeOf = (rulePath: string | undefined, pathname: string): string => rulePath ?? routeLabel(pathname)

/**
 * Make the gateway's metrics on `registry` (a new one by default; `core-server` gives the
 * process's, `Metrics.registry` of `@core/kernel`): `http_server_request_duration_seconds`
 * `{http_request_method,http_route,http_response_status_code}`, `core_auth_cache_total{result}`,
 * `core_rate_limit_rejections_total`, `core_upstream_errors_total{service,kind}` and prom-client's
 * process metrics (memory, CPU, event-loop delay, start time) with `process_uptime_seconds`.
 */
export const make = (registry: Prom.Registry = new Prom.Registry()): Metrics => {
  const http = KernelMetrics.httpServer(registry)
  const authCache = new Prom.Counter({
    name: "core_auth_cache_total",
    help: "Lookups of the gateway's credential cache, by result (hit, miss).",
    labelNames: ["result"],
    registers: [registry]
  })
  const hit = authCache.labels("hit")
  const miss = authCache.labels("miss")
  hit.inc(0)
  miss.inc(0)
  const rejections = new Prom.Counter({
    name: "core_rate_limit_rejections_total",
    help: "Requests the rate limiter refused (429).",
    registers: [registry]
  })
  const upstreamErrors = new Prom.Counter({
    name: "core_upstream_errors_total",
    help: "Upstreams unreachable (502) or too slow (504), by service and kind.",
    labelNames: ["service", "kind"],
    registers: [registry]
  })
  const errors = new Map<string, Prom.Counter.Internal>()
  for (const service of SERVICES) {
    for (const kind of ["unavailable", "timeout"] as const) {
      const child = upstreamErrors.labels(service, kind)
      child.inc(0)
      errors.set(`${service} ${kind}`, child)
    }
  }
  KernelMetrics.collectProcessMetrics(registry)
  return {
    observeRequest: http.observe,
    authCache: (wasHit) => (wasHit ? hit : miss).inc(),
    rateLimited: () => rejections.inc(),
    upstreamError: (service, kind) => errors.get(`${service} ${kind}`)?.inc(),
    render: () => registry.metrics(),
    registry
  }
}

/** The media type of the text exposition format. */
export const CONTENT_TYPE = KernelMetrics.CONTENT_TYPE

/** Where the metrics are served. */
export const PATH = KernelMetrics.PATH

/** Who may read `/metrics` (decision 0723). */
export interface ReadAccess {
  /**
   * The static service key (`CORE_STATIC_API_KEY`) that `Authorization: Bearer` must present;
   * `undefined` is the development bypass: anyone reads.
   */
  readonly staticKey?: Redacted.Redacted<string> | undefined
}

/**
 * Whether `authorization` presents the static key (constant time); with no key configured
 * (development) every request may read.
 */
export const mayRead = (access: ReadAccess, authorization: string | undefined): boolean => {
  if (access.staticKey === undefined) return true
  if (authorization === undefined) return false
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  if (match === null) return false
  return timingSafeEqual(Crypto.sha256(match[1]), Crypto.sha256(Redacted.value(access.staticKey)))
}

/**
 * `GET /metrics` (and `HEAD`): the exposition text, never cached; 401 `UNAUTHORIZED` without the
 * static key (`access`). Other requests fail with the router's `RouteNotFound`, so it concatenates
 * with the server's other fallback routes.
 *
 * @example
 * Gateway.make({ upstreams, fallback: HttpRouter.concat(Health.routes(checks), Metrics.route(metrics, { staticKey })) })
 */
export const route = (metrics: Metrics, access: ReadAccess = {}): HttpRouter.HttpRouter<Unauthorized> =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      PATH,
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        mayRead(access, request.headers.authorization)
          ? Effect.map(
            Effect.promise(() => metrics.render()),
            (text) => HttpServerResponse.text(text, { contentType: CONTENT_TYPE, headers: { "cache-control": "no-store" } })
          )
          : Effect.fail(new Unauthorized({ message: "Reading /metrics takes the static key: Authorization: Bearer <CORE_STATIC_API_KEY>" })))
    )
  )
