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

/**
 * Any failure as its envelope (a router's `RouteNotFound` as 404 naming the path, defects 500), or
 * in the protocol of the service the request was routed to when it has a renderer of its own.
 */
export const envelopeOf = (
  cause: Cause.Cause<unknown>,
  pathname: string,
  request: HttpServerRequest.HttpServerRequest,
  renderer: ErrorResponse.Renderer = ErrorResponse.envelopeRenderer
) =>
  ErrorResponse.handleCauseWith(renderer)(
    Cause.map(cause, (error) => (isRouteNotFound(error) ? notFound(pathname) : error))
  ).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))

/** The error protocol of the paths under a prefix (`/mcp`: JSON-RPC errors). */
export interface PathRenderer {
  readonly prefix: string
  readonly renderer: ErrorResponse.Renderer
}

/** The renderer of the longest prefix a request's path lies under (`GatewayOptions.renderers`), if any. */
export const rendererOf = (renderers: ReadonlyArray<PathRenderer> | undefined, frame: Frame): ErrorResponse.Renderer | undefined => {
  if (renderers === undefined) return undefined
  let best: PathRenderer | undefined
  for (const entry of renderers) {
    if (isUnder(frame.pathname, entry.prefix) && (best === undefined || entry.prefix.length > best.prefix.length)) best = entry
  }
  return best?.renderer
}

export const notFoundApp: GatewayApp = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (request) => Effect.fail(notFound(targetOf(request.url).pathname))
)

/** An app with its failures as envelopes (its log lines take the request's ids from it, see `Logging`). */
export const served = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.catchAllCause(app, (cause) => envelopeOf(cause, targetOf(request.url).pathname, request)))
