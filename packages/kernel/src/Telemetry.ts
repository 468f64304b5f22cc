/**
 * Spans of requests, when a process exports them (docs/observability.md). The server's telemetry
 * layer provides `Telemetry` only when an OTLP endpoint is configured; every runner asks for it once,
 * where it is built, so that without it a request builds no span at all.
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import type { Context as OtelContext, SpanContext } from "@opentelemetry/api"
import { Context, Effect, Exit, Option, type Tracer } from "effect"
import { type Caller, Callers } from "./Caller.js"
import { type HttpServerMetrics, ServerMetrics } from "./Metrics.js"
import { requestIdOf } from "./RequestId.js"
import * as TraceContext from "./TraceContext.js"

/** What recording spans takes: the process's tracer, and how a remote parent becomes an Effect span. */
export interface TelemetryService {
  readonly tracer: Tracer.Tracer
  /** An inbound `traceparent`'s span as a parent (its sampled flag and `tracestate` kept). */
  readonly externalSpan: (spanContext: SpanContext) => Tracer.ExternalSpan
}

/** Present when spans are exported (`OTEL_EXPORTER_OTLP_ENDPOINT`); absent, nothing is recorded. */
export class Telemetry extends Context.Tag("@core/kernel/Telemetry")<Telemetry, TelemetryService>() {}

/** The span attribute the envelope's code of a failed request goes in. */
export const ERROR_CODE = "core.error.code"

/** The current time in nanoseconds since the epoch, as spans take it. */
export const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1_000)) * 1_000n

/** `/api/v1/platforms/:platformId` and `{platformId}` alike as the route template `/api/v1/platforms/{platformId}`. */
export const templateOf = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}")

/** A server span's name (OTel's HTTP conventions): `METHOD /route/{param}`, or the method alone without a route. */
export const serverSpanName = (method: string, route: string | undefined): string =>
  route === undefined ? method : `${method} ${route}`

/** A request's server span, and the trace context it arrived with. */
export interface ServerSpan {
  readonly span: Tracer.Span
  readonly inbound: OtelContext
}

/**
 * Start the `http.server` span of a request: named from its route template, the child of the
 * inbound `traceparent` when it has a valid one, a new trace's root otherwise.
 */
export const startServerSpan = (
  telemetry: TelemetryService,
  method: string,
  route: string | undefined,
  headers: TraceContext.HeaderRecord,
  requestId: string | undefined
): ServerSpan => {
  const inbound = TraceContext.extract(headers)
  const remote = TraceContext.remoteOf(inbound)
  const span = telemetry.tracer.span(
    serverSpanName(method, route),
    remote === undefined ? Option.none() : Option.some(telemetry.externalSpan(remote)),
    Context.empty(),
    [],
    nowNanos(),
    "server",
    remote === undefined ? { root: true } : undefined
  )
  span.attribute("http.request.method", method)
  if (route !== undefined) span.attribute("http.route", route)
  if (requestId !== undefined) span.attribute("core.request_id", requestId)
  return { span, inbound }
}

/** The tenant of a request's caller on its span (`core.platform_id`, `core.organization_id`). */
export const recordCaller = (span: Tracer.Span, caller: Caller | undefined): void => {
  if (caller === undefined) return
  span.attribute("core.caller.kind", caller.kind)
  if (caller.kind === "service") return
  if (caller.platformId !== undefined && caller.platformId !== null) span.attribute("core.platform_id", caller.platformId)
  if (caller.organizationId !== null) span.attribute("core.organization_id", caller.organizationId)
}

/** What a failed request's span records: the envelope's code as the error (no stack, no values). */
class RequestFailed extends Error {
  constructor(code: string, status: number) {
    super(`${status} ${code}`)
    this.name = code
    this.stack = undefined
  }
}

/**
 * End a server span with the response status: a 5xx marks it an error carrying the envelope's code
 * (`core.error.code`, recorded where the envelope was made, else `error.type` the status), as OTel's
 * HTTP conventions ask.
 */
export const endServerSpan = (span: Tracer.Span, status: number): void => {
  span.attribute("http.response.status_code", status)
  if (status < 500) return span.end(nowNanos(), Exit.void)
  const code = span.attributes.get(ERROR_CODE)
  const type = typeof code === "string" ? code : String(status)
  span.attribute("error.type", type)
  span.end(nowNanos(), Exit.fail(new RequestFailed(type, status)))
}

/** Record the envelope code of a failure on the current span, if there is one (no cost otherwise beyond a lookup). */
export const recordErrorCode = (code: string): Effect.Effect<void> => Effect.annotateCurrentSpan(ERROR_CODE, code)

/** Callers whose answers are recorded on `span` (the tenant of the request). */
export const recordingCallers = (callers: Context.Tag.Service<Callers>, span: Tracer.Span): Context.Tag.Service<Callers> => ({
  ...callers,
  resolve: (request, options) => Effect.tap(callers.resolve(request, options), (caller) => Effect.sync(() => recordCaller(span, caller)))
})

/**
 * A catalogued route's program in its `http.server` span, started from the request's trace
 * context and ended with its status; the caller's tenant and the SQL it runs are recorded in it.
 */
export const inServerSpan = <E, R>(
  telemetry: TelemetryService,
  path: string,
  request: HttpServerRequest.HttpServerRequest,
  program: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): { readonly span: Tracer.Span; readonly program: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> } => {
  const { span } = startServerSpan(telemetry, request.method, templateOf(path), request.headers, requestIdOf(request))
  return {
    span,
    program: program.pipe(
      Effect.withParentSpan(span),
      Effect.onExit((exit) => Effect.sync(() => endServerSpan(span, Exit.isSuccess(exit) ? exit.value.status : 500)))
    )
  }
}

/** A route's program whose response (a failure as 500, as its span has it) and duration `metrics` record. */
const measuredIn = <E, R>(
  metrics: HttpServerMetrics,
  path: string,
  method: string,
  program: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  const started = performance.now()
  return Effect.onExit(program, (exit) =>
    Effect.sync(() => metrics.observe(path, method, Exit.isSuccess(exit) ? exit.value.status : 500, (performance.now() - started) / 1_000)))
}

/**
 * A catalogued route's program traced when `Telemetry` is where it runs (the `@effect/platform`
 * router's path: web handlers, `core-server serve`); as it is otherwise, after one lookup.
 */
export const traced = <E, R>(
  path: string,
  program: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.contextWithEffect((context: Context.Context<never>) => {
    const telemetry = context.unsafeMap.get(Telemetry.key) as TelemetryService | undefined
    const request = context.unsafeMap.get(HttpServerRequest.HttpServerRequest.key) as HttpServerRequest.HttpServerRequest | undefined
    if (request === undefined) return program
    const metrics = context.unsafeMap.get(ServerMetrics.key) as HttpServerMetrics | undefined
    const measured = metrics === undefined ? program : measuredIn(metrics, path, request.method, program)
    if (telemetry === undefined) return measured
    const inSpan = inServerSpan(telemetry, path, request, measured)
    const callers = context.unsafeMap.get(Callers.key) as Context.Tag.Service<Callers> | undefined
    return callers === undefined ? inSpan.program : Effect.provideService(inSpan.program, Callers, recordingCallers(callers, inSpan.span))
  })
