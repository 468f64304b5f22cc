/**
 * The route runner on Node (docs/architecture.md, "The request path"): catalogued routes served on
 * Node's own request and response, without converting to web `Request`/`Response` and without the
 * platform's per-request machinery. Decision 0170 says what it does and what it skips, with the
 * figures; it lives here, beside the other runtimes, since decision 0667.
 */
import { HttpRouter, HttpServerError, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Cause, Context, Effect, Option, Runtime, Scope } from "effect"
import type * as http from "node:http"
import { Callers, CoreConfig, ErrorResponse, RequestContext, Route, Telemetry } from "@core/kernel"
import { Flight } from "./internal/nodeFlight.js"
import { NodeRequest } from "./internal/nodeRequest.js"
import { RequestScope } from "./internal/requestScope.js"
import * as RouteTable from "./internal/routeTable.js"

/** A request listener for `node:http` (`http.createServer(listener)`). */
export type NodeListener = (request: http.IncomingMessage, response: http.ServerResponse) => void

/** What the runner gives every request, as the platform's server and router do. */
export type Provided =
  | HttpServerRequest.HttpServerRequest
  | HttpServerRequest.ParsedSearchParams
  | HttpRouter.RouteContext
  | Scope.Scope

interface Compiled {
  readonly route: HttpRouter.Route<unknown, unknown>
  /** The catalogue's path (`/api/v1/platforms/{platformId}`): the server span's route. */
  readonly template: string
  readonly program: Effect.Effect<HttpServerResponse.HttpServerResponse>
}

const REQUEST = HttpServerRequest.HttpServerRequest.key
const SEARCH_PARAMS = HttpServerRequest.ParsedSearchParams.key
const ROUTE_CONTEXT = HttpRouter.RouteContext.key
const SCOPE = Scope.Scope.key
const REQUEST_CONTEXT = RequestContext.RequestContext.key
const CALLERS = Callers.key

const NO_SEARCH_PARAMS: Readonly<Record<string, string | Array<string>>> = Object.freeze({})

const routeContext = (route: HttpRouter.Route<unknown, unknown>, params: Record<string, string>): HttpRouter.RouteContext => ({
  [HttpRouter.RouteContextTypeId]: HttpRouter.RouteContextTypeId,
  params,
  route
})

/** An unknown route: the envelope's 404, as the web-standard handler answers it (`@core/http` wraps every app in the envelope). */
const notFound = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  ErrorResponse.handleCause(Cause.fail(new HttpServerError.RouteNotFound({ request })))) as Effect.Effect<
    HttpServerResponse.HttpServerResponse
  >

/**
 * A `node:http` request listener serving a list of handlers exactly as `Route.router` serves them
 * through the web-standard handler (the same statuses, bodies and headers; failures through the
 * same renderer; the same paths under `base`; an unknown route the envelope's 404), built in the
 * current context: the handlers' services are taken once, here. Per request it matches the route
 * in a table compiled once, builds one light `HttpServerRequest` over Node's request (with the
 * route context, search parameters, a scope and the `RequestContext`), runs the handler in a fiber
 * that starts at once, and writes the head once when it ends; no middleware, no web
 * `Request`/`Response`. Where `Telemetry` is provided, each request runs in its `http.server` span
 * (`METHOD /route/{param}`, the child of its `traceparent`); without it, none is built. A client
 * that leaves interrupts the fiber.
 *
 * @example
 * const listener = yield* RouteNode.listener(Http.handlers) // import { RouteNode } from "@core/http/node"
 * http.createServer(listener).listen(8080)
 */
export const listener = <const H extends ReadonlyArray<Route.Handler<any, any>>>(
  handlers: H,
  options?: Route.RouterOptions
): Effect.Effect<NodeListener, never, Exclude<Route.RequirementsOf<H[number]>, Provided> | Callers> =>
  Effect.map(Effect.runtime<never>(), (runtime): NodeListener => {
    const table = RouteTable.make(handlers.flatMap((handler) => {
      const { method, path } = handler.route
      const program = Route.program(handler, options?.renderer) as Effect.Effect<HttpServerResponse.HttpServerResponse>
      return Route.pathsOf(path, options?.base).map((served) => ({
        method,
        path: served,
        value: { route: HttpRouter.makeRoute(method, Route.routerPath(served) as HttpRouter.PathInput, handler.run), template: path, program }
      }))
    }))
    const services = runtime.context.unsafeMap
    const known = Context.getOption(runtime.context, RequestContext.RequestContext)
    const trustProxy = Option.exists(Context.getOption(runtime.context, CoreConfig), (config) => config.trustProxy)
    // Asked once: without it (no OTLP endpoint) a request builds no span.
    const telemetry = Option.getOrUndefined(Context.getOption(runtime.context, Telemetry.Telemetry))
    const callers = services.get(CALLERS) as Context.Tag.Service<Callers> | undefined
    const { fiberRefs, runtimeFlags } = runtime

    return (req, res) => {
      const url = req.url ?? "/"
      const method = req.method ?? "GET"
      const request = new NodeRequest(req, res, url)
      const scope = new RequestScope()
      const context = new Map(services)
      context.set(REQUEST, request)
      context.set(SCOPE, scope)
      const match = RouteTable.find<Compiled>(table, method, url)
      if (match !== undefined) {
        context.set(ROUTE_CONTEXT, routeContext(match.value.route, match.params))
        context.set(SEARCH_PARAMS, match.query === "" ? NO_SEARCH_PARAMS : RouteTable.searchParamsOf(match.query))
        context.set(REQUEST_CONTEXT, RequestContext.ofRequest(request, known, trustProxy))
      }
      let program = match === undefined ? notFound : match.value.program
      if (telemetry !== undefined && match !== undefined) {
        const traced = Telemetry.inServerSpan(telemetry, match.value.template, request, program)
        if (callers !== undefined) context.set(CALLERS, Telemetry.recordingCallers(callers, traced.span))
        program = traced.program
      }
      const flight = new Flight(res, method === "HEAD", scope, runtime)
      flight.start(Runtime.make({ context: Context.unsafeMake(context), fiberRefs, runtimeFlags }), program)
    }
  })
