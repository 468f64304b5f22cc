import { type HttpApp, HttpServerRequest } from "@effect/platform"
import { NotFound, UpstreamUnavailable } from "@core/kernel"
import { Effect, Option, type Scope } from "effect"
import { rewrite } from "./Forwarding.js"
import type * as Metrics from "./Metrics.js"
import { chain, CurrentFrame, type GatewayApp, type Guards } from "./Middleware.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import { API_BASE, isUnder, match, ROUTES, type Route, type ServiceName, targetOf } from "./Routes.js"
import type { Upstream } from "./Upstream.js"

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
  /** Request counts and latencies, observed at the timing step. */
  readonly metrics?: Metrics.Metrics
}

const notFound = (pathname: string) => new NotFound({ message: `No route for ${pathname}` })

/**
 * The routing step alone: match the prefix, rewrite the request, forward it. An unknown prefix
 * fails with `NotFound` (404); a known prefix without an upstream with `UpstreamUnavailable` (502).
 */
export const router = (
  routes: ReadonlyArray<Route>,
  upstreams: ReadonlyArray<Upstream>
): GatewayApp => {
  const byService = new Map<ServiceName, Upstream>(upstreams.map((upstream) => [upstream.service, upstream]))
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): GatewayApp => {
    const found = match(routes, request.url)
    if (found === undefined) return Effect.fail(notFound(targetOf(request.url).pathname))
    const upstream = byService.get(found.route.service)
    if (upstream === undefined) {
      const service = found.route.service
      return Effect.fail(new UpstreamUnavailable({ message: `The ${service} service is not available`, upstream: service }))
    }
    return Effect.flatMap(Effect.serviceOption(CurrentFrame), (frame) =>
      upstream.forward(rewrite(request, found, Option.isSome(frame) ? frame.value.upstreamHeaders : undefined)))
  })
}

/**
 * The gateway: `/api/v1/*` routed to upstreams (but `/api/v1/openapi.json`, the merged document),
 * everything else to `fallback`, all of it inside
 * the middleware chain. Serve it with `NodeHttpServer` or `HttpApp.toWebHandler`.
 *
 * @example
 * const app = Gateway.make({ upstreams: [Upstream.fromWebHandler("IAM", iam.fetch)] })
 */
export const make = (options: GatewayOptions = {}): HttpApp.Default<never, Scope.Scope> => {
  const api = router(options.routes ?? ROUTES, options.upstreams ?? [])
  const fallback: GatewayApp = options.fallback ??
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => Effect.fail(notFound(targetOf(request.url).pathname)))
  const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const pathname = targetOf(request.url).pathname
    if (pathname === OpenApiDocument.PATH) return OpenApiDocument.route
    return isUnder(pathname, API_BASE) ? api : fallback
  })
  return chain(app, options.guards, options.metrics)
}
