import type { Headers } from "@effect/platform"
import { HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { type CoreError, ErrorResponse, ForwardedIdentity, type UpstreamTimeout, type UpstreamUnavailable } from "@core/kernel"
import { Cause, Clock, Context, DefaultServices, Effect, Exit, FiberRef, FiberRefs, Option, Runtime } from "effect"
import * as http from "node:http"
import { forwardHeaders } from "../Forwarding.js"
import type { GatewayOptions } from "../Gateway.js"
import * as Inbound from "../Inbound.js"
import * as Metrics from "../Metrics.js"
import {
  elapsedMillis,
  enter,
  type Exchange,
  finish,
  type Frame,
  type Head,
  logRequest,
  logsRequests,
  makeFrame,
  ordered,
  type Verdict
} from "../Middleware.js"
import * as OpenApiDocument from "../OpenApiDocument.js"
import * as RouteRules from "../RouteRules.js"
import { ROUTES, targetOf } from "../Routes.js"
import { type NodeForwarding, type NodeHandler, nodeHandler, onRewritten, type Upstream } from "../Upstream.js"
import { envelopeOf, notFoundApp, rendererOf, router, served } from "./routing.js"

/** A request listener for `node:http` (`http.createServer(listener)`). */
export type NodeListener = (request: http.IncomingMessage, response: http.ServerResponse) => void

/** An upstream's Node path: its own, or its `forward` run by `@effect/platform-node` on the rewritten request. */
const nodeHandlerOf = (upstream: Upstream): Effect.Effect<NodeHandler> => {
  const { node } = upstream
  if (node !== undefined) return Effect.succeed(node)
  return Effect.map(nodeHandler(served(Effect.flatMap(HttpServerRequest.HttpServerRequest, upstream.forward))), onRewritten)
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
    readonly reporter: Reporter,
    readonly renderer: ErrorResponse.Renderer | undefined
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
    this.frame.errorCode = ErrorResponse.describe(error).code
    writeRefusal(this.response, error, this.frame.requestId, this.renderer)
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
 * Write a refusal (a kernel error): its envelope, or the body the routed service's protocol gives
 * it (`GatewayOptions.renderers`: the vault's JSON-RPC error). Renderers answer bytes.
 */
const writeRefusal = (
  response: http.ServerResponse,
  error: CoreError,
  requestId: string,
  renderer: ErrorResponse.Renderer | undefined
) => {
  if (renderer === undefined) return writeEnvelope(response, ErrorResponse.describe(error), requestId)
  const rendered = ErrorResponse.renderError(renderer, error, requestId)
  const body = rendered.body
  if (body._tag !== "Uint8Array") return writeEnvelope(response, ErrorResponse.describe(error), requestId)
  response.writeHead(rendered.status, {
    ...rendered.headers,
    "content-type": body.contentType,
    "content-length": body.body.byteLength
  })
  response.end(body.body)
}

/** `Gateway.listener`, whose documentation says what it does. */
export const listener = (options: GatewayOptions): Effect.Effect<NodeListener> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runFork(runtime)
    const clock = Context.get(FiberRefs.getOrDefault(runtime.fiberRefs, DefaultServices.currentServices), Clock.Clock)
    const logs = logsRequests(FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel))
    const guards = ordered(options.guards)
    const upstreams = options.upstreams ?? []
    const routes = options.routes ?? ROUTES
    const rules = options.routeRules ?? RouteRules.compile(RouteRules.MOUNTS, routes)
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
        metrics?.observeRequest(Metrics.routeOf(flight.frame.rule.path, flight.frame.pathname), flight.method, status, durationMs / 1_000)
        for (const work of followUp) run(work)
        if (logs) run(logRequest(flight.method, flight.frame, status, durationMs))
      }
    }

    const refuse = (request: http.IncomingMessage, response: http.ServerResponse, frame: Frame, cause: Cause.Cause<unknown>) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure) && ErrorResponse.isCoreError(failure.value)) {
        return writeRefusal(response, failure.value, frame.requestId, rendererOf(options.renderers, frame))
      }
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
          return writeRefusal(response, routed.error, frame.requestId, flight.renderer)
        case "Upstream": {
          flight.url = routed.match.url
          flight.headers = forwardHeaders(request.headers as Headers.Headers, routed.match.route.prefix, frame.upstreamHeaders)
          if (frame.caller !== undefined && routed.upstream.callerByValue) ForwardedIdentity.handOver(flight.headers, frame.caller)
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
      const requestId = Inbound.adopt(headers)
      const url = request.url ?? "/"
      const method = request.method ?? "GET"
      const target = targetOf(url)
      const frame = makeFrame(requestId, method, target, routes, rules)
      const flight = new InFlight(request, response, frame, method, start, reporter, rendererOf(options.renderers, frame))
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
