import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Logger, Redacted, type Scope } from "effect"
import * as Prom from "prom-client"
import { describe, expect, it } from "vitest"
import * as Prometheus from "../../../tests/support/prometheus.js"
import * as Metrics from "../src/Metrics.js"
import * as Gateway from "../src/Gateway.js"
import * as Upstream from "../src/Upstream.js"
import * as Transport from "./Transport.js"
import * as Routes from "../src/Routes.js"
import { ErrorResponse, Metrics as KernelMetrics } from "@core/kernel"

const lines = (text: string) => text.split("\n")

describe("the exposition (prom-client's, read back by a Prometheus parser)", () => {
  it("escapes quotes, backslashes and newlines in label values and help, and they parse back", async () => {
    const registry = new Prom.Registry()
    const odd = "say \"hi\"\\n\nnext"
    new Prom.Counter({ name: "core_odd_total", help: "Back\\slash and\nnewline.", labelNames: ["value"], registers: [registry] }).labels(odd).inc()
    const text = await registry.metrics()
    expect(lines(text)).toEqual(expect.arrayContaining([
      "# HELP core_odd_total Back\\\\slash and\\nnewline.",
      "# TYPE core_odd_total counter",
      "core_odd_total{value=\"say \\\"hi\\\"\\\\n\\nnext\"} 1"
    ]))
    const [family] = Prometheus.parse(text)
    expect(family.name).toBe("core_odd_total")
    expect(family.metrics).toEqual([{ labels: { value: odd }, value: "1" }])
  })
})

describe("Metrics.routeLabel", () => {
  it("maps routed paths to their prefix, the fixed paths to themselves, everything else to other", () => {
    const cases: Array<[string, string]> = [
      ["/api/v1/iam", "/api/v1/iam"],
      ["/api/v1/iam/api/core/session", "/api/v1/iam"],
      ["/api/v1/platforms/plt_1/tenants", "/api/v1/platforms"],
      ["/api/v1/onboarding/", "/api/v1/onboarding"],
      ["/api/v1/cli/whoami", "/api/v1/cli"],
      ["/health", "/health"],
      ["/ready", "/ready"],
      ["/metrics", "/metrics"],
      ["/api/v1/openapi.json", "/api/v1/openapi.json"],
      ["/api/v1/iamx", "other"],
      ["/api/v1", "other"],
      ["/api/v1/nope/x", "other"],
      ["/health/deep", "other"],
      ["/metrics/", "other"],
      ["/", "other"],
      ["/wp-login.php", "other"]
    ]
    expect(cases.map(([path]) => [path, Metrics.routeLabel(path)])).toEqual(cases)
    for (const route of Routes.ROUTES) expect(Metrics.routeLabel(`${route.prefix}/x/y`)).toBe(route.prefix)
  })
})

