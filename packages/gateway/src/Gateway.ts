import { Headers, type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { CoreConfig, ForwardedIdentity, RequestContext } from "@core/kernel"
import { Context, Effect, FiberRef, Option, type Scope } from "effect"
import { rewrite } from "./Forwarding.js"
import * as Inbound from "./Inbound.js"
import { listener as nodeListener, type NodeListener } from "./internal/nodeListener.js"
import { envelopeOf, notFoundApp, type PathRenderer, rendererOf, router } from "./internal/routing.js"
import * as Metrics from "./Metrics.js"
import {
  type Answer,
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
  toEffect
} from "./Middleware.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import * as RouteRules from "./RouteRules.js"
import { ROUTES, type Route, targetOf } from "./Routes.js"
import type { Upstream } from "./Upstream.js"

/** What a gateway is made of. */
export interface GatewayOptions {
  /** The upstreams by service; a later one for the same service replaces an earlier one. */
  readonly upstreams?: ReadonlyArray<Upstream>
  /** The routing table. @default ROUTES */
  readonly routes?: ReadonlyArray<Route>
  /**
   * What the route catalogue says of each request (public routes, rate-limit classes, cross-site
   * checks, suspension exemptions, tenant changes). @default `RouteRules.compile(RouteRules.MOUNTS,
   * routes)`, from `OpenApiDocument.CONTRACTS`, the pages and this routing table's
   * `suspensionExempt` prefixes
   */
  readonly routeRules?: RouteRules.Table
  /** Answers the requests outside `/api/v1` (`/health`, `/ready`, pages). @default 404 `NOT_FOUND` */
  readonly fallback?: GatewayApp
  /** Chain steps 6 to 10. */
  readonly guards?: Guards
  /** Request counts and latencies, observed as each response's head is sent. */
  readonly metrics?: Metrics.Metrics
  /**
   * The error protocols of paths whose clients cannot read the envelope (`/mcp`'s JSON-RPC, the
   * OAuth routes' `{ error, error_description }`): the gateway's own refusals of a request under
   * one of the prefixes (the longest) are rendered with its renderer. @default the envelope
   */
  readonly renderers?: ReadonlyArray<PathRenderer>
  /**
   * Behind a trusted proxy (`CORE_TRUST_PROXY`): the client address `make` hands in-process upstreams
   * (in their `RequestContext`) is the first `X-Forwarded-For` address, else the socket's — the rule
   * the Node listener's upstreams apply themselves (decision 0211). @default `CoreConfig`'s
   * `trustProxy` where the app runs, else false
   */
  readonly trustProxy?: boolean
}

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

/**
 * A web request's headers carry no `Host`: its URL names the host, which the steps read as the
 * client's (CORS's own origin, `/mcp`'s DNS rebinding check).
 */
const withHost = (request: HttpServerRequest.HttpServerRequest): Headers.Headers => {
  if (request.headers.host !== undefined || !/^https?:\/\//.test(request.originalUrl)) return request.headers
  try {
    return Headers.set(request.headers, "host", new URL(request.originalUrl).host)
  } catch {
    return request.headers
  }
}

/** The forwarded request with the frame's caller handed over as a value, to an upstream that takes it so. */
const handedOver = (request: HttpServerRequest.HttpServerRequest, frame: Frame, upstream: Upstream) => {
  if (frame.caller !== undefined && upstream.callerByValue) ForwardedIdentity.handOver(request.headers, frame.caller)
  return request
}

const answerResponse = (answer: Answer) => HttpServerResponse.empty({ status: answer.status, headers: answer.headers })

/**
 * The gateway as an `@effect/platform` app, for hosts that embed it (`HttpApp.toWebHandler`,
 * another Effect server): the same chain, guards and routing as `listener`, with each request's
 * `HttpServerRequest` and `RequestContext` provided inside (the client address by `trustProxy`,
 * decision 0211). `core-server start` serves `listener`.
 *
 * @example
 * const app = Gateway.make({ upstreams: [Upstream.fromWebHandler("IAM", iam.fetch)] })
 */
export const make = (options: GatewayOptions = {}): HttpApp.Default<never, Scope.Scope> => {
  const guards = ordered(options.guards)
  const routes = options.routes ?? ROUTES
  const rules = options.routeRules ?? RouteRules.compile(RouteRules.MOUNTS, routes)
  const route = router(options.upstreams ?? [])
  const fallback = options.fallback ?? notFoundApp
  const metrics = options.metrics
  const trusted = options.trustProxy === undefined
    ? Effect.map(Effect.serviceOption(CoreConfig), Option.exists((config) => config.trustProxy))
    : Effect.succeed(options.trustProxy)
  return Effect.flatMap(Effect.zip(HttpServerRequest.HttpServerRequest, trusted), ([raw, trustProxy]) => {
    const start = performance.now()
    const { requestId, request } = Inbound.of(raw)
    const target = targetOf(raw.url)
    const pathname = target.pathname
    const frame = makeFrame(requestId, request.method, target, routes, rules)
    const entered = Effect.clockWith((clock) => {
      const exchange: Exchange = {
        method: request.method,
        url: request.url,
        headers: withHost(request),
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
        : routed.upstream.forward(handedOver(rewrite(request, routed.match, frame.upstreamHeaders), frame, routed.upstream))
      return frame.traceId === undefined ? app : Effect.annotateLogs(app, "traceId", frame.traceId)
    })
    const context = Context.make(HttpServerRequest.HttpServerRequest, request).pipe(
      Context.add(RequestContext.RequestContext, RequestContext.fromRequest(request, undefined, trustProxy))
    )
    return Effect.provide(inner, context).pipe(
      Effect.catchAllCause((cause) => envelopeOf(cause, pathname, request, rendererOf(options.renderers, frame))),
      Effect.flatMap((response) => {
        const { build, head } = platformHead(response)
        const durationMs = elapsedMillis(start)
        const followUp = finish(frame, head, durationMs)
        const finished = build()
        metrics?.observeRequest(Metrics.routeOf(frame.rule.path, pathname), raw.method, finished.status, durationMs / 1_000)
        const logged = Effect.flatMap(
          FiberRef.get(FiberRef.currentMinimumLogLevel),
          (minimum) => (logsRequests(minimum) ? logRequest(raw.method, frame, finished.status, durationMs) : Effect.void)
        )
        return Effect.as(Effect.zipRight(Effect.all(followUp, { discard: true }), logged), finished)
      })
    )
  })
}

export type { NodeListener } from "./internal/nodeListener.js"
export type { PathRenderer } from "./internal/routing.js"

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
export const listener = (options: GatewayOptions = {}): Effect.Effect<NodeListener> => nodeListener(options)
