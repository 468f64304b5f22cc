import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Option } from "effect"
import { requestIdOf } from "./RequestId.js"

/** Who is calling, as established by the gateway (never read from unverified headers). */
export interface Identity {
  readonly userId?: string
  readonly role?: string
  readonly platformId?: string
}

/** What every part of a request's handling may know about it. */
export interface RequestContextData {
  readonly requestId: string
  readonly traceId?: string
  readonly identity?: Identity
}

/** The context of the request being handled. */
export class RequestContext extends Context.Tag("@core/kernel/RequestContext")<RequestContext, RequestContextData>() {}

const TRACE_ID = /^[0-9a-f]{32}$/
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
const ZERO_TRACE_ID = "0".repeat(32)

const validTraceId = (value: string | undefined): string | undefined =>
  value !== undefined && TRACE_ID.test(value) && value !== ZERO_TRACE_ID ? value : undefined

/** The trace id of a W3C `traceparent` header value, when it is well formed. */
export const traceIdOfTraceparent = (header: string): string | undefined => {
  const match = TRACEPARENT.exec(header.trim().toLowerCase())
  if (match === null || match[1] === "ff" || match[3] === "0000000000000000") return undefined
  return validTraceId(match[2])
}

/** The trace id of a request: the gateway's `X-Core-Trace-Id`, else the one in `traceparent`. */
export const traceIdOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const forwarded = validTraceId(request.headers["x-core-trace-id"]?.toLowerCase())
  if (forwarded !== undefined) return forwarded
  const traceparent = request.headers["traceparent"]
  return traceparent === undefined ? undefined : traceIdOfTraceparent(traceparent)
}

/** The context of a request: its request id (`RequestId.requestIdOf`), trace id, and a verified identity. */
export const fromRequest = (request: HttpServerRequest.HttpServerRequest, identity?: Identity): RequestContextData => {
  const traceId = traceIdOf(request)
  return {
    requestId: requestIdOf(request),
    ...(traceId === undefined ? {} : { traceId }),
    ...(identity === undefined ? {} : { identity })
  }
}

/** The current request's context, when there is one. */
export const current: Effect.Effect<Option.Option<RequestContextData>> = Effect.serviceOption(RequestContext)

/** Provide `RequestContext` from the current `HttpServerRequest` (with an identity, once verified). */
export const provide = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  identity?: Identity
): Effect.Effect<A, E, Exclude<R, RequestContext> | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.provideService(self, RequestContext, fromRequest(request, identity)))

/** Run `self` with the identity set on the current request context. */
export const withIdentity = (identity: Identity) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | RequestContext> =>
  Effect.updateService(self, RequestContext, (context) => ({ ...context, identity }))

/** Middleware that provides `RequestContext` to an app (so its logs carry the request and trace ids). */
export const middleware: HttpMiddleware.HttpMiddleware = HttpMiddleware.make((app) => provide(app))