describe("Metrics.make", () => {
  it("starts with every auth-cache, rate-limit and upstream series at zero, and the process metrics", async () => {
    const parsed = Prometheus.parse(await Metrics.make().render())
    const find = (name: string, labels: Record<string, string> = {}) =>
      Prometheus.seriesOf(parsed, name, labels).map((series) => Number(series.value))
    expect(find("core_auth_cache_total", { result: "hit" })).toEqual([0])
    expect(find("core_auth_cache_total", { result: "miss" })).toEqual([0])
    expect(find("core_rate_limit_rejections_total")).toEqual([0])
    for (const service of Routes.SERVICES) {
      expect(find("core_upstream_errors_total", { service, kind: "unavailable" })).toEqual([0])
      expect(find("core_upstream_errors_total", { service, kind: "timeout" })).toEqual([0])
    }
    // The request histogram has its type and no series before the first request.
    expect(Prometheus.typeOf(parsed, "http_server_request_duration_seconds")).toBe("HISTOGRAM")
    expect(Prometheus.seriesOf(parsed, "http_server_request_duration_seconds")).toEqual([])
    for (const name of ["process_resident_memory_bytes", "process_start_time_seconds", "process_uptime_seconds"]) {
      expect(Prometheus.typeOf(parsed, name)).toBe("GAUGE")
      expect(find(name)[0]).toBeGreaterThan(0)
    }
    // Event-loop delay and the heap, from prom-client's process metrics.
    expect(Prometheus.typeOf(parsed, "nodejs_eventloop_lag_p99_seconds")).toBe("GAUGE")
    expect(find("nodejs_heap_size_used_bytes")[0]).toBeGreaterThan(0)
  })

  it("counts requests by route template, bounded method and status, with monotonic duration buckets", async () => {
    const metrics = Metrics.make()
    const durations = [0.001, 0.005, 0.02, 0.3, 0.3, 4, 60]
    for (const seconds of durations) metrics.observeRequest("/api/v1/platforms/:platformId", "GET", 200, seconds)
    metrics.observeRequest("/api/v1/iam", "POST", 401, 0.01)
    metrics.observeRequest("other", "BREW", 404, 0.01)
    metrics.observeRequest("other", "BREW2", 404, 0.01)
    metrics.authCache(true)
    metrics.authCache(true)
    metrics.authCache(false)
    metrics.rateLimited()
    metrics.upstreamError("BILLING", "timeout")
    const text = await metrics.render()
    const route = "/api/v1/platforms/{platformId}"
    const get = `http_request_method="GET",http_route="${route}",http_response_status_code="200"`
    expect(lines(text)).toEqual(expect.arrayContaining([
      `http_server_request_duration_seconds_bucket{${get},le="0.005"} 2`,
      `http_server_request_duration_seconds_bucket{${get},le="+Inf"} 7`,
      `http_server_request_duration_seconds_count{${get}} 7`,
      "http_server_request_duration_seconds_count{http_request_method=\"POST\",http_route=\"/api/v1/iam\",http_response_status_code=\"401\"} 1",
      "http_server_request_duration_seconds_count{http_request_method=\"_OTHER\",http_route=\"other\",http_response_status_code=\"404\"} 2",
      "core_auth_cache_total{result=\"hit\"} 2",
      "core_auth_cache_total{result=\"miss\"} 1",
      "core_rate_limit_rejections_total 1",
      "core_upstream_errors_total{service=\"BILLING\",kind=\"timeout\"} 1",
      "core_upstream_errors_total{service=\"BILLING\",kind=\"unavailable\"} 0"
    ]))
    const parsed = Prometheus.parse(text)
    const [series] = Prometheus.seriesOf(parsed, "http_server_request_duration_seconds", { http_request_method: "GET" })
    const buckets = series.buckets ?? {}
    const bounds = Object.keys(buckets).sort((x, y) => Number(x) - Number(y))
    expect(bounds).toEqual([...KernelMetrics.HTTP_DURATION_BUCKETS.map(String), "+Inf"])
    const counts = bounds.map((bound) => Number(buckets[bound]))
    expect(counts).toEqual([...counts].sort((x, y) => x - y))
    expect(Number(series.sum)).toBeCloseTo(durations.reduce((x, y) => x + y, 0), 9)
  })
})

const get = (app: HttpApp.Default<unknown, Scope.Scope>, path: string, init?: RequestInit) =>
  HttpApp.toWebHandler(app)(new Request(`http://localhost${path}`, init))

describe("Metrics.route", () => {
  it("answers GET /metrics with the exposition text and its content type", async () => {
    const metrics = Metrics.make()
    metrics.rateLimited()
    const response = await get(Metrics.route(metrics), "/metrics")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    expect(response.headers.get("cache-control")).toBe("no-store")
    const body = await response.text()
    expect(lines(body)).toContain("core_rate_limit_rejections_total 1")
    expect(Prometheus.valueOf(Prometheus.parse(body), "core_rate_limit_rejections_total")).toBe(1)
  })

  it("takes the static key when one is configured: 401 without it or with another, 200 with it", async () => {
    const staticKey = Redacted.make("sk-metrics-test-0123456789")
    const app = ErrorResponse.withErrorEnvelope(Metrics.route(Metrics.make(), { staticKey }))
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: "Basic c2stbWV0cmljcw==" }] as Array<Record<string, string>>) {
      const refused = await get(app, "/metrics", { headers: { ...headers, "x-request-id": "r-401" } })
      expect(refused.status).toBe(401)
      expect(await refused.json()).toEqual({
        error: {
          code: "UNAUTHORIZED",
          message: "Reading /metrics takes the static key: Authorization: Bearer <CORE_STATIC_API_KEY>",
          requestId: "r-401",
          details: null
        }
      })
    }
    const allowed = await get(app, "/metrics", { headers: { authorization: `Bearer ${Redacted.value(staticKey)}` } })
    expect(allowed.status).toBe(200)
    expect(Prometheus.typeOf(Prometheus.parse(await allowed.text()), "core_auth_cache_total")).toBe("COUNTER")
  })

  it("leaves other paths and methods to the routes after it", async () => {
    const app = HttpRouter.concat(Metrics.route(Metrics.make()), HttpRouter.empty.pipe(HttpRouter.get("/health", HttpServerResponse.text("ok"))))
    expect(await (await get(app, "/health")).text()).toBe("ok")
    expect((await get(app, "/metrics", { method: "POST" })).status).toBe(404)
    expect((await get(app, "/metrics/x")).status).toBe(404)
  })
})

