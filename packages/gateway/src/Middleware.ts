import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ErrorResponse, NotFound, RequestContext } from "@core/kernel"
import { Cause, Clock, Effect, type Scope } from "effect"
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

/** Step 1: the security headers on every response. */
export const securityHeaders = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.map(app, (response) => HttpServerResponse.setHeaders(response, SECURITY_HEADERS))

const isRouteNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound"

/**
 * Step 2: every failure becomes the error envelope carrying the gateway's request id; a router's
 * `RouteNotFound` becomes 404 `NOT_FOUND`, defects 500 `INTERNAL_ERROR`. The chain applies it
 * after every step, so each outer step sees the final response, as the seed's error handler does.
 */
export const errorEnvelope = <E, R>(
  app: HttpApp.Default<E, R>
): HttpApp.Default<never, R> =>
  Effect.catchAllCause(app, (cause) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      ErrorResponse.handleCause(
        Cause.map(cause, (error) =>
          isRouteNotFound(error)
            ? new NotFound({ message: `No route for ${targetOf(request.url).pathname}` })
            : error)
      ).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, Inbound.of(request).request))))

/**
 * Step 3: the request id (a valid `X-Request-Id`, else a new UUID) is fixed, client `X-Core-*`
 * headers are dropped, the kernel's `RequestContext` is provided (so every log line inside
 * carries the id), and the id is echoed as the response's `X-Request-Id`.
 */
export const requestId = <E, R>(
  app: HttpApp.Default<E, R>
): HttpApp.Default<E, Exclude<R, RequestContext.RequestContext>> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const inbound = Inbound.of(request)
    return RequestContext.provide(app).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, inbound.request),
      Effect.map((response) => HttpServerResponse.setHeader(response, "x-request-id", inbound.requestId))
    )
  })

const elapsedMillis = (startNanos: bigint): Effect.Effect<number> =>
  Effect.map(Clock.currentTimeNanos, (now) => Math.round(Number(now - startNanos) / 1_000) / 1_000)

/**
 * Step 4: one log line per request, `request` annotated with `method`, `path` (without the query,
 * which may carry tokens), `status`, `durationMs` and `requestId`.
 */
export const requestLogger = <R>(app: HttpApp.Default<never, R>): HttpApp.Default<never, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(Clock.currentTimeNanos, (start) =>
      Effect.tap(app, (response) =>
        Effect.flatMap(elapsedMillis(start), (durationMs) =>
          Effect.logInfo("request").pipe(
            Effect.annotateLogs({
              method: request.method,
              path: targetOf(request.url).pathname,
              status: response.status,
              durationMs,
              requestId: Inbound.of(request).requestId
            })
          )))))

/** Step 5: `Server-Timing: total;dur=<ms>` on every response. */
export const timing = <R>(app: HttpApp.Default<never, R>): HttpApp.Default<never, R> =>
  Effect.flatMap(Clock.currentTimeNanos, (start) =>
    Effect.flatMap(app, (response) =>
      Effect.map(elapsedMillis(start), (durationMs) =>
        HttpServerResponse.setHeader(response, "server-timing", `total;dur=${durationMs}`))))

/**
 * The whole chain around an app, in the seed's order: security headers, error envelope,
 * request id, request logger, timing (with the request metrics when given), then the guards.
 */
export const chain = (app: GatewayApp, guards: Guards = {}, metrics?: Metrics.Metrics): HttpApp.Default<never, Scope.Scope> => {
  const steps = [guards.rateLimiter, guards.cors, guards.tracing, guards.authentication, guards.suspension]
  const guarded = steps.reduceRight<HttpApp.Default<never, Scope.Scope>>(
    (inner, step) => (step === undefined ? inner : errorEnvelope(step(inner))),
    errorEnvelope(app)
  )
  const measured = metrics === undefined ? guarded : Metrics.middleware(metrics)(guarded)
  return securityHeaders(errorEnvelope(requestId(requestLogger(timing(measured)))))
}
