import { Headers, type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { ErrorResponse, NotFound, RequestContext, type UpstreamTimeout, UpstreamUnavailable } from "@core/kernel"
import { Cause, Clock, Context, DefaultServices, Effect, Exit, FiberRef, FiberRefs, Option, Runtime, type Scope } from "effect"
import * as http from "node:http"
import { forwardHeaders, rewrite } from "./Forwarding.js"
import * as Inbound from "./Inbound.js"
import * as Metrics from "./Metrics.js"
import {
  type Answer,
  describeRefusal,
  elapsedMillis,
  enter,
  type Exchange,
  finish,
  type Frame,
  type GatewayApp,
  type Guards,
  type Head,
  logRequest,
  logsRequests,
  makeFrame,
  ordered,
  toEffect,
  type Verdict
} from "./Middleware.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import { API_BASE, isUnder, type Match, matchTarget, ROUTES, type Route, type ServiceName, targetOf } from "./Routes.js"
import { type NodeForwarding, type NodeHandler, nodeHandler, type Upstream } from "./Upstream.js"

/** What a gateway is made of. */
export interface GatewayOptions {
  /** The upstreams by service; a later one for the same service replaces an earlier one. */
  readonly upstreams?: ReadonlyArray<Upstream>
  /** The routing table. @default ROUTES */
  readonly routes?: ReadonlyArray<Route>
  /** Answers the requests outside `/api/v1` (`/health`, `/ready`, pages). @default 404 `NOT_FOUND` */
  readonly fallback?: GatewayApp
  /** Chain steps 6 to 10. */
  readonly guards?: Guards
  /** Request counts and latencies, observed as each response's head is sent. */
  readonly metrics?: Metrics.Metrics
}

/** Where the router sends a request once the guards let it through. */
type Routed =
  | { readonly _tag: "OpenApi" }
  | { readonly _tag: "Fallback" }
  | { readonly _tag: "Upstream"; readonly upstream: Upstream; readonly match: Match }
  | { readonly _tag: "Refused"; readonly error: NotFound | UpstreamUnavailable }

const OPENAPI: Routed = { _tag: "OpenApi" }
const FALLBACK: Routed = { _tag: "Fallback" }

const notFound = (pathname: string) => new NotFound({ message: `No route for ${pathname}` })

/**
 * The routing step: `/api/v1/openapi.json` is the merged document, `/api/v1/*` goes to the
 * upstream of the longest matching prefix (an unknown prefix is 404 `NOT_FOUND`, a known one
 * without an upstream 502 `UPSTREAM_UNAVAILABLE`), everything else to the fallback.
 */
const router = (upstreams: ReadonlyArray<Upstream>) => {
  const byService = new Map<ServiceName, Upstream>(upstreams.map((upstream) => [upstream.service, upstream]))
  return (frame: Frame): Routed => {
    const { match: found, pathname } = frame
    if (pathname === OpenApiDocument.PATH) return OPENAPI
    if (!isUnder(pathname, API_BASE)) return FALLBACK
    if (found === undefined) return { _tag: "Refused", error: notFound(pathname) }
    const upstream = byService.get(found.route.service)
    if (upstream === undefined) {
      const service = found.route.service
      return { _tag: "Refused", error: new UpstreamUnavailable({ message: `The ${service} service is not available`, upstream: service }) }
    }
    return { _tag: "Upstream", upstream, match: found }
  }
}

const isRouteNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound"

/** Any failure as its envelope (a router's `RouteNotFound` as 404 naming the path, defects 500). */
const envelopeOf = (cause: Cause.Cause<unknown>, pathname: string, request: HttpServerRequest.HttpServerRequest) =>
  ErrorResponse.handleCause(
    Cause.map(cause, (error) => (isRouteNotFound(error) ? notFound(pathname) : error))
  ).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))

const notFoundApp: GatewayApp = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (request) => Effect.fail(notFound(targetOf(request.url).pathname))
)

/** An app with its failures as envelopes (its log lines take the request's ids from it, see `Logging`). */
const served = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.catchAllCause(app, (cause) => envelopeOf(cause, targetOf(request.url).pathname, request)))

/**
 * The head of an `@effect/platform` response, amended in place: headers set on top of the
 * response; a removal (rare: `X-Core-Invalidate`) rebuilds it around the same body.
 */
