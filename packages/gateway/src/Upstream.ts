import type { Headers as PlatformHeaders } from "@effect/platform"
import { type HttpApp, HttpMiddleware, type HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import {
  type Callers,
  ErrorResponse,
  ForwardedIdentity,
  RequestContext,
  Route as KernelRoute,
  UpstreamUnavailable,
  type UpstreamTimeout
} from "@core/kernel"
import type { Route } from "@core/kernel"
import { RouteNode } from "@core/http/node"
import { Context, Effect, type Runtime, Scope, Stream } from "effect"
import type * as http from "node:http"
import type { InProcessIdentity } from "./IdentityResolver.js"
import type { ServiceName } from "./Routes.js"

/** What the gateway hands an upstream on its Node path: where the request goes, and how to fail it. */
export interface NodeForwarding {
  /** The path and query the upstream receives (the route's prefix stripped). */
  readonly url: string
  /**
   * The headers it receives: the inbound ones after `Forwarding.forwardHeaders` (client `X-Core-*`
   * and hop-by-hop headers gone; `X-Forwarded-Prefix`, `X-Request-Id`, `X-Core-Request-Id`, the
   * signed identity and the trace context set).
   */
  readonly headers: Record<string, string>
  /** The gateway's id of the request (for log lines). */
  readonly requestId: string
  /** Answer the error's envelope instead; only while `response.writeHead` has not been called. */
  readonly fail: (error: UpstreamUnavailable | UpstreamTimeout) => void
}

/**
 * An upstream's Node path, which the gateway's Node listener prefers to `forward`: answer
 * `request` (its body not yet read) on `response` by calling `response.writeHead(status, headers)`
 * once (the gateway adds its own headers there) and then writing the body, or call
 * `forwarding.fail` when no answer came.
 */
export type NodeHandler = (request: http.IncomingMessage, response: http.ServerResponse, forwarding: NodeForwarding) => void

/**
 * Where the gateway sends a routed request. The gateway hands over the request already
 * rewritten (prefix stripped, query kept, forwarding headers set); the upstream answers it.
 * In-process upstreams run an `HttpApp` or a web handler; an HTTP upstream
 * (`CORE_UPSTREAM_<SERVICE>_URL`) sends it over the network and fails with
 * `UpstreamUnavailable` (502) or `UpstreamTimeout` (504) when it cannot.
 */
export interface Upstream {
  readonly service: ServiceName
  readonly forward: (
    request: HttpServerRequest.HttpServerRequest
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, UpstreamUnavailable | UpstreamTimeout, Scope.Scope>
  /** The same on Node's request and response, without Effect's per-request cost (HTTP upstreams). */
  readonly node?: NodeHandler
  /**
   * The upstream runs in the gateway's process on the request the gateway hands it, and reads the
   * caller as the value the gateway resolved (`ForwardedIdentity.handOver`, `callerOf`): nothing is
   * signed for it (`Assemble` tells the authentication step). Unset for an HTTP upstream and for a
   * web-standard handler, which read the signed identity headers.
   */
  readonly callerByValue?: true
  /**
   * The identity service's answers as values, when this upstream is that service in the gateway's
   * process (`fromHandlers` with `identity`): the gateway resolves credentials through them, with
   * no request built (`IdentityResolver.inProcess`).
   */
  readonly identity?: InProcessIdentity
}

/**
 * An in-process upstream over an `HttpApp`: the app's own failures become its envelope
 * responses, as they would over HTTP. The app's other requirements are taken from the
 * context where the upstream is made (never its request, scope or request context: those
 * are the forwarded request's).
 */
export const fromHttpApp = <E, R>(
  service: ServiceName,
  app: HttpApp.Default<E, R>
): Effect.Effect<Upstream, never, Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>> =>
  Effect.gen(function*() {
    const context = yield* ownContext<Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>>()
    const enveloped = ErrorResponse.withErrorEnvelope(app)
    const handler = yield* nodeHandler(enveloped).pipe(Effect.provide(context))
    return { service, forward: forwardOf(enveloped, context), node: onRewritten(handler), callerByValue: true }
  })

/**
 * The context an in-process upstream runs in: the one it is made in, never its request, scope or
 * request context (those are the forwarded request's).
 */
const ownContext = <R>() =>
  Effect.map(Effect.context<R>(), (captured) =>
    Context.omit(HttpServerRequest.HttpServerRequest, Scope.Scope, RequestContext.RequestContext)(captured))

/** The Effect transport's path of an in-process app: the app in its own context, per forwarded request. */
const forwardOf = <E, R, C>(app: HttpApp.Default<E, R>, context: Context.Context<C>): Upstream["forward"] => {
  const prepared = ErrorResponse.withErrorEnvelope(app).pipe(Effect.provide(context)) as Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    never,
    Scope.Scope | HttpServerRequest.HttpServerRequest
  >
  return (request) => Effect.provideService(prepared, HttpServerRequest.HttpServerRequest, request)
}

/**
 * An in-process service given as its catalogued handlers, behind the identity guard (`trust`): the
 * Effect transport runs them as an app (`Route.router`), the gateway's Node path on `@core/http`'s
 * route runner (`RouteNode.listener`), which serves them on Node's own request and response
 * (docs/architecture.md). Both take the caller the gateway hands them as a value, and otherwise see
 * only identity headers the gateway signed for the service.
 */
export const fromHandlers = <const H extends ReadonlyArray<Route.Handler<any, any>>>(
  service: ServiceName,
  handlers: H,
  options: Route.RouterOptions & {
    readonly trust: { readonly key: Uint8Array; readonly audience: string }
    /** The identity service's answers as values (`@core/auth`'s `GatewayIdentity`), for the identity service's upstream. */
    readonly identity?: InProcessIdentity
  }
): Effect.Effect<Upstream, never, Exclude<Route.RequirementsOf<H[number]>, HttpServerRequest.HttpServerRequest | Scope.Scope | HttpRouter.RouteContext> | Callers> =>
  Effect.gen(function*() {
    const context = yield* ownContext<never>()
    const app = ForwardedIdentity.guard(KernelRoute.router(handlers, options) as HttpApp.Default<unknown, never>, options.trust)
    const listener = yield* RouteNode.listener(handlers, options).pipe(Effect.provide(context)) as Effect.Effect<RouteNode.NodeListener>
    const node: NodeHandler = (request, response, forwarding) => {
      request.url = forwarding.url
      request.headers = ForwardedIdentity.trustedHeaders(forwarding.headers as PlatformHeaders.Headers, options.trust.key, options.trust.audience, Date.now()) as http.IncomingHttpHeaders
      listener(request, response)
    }
    const identity = options.identity === undefined ? {} : { identity: options.identity }
    return { service, forward: forwardOf(app, context), node, callerByValue: true, ...identity }
  })

/**
 * A Node handler of an in-process app as an upstream's Node path: it answers the request with its
 * URL and headers rewritten in place to what the upstream receives.
 */
export const onRewritten = (
  handler: (request: http.IncomingMessage, response: http.ServerResponse) => void
): NodeHandler =>
(request, response, forwarding) => {
  request.url = forwarding.url
  request.headers = forwarding.headers
  handler(request, response)
}

/**
 * An app run on Node's request and response by `@effect/platform-node`, in the context it is made
 * in, without the platform's per-request server span: the gateway's tracing step already
 * continues the caller's trace and hands the app its `traceparent`.
 */
export const nodeHandler = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.locally(NodeHttpServer.makeHandler(app), HttpMiddleware.currentTracerDisabledWhen, () => true)

const hasBody = (method: string): boolean => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"

const urlOf = (request: HttpServerRequest.HttpServerRequest): URL => {
  try {
    return new URL(request.url, `http://${request.headers.host ?? "localhost"}`)
  } catch {
    return new URL(request.url, "http://localhost")
  }
}

const toWebRequest = (
  request: HttpServerRequest.HttpServerRequest,
  signal: AbortSignal,
  runtime: Runtime.Runtime<never>
): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) headers.set(name, value)
  const init: RequestInit & { duplex?: "half" } = { method: request.method, headers, signal }
  if (hasBody(request.method)) {
    init.body = Stream.toReadableStreamRuntime(request.stream, runtime)
    init.duplex = "half"
  }
  return new Request(urlOf(request), init)
}

/**
 * An in-process upstream over a web-standard handler (`(Request) => Response | Promise<Response>`, as
 * Hono's `app.fetch` or `HttpApp.toWebHandler`). A handler that throws or rejects answers
 * 502 `UPSTREAM_UNAVAILABLE`.
 */
export const fromWebHandler = (
  service: ServiceName,
  handler: (request: Request) => Response | Promise<Response>
): Upstream => ({
  service,
  forward: (request) =>
    Effect.flatMap(Effect.runtime<never>(), (runtime) =>
      Effect.tryPromise({
        try: async (signal) => handler(toWebRequest(request, signal, runtime)),
        catch: () => new UpstreamUnavailable({ message: `The ${service} service failed to answer`, upstream: service })
      })).pipe(Effect.map(HttpServerResponse.fromWeb))
})