describe("request metrics in the chain", () => {
  const quiet = Logger.replace(Logger.defaultLogger, Logger.none)
  const boom = Effect.runSync(Upstream.fromHttpApp("IAM", Effect.die(new Error("boom"))).pipe(Effect.provide(quiet)))
  const health = HttpRouter.empty.pipe(HttpRouter.get("/health", HttpServerResponse.text("ok")))

  it("counts a 404 and a 500 envelope like any answer, under bounded route labels", async () => {
    const metrics = Metrics.make()
    const { handler } = Transport.serve(Transport.ofOptions({ metrics, upstreams: [boom], fallback: health }), quiet)
    const missing = await handler(new Request("http://localhost/secret/path/123", { headers: { "x-request-id": "r-404" } }))
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({
      error: { code: "NOT_FOUND", message: "No route for /secret/path/123", requestId: "r-404", details: null }
    })
    const crashed = await handler(new Request("http://localhost/api/v1/iam/boom", { headers: { "x-request-id": "r-500" } }))
    expect(crashed.status).toBe(500)
    expect(await crashed.json()).toEqual({
      error: { code: "INTERNAL_ERROR", message: "An internal error occurred", requestId: "r-500", details: null }
    })
    expect((await handler(new Request("http://localhost/health"))).status).toBe(200)
    const text = await metrics.render()
    const parsed = Prometheus.parse(text)
    const count = (route: string, status: string) =>
      Prometheus.valueOf(parsed, "http_server_request_duration_seconds", { http_request_method: "GET", http_route: route, http_response_status_code: status })
    expect([count("other", "404"), count("/api/v1/iam", "500"), count("/health", "200")]).toEqual([1, 1, 1])
    expect(Prometheus.seriesOf(parsed, "http_server_request_duration_seconds").map((series) => series.labels.http_route).sort()).toEqual([
      "/api/v1/iam",
      "/health",
      "other"
    ])
    expect(text).not.toContain("secret")
  })

  it("labels a raw request target the way the router resolves it", async () => {
    const metrics = Metrics.make()
    const noContent = (service: Routes.ServiceName) => Upstream.fromWebHandler(service, () => new Response(null, { status: 204 }))
    const app = Gateway.make({ metrics, upstreams: [noContent("IAM"), noContent("STACKS"), noContent("CLI")] })
    const targets = ["/api/v1/nope/../iam/x", "/api/v1/stacks/x?next=/../iam", "http://gateway.test/api/v1/cli/whoami", "/api/v1/%69am/x"]
    for (const url of targets) {
      const request = HttpServerRequest.fromWeb(new Request("http://localhost/")).modify({ url })
      await Effect.runPromise(Effect.scoped(Effect.provideService(app, HttpServerRequest.HttpServerRequest, request)))
    }
    const parsed = Prometheus.parse(await metrics.render())
    const served = Prometheus.seriesOf(parsed, "http_server_request_duration_seconds").map((series) =>
      `${series.labels.http_route} ${series.labels.http_response_status_code} ${series.count}`
    )
    // The matched rule's template where the catalogue declares the path (`/api/v1/stacks/x` is a
    // stack's `{name}`), the prefix where it does not: never the raw target's values.
    expect(served.sort()).toEqual(["/api/v1/cli 204 1", "/api/v1/iam 204 1", "/api/v1/stacks/{name} 204 1", "other 404 1"])
  })
})
