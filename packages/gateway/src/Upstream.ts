import { HttpServerRequest, HttpServerResponse, type HttpApp } from "@effect/platform"
import { ErrorResponse, RequestContext, UpstreamUnavailable, type UpstreamTimeout } from "@core/kernel"
import { Context, Effect, type Runtime, Scope, Stream } from "effect"
import type { ServiceName } from "./Routes.js"

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
  Effect.map(Effect.context<Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>>(), (captured): Upstream => {
    const context = Context.omit(HttpServerRequest.HttpServerRequest, Scope.Scope, RequestContext.RequestContext)(captured)
    const prepared = ErrorResponse.withErrorEnvelope(app).pipe(Effect.provide(context)) as Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      never,
      Scope.Scope | HttpServerRequest.HttpServerRequest
    >
    return {
      service,
      forward: (request) => Effect.provideService(prepared, HttpServerRequest.HttpServerRequest, request)
    }
  })

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
