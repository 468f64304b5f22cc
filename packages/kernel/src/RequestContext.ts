import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Option } from "effect"
import type { Caller } from "./Caller.js"
import { requestIdOf } from "./RequestId.js"
import * as TraceContext from "./TraceContext.js"

/** What every part of a request's handling may know about it. */
export interface RequestContextData {
  readonly requestId: string
  readonly traceId?: string
  /** The caller, once resolved (the kernel's one `Caller`; never read from unverified headers). */
  readonly caller?: Caller
  /** The client's address: the socket's, or the first `X-Forwarded-For` one behind a trusted proxy. */
  readonly ip?: string | null
  /** The client's `User-Agent`, at most 512 characters. */
  readonly userAgent?: string | null
}

/** The context of the request being handled. */
export class RequestContext extends Context.Tag("@core/kernel/RequestContext")<RequestContext, RequestContextData>() {}

/** The facts an audit entry records about a request, so that domain code never reads HTTP. */
export interface RequestFacts {
  readonly ip: string | null
  readonly userAgent: string | null
  readonly requestId: string | null
}

/** No request: a background job, a command, a test. */
export const NO_FACTS: RequestFacts = { ip: null, userAgent: null, requestId: null }

const firstForwarded = (header: string | undefined): string | undefined => {
  const first = header?.split(",")[0]?.trim()
  return first === undefined || first === "" ? undefined : first
}

/** The client address of a request (`X-Forwarded-For` only when `trustProxy`). */
export const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string | null =>
  (trustProxy ? firstForwarded(request.headers["x-forwarded-for"]) : undefined) ?? Option.getOrNull(request.remoteAddress)

/** The audit facts of a request. */
export const factsOf = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): RequestFacts => ({
  ip: clientIp(request, trustProxy),
  userAgent: request.headers["user-agent"]?.slice(0, 512) ?? null,
  requestId: requestIdOf(request)
})

/** The facts of the request being handled (from `RequestContext`), or `NO_FACTS` outside one. */
export const facts: Effect.Effect<RequestFacts> = Effect.map(
  Effect.serviceOption(RequestContext),
  Option.match({
    onNone: () => NO_FACTS,
    onSome: (context) => ({ ip: context.ip ?? null, userAgent: context.userAgent ?? null, requestId: context.requestId })
  })
)


const TRACE_ID = /^[0-9a-f]{32}$/
const ZERO_TRACE_ID = "0".repeat(32)

const validTraceId = (value: string | undefined): string | undefined =>
  value !== undefined && TRACE_ID.test(value) && value !== ZERO_TRACE_ID ? value : undefined

/** The trace id of a W3C `traceparent` header value, when it is well formed (read by the one propagator, `TraceContext`). */
export const traceIdOfTraceparent = (header: string): string | undefined =>
  TraceContext.parse(header.trim().toLowerCase())?.traceId

/** The trace id of a request: the gateway's `X-Core-Trace-Id`, else the one in `traceparent`. */
export const traceIdOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const forwarded = validTraceId(request.headers["x-core-trace-id"]?.toLowerCase())
  if (forwarded !== undefined) return forwarded
  const traceparent = request.headers["traceparent"]
  return traceparent === undefined ? undefined : traceIdOfTraceparent(traceparent)
}

/**
 * The context of a request: its request id (`RequestId.requestIdOf`), trace id, client address and
 * user agent (`trustProxy` reads the address from `X-Forwarded-For`), and the caller once resolved.
 */
export const fromRequest = (
  request: HttpServerRequest.HttpServerRequest,
  caller?: Caller,
  trustProxy = false
): RequestContextData => {
  const traceId = traceIdOf(request)
  const facts = factsOf(request, trustProxy)
  return {
    requestId: facts.requestId!,
    ...(traceId === undefined ? {} : { traceId }),
    ...(caller === undefined ? {} : { caller }),
    ip: facts.ip,
    userAgent: facts.userAgent
  }
}

/** Whether a known context is whole (it has the client's address), so that a route keeps it as it is. */
export const isComplete = (known: Option.Option<RequestContextData>): boolean =>
  Option.isSome(known) && known.value.ip !== undefined

/**
 * The context a route runs a request in: a whole one already known is kept; else it is made from
 * the request, with the caller a known one carries (`trustProxy` as configured).
 */
export const ofRequest = (
  request: HttpServerRequest.HttpServerRequest,
  known: Option.Option<RequestContextData>,
  trustProxy: boolean
): RequestContextData => {
  if (Option.isNone(known)) return fromRequest(request, undefined, trustProxy)
  return known.value.ip !== undefined ? known.value : fromRequest(request, known.value.caller, trustProxy)
}

/** The current request's context, when there is one. */
export const current: Effect.Effect<Option.Option<RequestContextData>> = Effect.serviceOption(RequestContext)

/** Provide `RequestContext` from the current `HttpServerRequest` (with the caller, once resolved). */
export const provide = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  caller?: Caller
): Effect.Effect<A, E, Exclude<R, RequestContext> | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.provideService(self, RequestContext, fromRequest(request, caller)))

/** Run `self` with the caller set on the current request context. */
export const withCaller = (caller: Caller) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | RequestContext> =>
  Effect.updateService(self, RequestContext, (context) => ({ ...context, caller }))

/** Middleware that provides `RequestContext` to an app (so its logs carry the request and trace ids). */
export const middleware: HttpMiddleware.HttpMiddleware = HttpMiddleware.make((app) => provide(app))
