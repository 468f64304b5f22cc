import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Logger, type Scope } from "effect"
import { describe, expect, it } from "vitest"
import * as Metrics from "../src/Metrics.js"
import * as Gateway from "../src/Gateway.js"
import * as Upstream from "../src/Upstream.js"
import * as Transport from "./Transport.js"
import * as Routes from "../src/Routes.js"

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** A strict reader of the text exposition format 0.0.4: it throws on any line it does not understand. */
const parse = (text: string) => {
  expect(text.endsWith("\n")).toBe(true)
  const help = new Map<string, string>()
  const types = new Map<string, string>()
  const samples: Array<Sample> = []
  for (const line of text.slice(0, -1).split("\n")) {
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line)
    if (comment !== null) {
      const [, kind, name, rest] = comment
      if (kind === "HELP") help.set(name, rest.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\")))
      else types.set(name, rest)
      continue
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) throw new Error(`Unparsable line: ${JSON.stringify(line)}`)
    const labels: Record<string, string> = {}
    const pairs = match[2] ?? ""
    const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y
    let found: RegExpExecArray | null
    while (pair.lastIndex < pairs.length && (found = pair.exec(pairs)) !== null) {
      labels[found[1]] = found[2].replace(/\\(\\|"|n)/g, (_, c: string) => (c === "n" ? "\n" : c))
    }
    if (pair.lastIndex !== pairs.length) throw new Error(`Unparsable labels: ${pairs}`)
    const value = match[3] === "+Inf" ? Infinity : match[3] === "-Inf" ? -Infinity : Number(match[3])
    if (Number.isNaN(value) && match[3] !== "NaN") throw new Error(`Unparsable value: ${match[3]}`)
    samples.push({ name: match[1], labels, value })
  }
  return { help, types, samples }
}

const lines = (text: string) => text.split("\n")

describe("Metrics registry", () => {
  it("renders counters exactly, an unlabelled one from zero, series sorted by labels", () => {
    const registry = Metrics.makeRegistry()
    const jobs = registry.counter("core_jobs_total", "Jobs run.", ["kind", "code"])
    registry.counter("core_ticks_total", "Ticks.")
    jobs.series("provision", 200).inc()
    jobs.series("deploy", 500).inc(2)
    jobs.series("provision", 200).inc()
    jobs.series("provision", "200").inc()
    expect(registry.render()).toBe([
      "# HELP core_jobs_total Jobs run.",
      "# TYPE core_jobs_total counter",
      "core_jobs_total{kind=\"deploy\",code=\"500\"} 2",
      "core_jobs_total{kind=\"provision\",code=\"200\"} 3",
      "# HELP core_ticks_total Ticks.",
      "# TYPE core_ticks_total counter",
      "core_ticks_total 0",
      ""
    ].join("\n"))
  })

  it("escapes quotes, backslashes and newlines in label values and help, and they parse back", () => {
    const registry = Metrics.makeRegistry()
    const odd = "say \"hi\"\\n\nnext"
    registry.counter("core_odd_total", "Back\\slash and\nnewline.", ["value"]).series(odd).inc()
    const text = registry.render()
    expect(lines(text)).toEqual([
      "# HELP core_odd_total Back\\\\slash and\\nnewline.",
      "# TYPE core_odd_total counter",
      "core_odd_total{value=\"say \\\"hi\\\"\\\\n\\nnext\"} 1",
      ""
    ])
    const parsed = parse(text)
    expect(parsed.help.get("core_odd_total")).toBe("Back\\slash and\nnewline.")
    expect(parsed.samples).toEqual([{ name: "core_odd_total", labels: { value: odd }, value: 1 }])
  })

  it("renders cumulative histogram buckets (bounds inclusive), +Inf, sum and count", () => {
    const registry = Metrics.makeRegistry()
    const sizes = registry.histogram("core_size_bytes", "Sizes.", ["kind"], [10, 1, 100])
    for (const value of [0.5, 1, 7, 10, 50, 1000]) sizes.series("a").observe(value)
    expect(registry.render()).toBe([
      "# HELP core_size_bytes Sizes.",
      "# TYPE core_size_bytes histogram",
      "core_size_bytes_bucket{kind=\"a\",le=\"1\"} 2",
      "core_size_bytes_bucket{kind=\"a\",le=\"10\"} 4",
      "core_size_bytes_bucket{kind=\"a\",le=\"100\"} 5",
      "core_size_bytes_bucket{kind=\"a\",le=\"+Inf\"} 6",
      "core_size_bytes_sum{kind=\"a\"} 1068.5",
      "core_size_bytes_count{kind=\"a\"} 6",
      ""
    ].join("\n"))
  })

  it("refuses bad and duplicate names, reserved labels and more than three labels", () => {
    const registry = Metrics.makeRegistry()
    registry.counter("core_a_total", "A.")
    expect(() => registry.counter("core_a_total", "Again.")).toThrow(TypeError)
    expect(() => registry.counter("core-b", "Dash.")).toThrow(TypeError)
    expect(() => registry.histogram("core_c", "C.", ["le"], [1])).toThrow(TypeError)
    expect(() => registry.counter("core_d_total", "D.", ["__x"])).toThrow(TypeError)
    expect(() => registry.counter("core_e_total", "E.", ["a", "b", "c", "d"])).toThrow(TypeError)
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
  it("starts with every auth-cache, rate-limit and upstream series at zero, and the process basics", () => {
    const parsed = parse(Metrics.make().render())
    const find = (name: string, labels: Record<string, string> = {}) =>
      parsed.samples.filter((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels)).map((s) => s.value)
    expect(find("core_auth_cache_total", { result: "hit" })).toEqual([0])
    expect(find("core_auth_cache_total", { result: "miss" })).toEqual([0])
    expect(find("core_rate_limit_rejections_total")).toEqual([0])
    for (const service of Routes.SERVICES) {
      expect(find("core_upstream_errors_total", { service, kind: "unavailable" })).toEqual([0])
      expect(find("core_upstream_errors_total", { service, kind: "timeout" })).toEqual([0])
    }
    expect(parsed.types.get("core_http_requests_total")).toBe("counter")
    expect(parsed.types.get("core_http_request_duration_seconds")).toBe("histogram")
    expect(parsed.samples.some((s) => s.name.startsWith("core_http_"))).toBe(false)
    for (const name of ["process_resident_memory_bytes", "process_start_time_seconds", "process_uptime_seconds"]) {
      expect(parsed.types.get(name)).toBe("gauge")
      expect(find(name)[0]).toBeGreaterThan(0)
    }
  })

  it("counts requests by route, bounded method and status, with monotonic duration buckets", () => {
    const metrics = Metrics.make()
    const durations = [0.001, 0.005, 0.02, 0.3, 0.3, 4, 60]
    for (const seconds of durations) metrics.observeRequest("/api/v1/iam", "GET", 200, seconds)
    metrics.observeRequest("/api/v1/iam", "POST", 401, 0.01)
    metrics.observeRequest("other", "BREW", 404, 0.01)
    metrics.authCache(true)
    metrics.authCache(true)
    metrics.authCache(false)
    metrics.rateLimited()
    metrics.upstreamError("BILLING", "timeout")
    const text = metrics.render()
    expect(lines(text)).toEqual(expect.arrayContaining([
      "core_http_requests_total{route=\"/api/v1/iam\",method=\"GET\",status=\"200\"} 7",
      "core_http_requests_total{route=\"/api/v1/iam\",method=\"POST\",status=\"401\"} 1",
      "core_http_requests_total{route=\"other\",method=\"other\",status=\"404\"} 1",
      "core_http_request_duration_seconds_bucket{route=\"/api/v1/iam\",method=\"GET\",le=\"0.005\"} 2",
      "core_http_request_duration_seconds_bucket{route=\"/api/v1/iam\",method=\"GET\",le=\"+Inf\"} 7",
      "core_http_request_duration_seconds_count{route=\"/api/v1/iam\",method=\"GET\"} 7",
      "core_auth_cache_total{result=\"hit\"} 2",
      "core_auth_cache_total{result=\"miss\"} 1",
      "core_rate_limit_rejections_total 1",
      "core_upstream_errors_total{service=\"BILLING\",kind=\"timeout\"} 1",
      "core_upstream_errors_total{service=\"BILLING\",kind=\"unavailable\"} 0"
    ]))
    const buckets = parse(text).samples.filter((s) =>
      s.name === "core_http_request_duration_seconds_bucket" && s.labels.method === "GET"
    )
    expect(buckets.map((s) => s.labels.le)).toEqual([...Metrics.DURATION_BUCKETS.map(String), "+Inf"])
    const counts = buckets.map((s) => s.value)
    expect(counts).toEqual([...counts].sort((x, y) => x - y))
    const sum = parse(text).samples.find((s) => s.name === "core_http_request_duration_seconds_sum" && s.labels.method === "GET")
    expect(sum?.value).toBeCloseTo(durations.reduce((x, y) => x + y, 0), 9)
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
    expect(() => parse(body)).not.toThrow()
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
    const text = metrics.render()
    expect(lines(text)).toEqual(expect.arrayContaining([
      "core_http_requests_total{route=\"other\",method=\"GET\",status=\"404\"} 1",
      "core_http_requests_total{route=\"/api/v1/iam\",method=\"GET\",status=\"500\"} 1",
      "core_http_requests_total{route=\"/health\",method=\"GET\",status=\"200\"} 1",
      "core_http_request_duration_seconds_count{route=\"other\",method=\"GET\"} 1",
      "core_http_request_duration_seconds_count{route=\"/api/v1/iam\",method=\"GET\"} 1"
    ]))
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
    expect(lines(metrics.render())).toEqual(expect.arrayContaining([
      "core_http_requests_total{route=\"/api/v1/iam\",method=\"GET\",status=\"204\"} 1",
      "core_http_requests_total{route=\"/api/v1/stacks\",method=\"GET\",status=\"204\"} 1",
      "core_http_requests_total{route=\"/api/v1/cli\",method=\"GET\",status=\"204\"} 1",
      "core_http_requests_total{route=\"other\",method=\"GET\",status=\"404\"} 1"
    ]))
  })
})
