import { type HttpApp, HttpServerRequest } from "@effect/platform"
import { ErrorResponse, NotFound, UpstreamUnavailable } from "@core/kernel"
import { Cause, Effect } from "effect"
import type { Frame, GatewayApp } from "../Middleware.js"
import * as OpenApiDocument from "../OpenApiDocument.js"
import { API_BASE, isUnder, type Match, type ServiceName, targetOf } from "../Routes.js"
import type { Upstream } from "../Upstream.js"

/** Where the router sends a request once the guards let it through. */
export type Routed =
  | { readonly _tag: "OpenApi" }
  | { readonly _tag: "Fallback" }
  | { readonly _tag: "Upstream"; readonly upstream: Upstream; readonly match: Match }
  | { readonly _tag: "Refused"; readonly error: NotFound | UpstreamUnavailable }

const OPENAPI: Routed = { _tag: "OpenApi" }
const FALLBACK: Routed = { _tag: "Fallback" }

const notFound = (pathname: string) => new NotFound({ message: `No route for ${pathname}` })

/**
 * The routing step: `/api/v1/openapi.json` is the merged document, `/api/v1/*` (and `/mcp`) goes
 * to the upstream of the longest matching prefix (an unknown prefix is 404 `NOT_FOUND`, a known one
 * without an upstream 502 `UPSTREAM_UNAVAILABLE`), everything else to the fallback.
 */
export const router = (upstreams: ReadonlyArray<Upstream>) => {
  const byService = new Map<ServiceName, Upstream>(upstreams.map((upstream) => [upstream.service, upstream]))
  return (frame: Frame): Routed => {
    const { match: found, pathname } = frame
    if (pathname === OpenApiDocument.PATH) return OPENAPI
    // Outside `/api/v1` only a routed prefix of its own (the vault's `/mcp`) reaches an upstream.
    if (!isUnder(pathname, API_BASE) && found === undefined) return FALLBACK
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
export const envelopeOf = (cause: Cause.Cause<unknown>, pathname: string, request: HttpServerRequest.HttpServerRequest) =>
  ErrorResponse.handleCause(
    Cause.map(cause, (error) => (isRouteNotFound(error) ? notFound(pathname) : error))
  ).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))

export const notFoundApp: GatewayApp = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (request) => Effect.fail(notFound(targetOf(request.url).pathname))
)

/** An app with its failures as envelopes (its log lines take the request's ids from it, see `Logging`). */
export const served = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.catchAllCause(app, (cause) => envelopeOf(cause, targetOf(request.url).pathname, request)))