const platformHead = (response: HttpServerResponse.HttpServerResponse) => {
  let headers = response.headers
  let removed = false
  const head: Head = {
    status: response.status,
    get: (name) => headers[name],
    has: (name) => headers[name] !== undefined,
    set: (name, value) => {
      headers = Headers.set(headers, name, value)
    },
    remove: (name) => {
      headers = Headers.remove(headers, name)
      removed = true
    }
  }
  const build = () =>
    removed
      ? HttpServerResponse.setBody(
        HttpServerResponse.empty({
          status: response.status,
          ...(response.statusText === undefined ? {} : { statusText: response.statusText }),
          headers,
          cookies: response.cookies
        }),
        response.body
      )
      : HttpServerResponse.setHeaders(response, headers)
  return { head, build }
}

const answerResponse = (answer: Answer) => HttpServerResponse.empty({ status: answer.status, headers: answer.headers })

/**
 * The gateway as an `@effect/platform` app, for hosts that embed it (`HttpApp.toWebHandler`,
 * another Effect server): the same chain, guards and routing as `listener`, with each request's
 * `HttpServerRequest` and `RequestContext` provided inside. `core-server start` serves `listener`.
 *
 * @example
 * const app = Gateway.make({ upstreams: [Upstream.fromWebHandler("IAM", iam.fetch)] })
 */
export const make = (options: GatewayOptions = {}): HttpApp.Default<never, Scope.Scope> => {
  const guards = ordered(options.guards)
  const routes = options.routes ?? ROUTES
  const route = router(options.upstreams ?? [])
  const fallback = options.fallback ?? notFoundApp
  const metrics = options.metrics
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (raw) => {
    const start = performance.now()
    const { requestId, request } = Inbound.of(raw)
    const target = targetOf(raw.url)
    const pathname = target.pathname
    const frame = makeFrame(requestId, pathname, matchTarget(routes, target))
    const entered = Effect.clockWith((clock) => {
      const exchange: Exchange = {
        method: request.method,
        url: request.url,
        headers: request.headers,
        remoteAddress: Option.getOrUndefined(request.remoteAddress),
        now: clock.unsafeCurrentTimeMillis()
      }
      return toEffect(enter(guards, exchange, frame))
    })
    const inner = Effect.flatMap(entered, (answer): GatewayApp => {
      if (answer !== undefined) return Effect.succeed(answerResponse(answer))
      const routed = route(frame)
      const app: GatewayApp = routed._tag === "OpenApi"
        ? OpenApiDocument.route
        : routed._tag === "Fallback"
        ? fallback
        : routed._tag === "Refused"
        ? Effect.fail(routed.error)
        : routed.upstream.forward(rewrite(request, routed.match, frame.upstreamHeaders))
      return frame.traceId === undefined ? app : Effect.annotateLogs(app, "traceId", frame.traceId)
    })
    const context = Context.make(HttpServerRequest.HttpServerRequest, request).pipe(
      Context.add(RequestContext.RequestContext, RequestContext.fromRequest(request))
    )
    return Effect.provide(inner, context).pipe(
      Effect.catchAllCause((cause) => envelopeOf(cause, pathname, request)),
      Effect.flatMap((response) => {
        const { build, head } = platformHead(response)
        const durationMs = elapsedMillis(start)
        const followUp = finish(frame, head, durationMs)
        const finished = build()
        metrics?.observeRequest(Metrics.routeLabel(pathname), raw.method, finished.status, durationMs / 1_000)
        const logged = Effect.flatMap(
          FiberRef.get(FiberRef.currentMinimumLogLevel),
          (minimum) => (logsRequests(minimum) ? logRequest(raw.method, frame, finished.status, durationMs) : Effect.void)
        )
        return Effect.as(Effect.zipRight(Effect.all(followUp, { discard: true }), logged), finished)
      })
    )
  })
}

/** A request listener for `node:http` (`http.createServer(listener)`). */
export type NodeListener = (request: http.IncomingMessage, response: http.ServerResponse) => void

