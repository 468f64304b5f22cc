import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ErrorResponse, NotFound, RequestContext } from "@core/kernel"
import { Cause, Context, Effect, FiberRef, LogLevel, Option, type Scope } from "effect"
import * as Inbound from "./Inbound.js"
import * as Metrics from "./Metrics.js"
import { targetOf } from "./Routes.js"

/** An app inside the gateway: it may fail with anything; the chain turns failures into envelopes. */
export type GatewayApp = HttpApp.Default<unknown, Scope.Scope>

/** One step of the chain: it wraps the steps after it. */
export type GatewayMiddleware = (app: GatewayApp) => GatewayApp

/**
 * The steps that later issues supply, in the seed's order (6 rate limiter, 7 CORS, 8 tracing,
 * 9 authentication, 10 suspension). A step left out lets requests through unchanged.
 */
export interface Guards {
  readonly rateLimiter?: GatewayMiddleware
  readonly cors?: GatewayMiddleware
  readonly tracing?: GatewayMiddleware
  readonly authentication?: GatewayMiddleware
  readonly suspension?: GatewayMiddleware
}

/**
 * Set on every response, errors included. `Referrer-Policy` is `strict-origin-when-cross-origin`
 * rather than `no-referrer` so that form posts from Core's own pages keep their `Origin`
 * (docs/decisions/0041).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin"
}

const isRouteNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound"

/**
 * What the steps of one request share, so that they need not each wrap the response: the request
 * id and normalized path, the response headers guards add (set on the final response, error
 * envelopes included, unless it has its own), the headers they add for the upstream (`undefined`
 * removes one), and what to do once the response is known.
 */
export interface Frame {
  readonly requestId: string
  readonly pathname: string
  readonly responseHeaders: Record<string, string>
  readonly upstreamHeaders: Record<string, string | undefined>
  readonly after: Array<(response: HttpServerResponse.HttpServerResponse) => Effect.Effect<HttpServerResponse.HttpServerResponse>>
}

/** The frame of the current request, provided by the chain's outer step. */
export class CurrentFrame extends Context.Tag("@core/gateway/Frame")<CurrentFrame, Frame>() {}

/** Run `f` with the current frame; a guard used outside `chain` is a programming error (a defect). */
export const withFrame = <A, E, R>(f: (frame: Frame) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    Effect.serviceOption(CurrentFrame),
    (frame) => (Option.isSome(frame) ? f(frame.value) : Effect.dieMessage("a gateway guard runs only inside Middleware.chain"))
  )

const finish = (response: HttpServerResponse.HttpServerResponse, frame: Frame, durationMs: number) => {
  const headers: Record<string, string> = {}
  for (const name in frame.responseHeaders) {
    if (response.headers[name] === undefined) headers[name] = frame.responseHeaders[name]
  }
  Object.assign(headers, SECURITY_HEADERS)
  headers["x-request-id"] = frame.requestId
  headers["server-timing"] = `total;dur=${durationMs}`
  return HttpServerResponse.setHeaders(response, headers)
}

const runAfter = (frame: Frame, response: HttpServerResponse.HttpServerResponse) => {
  if (frame.after.length === 0) return Effect.succeed(response)
  let current: Effect.Effect<HttpServerResponse.HttpServerResponse> = Effect.succeed(response)
  for (const hook of frame.after) current = Effect.flatMap(current, hook)
  return current
}

/**
 * Steps 1 to 5 as one: the request id is fixed (a valid `X-Request-Id`, else a new UUID; client
 * `X-Core-*` headers dropped; the kernel's `RequestContext` provided), every failure becomes the
 * envelope (a router's `RouteNotFound` 404, defects 500), then the final response gets the guards'
 * headers, the security headers, `X-Request-Id` and `Server-Timing`, is counted in the metrics and
 * logged once (`request` with `method`, `path` without the query, `status`, `durationMs`,
 * `requestId`). One frame per request instead of a wrapper per step keeps the chain cheap.
 */
export const frame = (metrics?: Metrics.Metrics) =>
<R>(app: HttpApp.Default<unknown, R>): HttpApp.Default<never, Exclude<R, CurrentFrame | RequestContext.RequestContext> | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (raw) => {
    const inbound = Inbound.of(raw)
    const state: Frame = {
      requestId: inbound.requestId,
      pathname: targetOf(raw.url).pathname,
      responseHeaders: {},
      upstreamHeaders: {},
      after: []
    }
    const start = performance.now()
    const context = Context.make(CurrentFrame, state).pipe(
      Context.add(HttpServerRequest.HttpServerRequest, inbound.request),
      Context.add(RequestContext.RequestContext, RequestContext.fromRequest(inbound.request))
    )
    return Effect.provide(app, context).pipe(
      Effect.catchAllCause((cause) => envelopeOf(cause, state.pathname, inbound.request)),
      Effect.flatMap((response) => runAfter(state, response)),
      Effect.flatMap((response) => {
        const seconds = (performance.now() - start) / 1_000
        const durationMs = Math.round(seconds * 1_000_000) / 1_000
        const finished = finish(response, state, durationMs)
        metrics?.observeRequest(Metrics.routeLabel(state.pathname), raw.method, finished.status, seconds)
        return Effect.as(logRequest(raw.method, state, finished.status, durationMs), finished)
      })
    ) as HttpApp.Default<never, Exclude<R, CurrentFrame | RequestContext.RequestContext> | HttpServerRequest.HttpServerRequest>
  })

const envelopeOf = (cause: Cause.Cause<unknown>, pathname: string, request: HttpServerRequest.HttpServerRequest) =>
  ErrorResponse.handleCause(
    Cause.map(cause, (error) => (isRouteNotFound(error) ? new NotFound({ message: `No route for ${pathname}` }) : error))
  ).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))

const logRequest = (method: string, state: Frame, status: number, durationMs: number): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(FiberRef.currentMinimumLogLevel), (minimum) =>
    LogLevel.greaterThan(minimum, LogLevel.Info)
      ? Effect.void
      : Effect.logInfo("request").pipe(
        Effect.annotateLogs({ method, path: state.pathname, status, durationMs, requestId: state.requestId })
      ))

/**
 * The whole chain around an app, in the seed's order: steps 1 to 5 (`frame`: security headers,
 * error envelope, request id, request logger, timing, and the request metrics when given), then
 * the guards 6 to 10. A guard fails to refuse; its failure becomes the envelope and still gets
 * the headers earlier steps put in the frame.
 */
export const chain = (app: GatewayApp, guards: Guards = {}, metrics?: Metrics.Metrics): HttpApp.Default<never, Scope.Scope> => {
  const steps = [guards.rateLimiter, guards.cors, guards.tracing, guards.authentication, guards.suspension]
  const guarded = steps.reduceRight<GatewayApp>((inner, step) => (step === undefined ? inner : step(inner)), app)
  return frame(metrics)(guarded)
}
