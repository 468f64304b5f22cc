import { HttpApp } from "@effect/platform"
import type { Runtime, Scope } from "effect"
import { Layer } from "effect"
import { withEnvelope } from "./internal/envelope.js"
import type { Handler } from "./internal/nodeBridge.js"

export type { Handler } from "./internal/nodeBridge.js"

/** A web-standard handler and the release of the services it was built with. */
export interface WebHandler {
  /** Answer one request; every failure of the app ends as the error envelope. */
  readonly handler: Handler
  /** Release the layer's resources (database pools, timers). */
  readonly dispose: () => Promise<void>
}

/**
 * The canonical web-standard handler of an app, its services built once (on the first request)
 * from `layer`. Runs wherever `Request`/`Response` exist: Deno, Bun, workers, Node hosts.
 *
 * @example
 * const { handler, dispose } = Web.make(app, AppLive)
 * Deno.serve(handler)
 */
export function make<E>(app: HttpApp.Default<E, Scope.Scope>): WebHandler
export function make<E, R, LE>(app: HttpApp.Default<E, R | Scope.Scope>, layer: Layer.Layer<R, LE>): WebHandler
export function make<E, R, LE>(
  app: HttpApp.Default<E, R | Scope.Scope>,
  layer?: Layer.Layer<R, LE>
): WebHandler {
  const web = HttpApp.toWebHandlerLayer(withEnvelope(app), layer ?? (Layer.empty as Layer.Layer<R>))
  return { handler: (request) => web.handler(request), dispose: web.dispose }
}

/** The web-standard handler of an app run by an existing runtime (whose owner releases it). */
export const fromRuntime = <R>(runtime: Runtime.Runtime<R>) => <E>(app: HttpApp.Default<E, R | Scope.Scope>): Handler => {
  const handler = HttpApp.toWebHandlerRuntime(runtime)(withEnvelope(app))
  return (request) => handler(request)
}

/** `core`, `/core/` → `/core`; `/` and `""` → `""` (the root). */
export const normalizePrefix = (prefix: string): string => {
  const trimmed = prefix.replace(/\/+$/, "")
  return trimmed === "" || trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/**
 * The same request with `prefix` taken off its path (`/core/hello?x=1` → `/hello?x=1`), body streamed
 * through, and `X-Forwarded-Prefix: /core` (replacing a client's own), so that the service's links and
 * form actions (the identity pages') follow the mount. A path outside the prefix is left as it is.
 */
export const stripPrefix = (request: Request, prefix: string): Request => {
  const base = normalizePrefix(prefix)
  const url = new URL(request.url)
  if (base === "" || (url.pathname !== base && !url.pathname.startsWith(`${base}/`))) return request
  url.pathname = url.pathname.slice(base.length) || "/"
  const headers = new Headers(request.headers)
  headers.set("x-forwarded-prefix", base)
  return new Request(url, {
    method: request.method,
    headers,
    body: request.body,
    signal: request.signal,
    redirect: request.redirect,
    duplex: "half"
  } as RequestInit)
}

/**
 * A handler that serves `handler` under `prefix`, for hosts that route by prefix themselves.
 *
 * @example
 * Bun.serve({ fetch: Web.mount("/core", handler) })
 */
export const mount = (prefix: string, handler: Handler): Handler => (request) => handler(stripPrefix(request, prefix))