/** An upstream's Node path: its own, or its `forward` run by `@effect/platform-node` on the rewritten request. */
const nodeHandlerOf = (upstream: Upstream): Effect.Effect<NodeHandler> => {
  const { node } = upstream
  if (node !== undefined) return Effect.succeed(node)
  return Effect.map(nodeHandler(served(Effect.flatMap(HttpServerRequest.HttpServerRequest, upstream.forward))), (handler) =>
    (request, response, forwarding) => {
      request.url = forwarding.url
      request.headers = forwarding.headers
      handler(request, response)
    })
}

/** What the Node listener does once a request's head is known. */
interface Reporter {
  readonly report: (flight: InFlight, status: number, durationMs: number, followUp: ReadonlyArray<Effect.Effect<void>>) => void
}

const FLIGHT = Symbol.for("@core/gateway/InFlight")

type Tagged = http.ServerResponse & { [FLIGHT]?: InFlight }

const nodeWriteHead = http.ServerResponse.prototype.writeHead as (this: http.ServerResponse, ...args: Array<unknown>) => http.ServerResponse

/**
 * One request on the Node listener. While its head is written it is the `Head` the guards' hooks
 * amend (one headers object, Node's fast path); it is also the `NodeForwarding` its upstream gets.
 * A class, so that a request allocates no closures.
 */
class InFlight implements Head, NodeForwarding {
  status = 0
  headers: Record<string, string> = {}
  url = ""
  private written: http.OutgoingHttpHeaders = {}

  constructor(
    readonly request: http.IncomingMessage,
    readonly response: http.ServerResponse,
    readonly frame: Frame,
    readonly method: string,
    readonly start: number,
    readonly reporter: Reporter
  ) {}

  get requestId() {
    return this.frame.requestId
  }

  get(name: string) {
    const value = this.written[name] ?? this.response.getHeader(name)
    return value === undefined ? undefined : String(value)
  }

  has(name: string) {
    return this.written[name] !== undefined || this.response.hasHeader(name)
  }

  set(name: string, value: string) {
    this.written[name] = value
  }

  remove(name: string) {
    delete this.written[name]
    this.response.removeHeader(name)
  }

  fail(error: UpstreamUnavailable | UpstreamTimeout) {
    writeEnvelope(this.response, ErrorResponse.describe(error), this.frame.requestId)
  }

  /** Write the head: the given headers, the frame's and the hooks', then the gateway's own. */
  writeHead(status: number, given: unknown, reason: string | undefined): http.ServerResponse {
    this.status = status
    const written: http.OutgoingHttpHeaders = {}
    if (typeof given === "object" && given !== null && !Array.isArray(given)) {
      const record = given as http.OutgoingHttpHeaders
      for (const name in record) written[name] = record[name]
    }
    this.written = written
    const durationMs = elapsedMillis(this.start)
    const followUp = finish(this.frame, this, durationMs)
    this.reporter.report(this, status, durationMs, followUp)
    return reason === undefined
      ? nodeWriteHead.call(this.response, status, written)
      : nodeWriteHead.call(this.response, status, reason, written)
  }
}

/** `writeHead` of a response the gateway answers (Node also calls it for an implicit head). */
function gatewayWriteHead(this: Tagged, status: number, reason?: unknown, headers?: unknown): http.ServerResponse {
  const flight = this[FLIGHT]!
  return typeof reason === "string" ? flight.writeHead(status, headers, reason) : flight.writeHead(status, reason, undefined)
}

const JSON_TYPE = "application/json"

/** Write a refusal's envelope straight to Node (the kernel's table, the same body as `make`'s). */
const writeEnvelope = (response: http.ServerResponse, description: ErrorResponse.ErrorDescription, requestId: string) => {
  const body = JSON.stringify(ErrorResponse.envelope(description, requestId))
  response.writeHead(description.status, {
    ...description.headers,
    "content-type": JSON_TYPE,
    "content-length": Buffer.byteLength(body)
  })
  response.end(body)
}

/**
 * The gateway as a `node:http` request listener: what `core-server start` serves. The same chain,
 * guards and routing as `make`, run on Node's own request and response: the guards' effects run
 * once per request (synchronously when nothing waits on Redis or the identity service), upstreams
 * with a Node path (`HttpUpstream`) stream straight between sockets, and in-process apps, the
 * fallback and the OpenAPI document run through `@effect/platform-node` on the rewritten request.
 * Built in an effect because it keeps the runtime it is built in (logger, log level, clock).
 *
 * @example
 * const listener = yield* Gateway.listener({ upstreams })
 * http.createServer(listener).listen(8080)
 */
export const listener = (options: GatewayOptions = {}): Effect.Effect<NodeListener> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runFork(runtime)
    const clock = Context.get(FiberRefs.getOrDefault(runtime.fiberRefs, DefaultServices.currentServices), Clock.Clock)
    const logs = logsRequests(FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel))
    const guards = ordered(options.guards)
    const upstreams = options.upstreams ?? []
    const routes = options.routes ?? ROUTES
    const route = router(upstreams)
    const metrics = options.metrics
    const handlers = new Map<Upstream, NodeHandler>()
    for (const upstream of upstreams) handlers.set(upstream, yield* nodeHandlerOf(upstream))
    const openApi = yield* nodeHandler(served(OpenApiDocument.route))
    const fallback = yield* nodeHandler(served(options.fallback ?? notFoundApp))
    const failures = new WeakMap<http.IncomingMessage, Cause.Cause<unknown>>()
    const crashed = yield* nodeHandler(
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const cause = failures.get(NodeHttpServerRequest.toIncomingMessage(request)) ?? Cause.empty
        return envelopeOf(cause, targetOf(request.url).pathname, request)
      })
    )

    const reporter: Reporter = {
      report: (flight, status, durationMs, followUp) => {
        metrics?.observeRequest(Metrics.routeLabel(flight.frame.pathname), flight.method, status, durationMs / 1_000)
        for (const work of followUp) run(work)
        if (logs) run(logRequest(flight.method, flight.frame, status, durationMs))
      }
    }

    const refuse = (request: http.IncomingMessage, response: http.ServerResponse, frame: Frame, cause: Cause.Cause<unknown>) => {
      const failure = Cause.failureOption(cause)
      const description = Option.isSome(failure) ? describeRefusal(failure.value) : undefined
      if (description !== undefined) return writeEnvelope(response, description, frame.requestId)
      failures.set(request, cause)
      crashed(request, response)
    }

    const dispatch = (flight: InFlight, url: string) => {
      const { frame, request, response } = flight
      const routed = route(frame)
      switch (routed._tag) {
        case "OpenApi":
          return openApi(request, response)
        case "Fallback":
          return fallback(request, response)
        case "Refused":
          return writeEnvelope(response, ErrorResponse.describe(routed.error), frame.requestId)
        case "Upstream": {
          flight.url = routed.match.url
          flight.headers = forwardHeaders(request.headers as Headers.Headers, routed.match.route.prefix, frame.upstreamHeaders)
          return handlers.get(routed.upstream)!(request, response, flight)
        }
      }
    }

    const settle = (flight: InFlight, url: string, answer: Verdict) => {
      if (answer === undefined) return dispatch(flight, url)
      flight.response.writeHead(answer.status, answer.headers)
      flight.response.end()
    }

    return (request, response) => {
      const start = performance.now()
      const headers = request.headers
      for (const name in headers) {
        if (name.startsWith("x-core-")) delete headers[name]
      }
      const requestId = Inbound.requestIdFrom(headers as Headers.Headers)
      headers["x-request-id"] = requestId
      headers["x-core-request-id"] = requestId
      const url = request.url ?? "/"
      const method = request.method ?? "GET"
      const target = targetOf(url)
      const frame = makeFrame(requestId, target.pathname, matchTarget(routes, target))
      const flight = new InFlight(request, response, frame, method, start, reporter)
      ;(response as Tagged)[FLIGHT] = flight
      response.writeHead = gatewayWriteHead as typeof response.writeHead
      const exchange: Exchange = {
        method,
        url,
        headers: headers as Headers.Headers,
        remoteAddress: request.socket.remoteAddress,
        now: clock.unsafeCurrentTimeMillis()
      }
      try {
        const verdict = enter(guards, exchange, frame)
        if (!Effect.isEffect(verdict)) return settle(flight, url, verdict)
        run(verdict).addObserver((exit) =>
          Exit.isSuccess(exit) ? settle(flight, url, exit.value) : refuse(request, response, frame, exit.cause)
        )
      } catch (defect) {
        if (!response.headersSent) refuse(request, response, frame, Cause.die(defect))
      }
    }
  })
