import { Headers, HttpServer, HttpServerError, HttpServerRequest } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as http from "node:http"
import { withEnvelope } from "./internal/envelope.js"
import { type BridgeOptions, type Handler, handle } from "./internal/nodeBridge.js"

/** The route runner: a service's catalogued handlers served on Node's own request and response. */
export * as RouteNode from "./RouteNode.js"

/** Where to listen, and how long a close may wait. */
export interface ListenOptions {
  /** @default 0 (a free port) */
  readonly port?: number
  /** @default "127.0.0.1" */
  readonly host?: string
  /**
   * How long closing waits for requests in flight before dropping their connections, in milliseconds.
   * @default 10000
   */
  readonly gracePeriod?: number
  /**
   * Serve the app under this path (`/auth`): it is taken off request paths and sent as
   * `X-Forwarded-Prefix` (a client's own value replaced), so that the app's links and form actions
   * follow it; a request outside it is a 404.
   * @default "" (the root)
   */
  readonly prefix?: string
}

const normalizePrefix = (prefix: string | undefined): string => {
  const trimmed = (prefix ?? "").replace(/\/+$/, "")
  return trimmed === "" || trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/** `app` under `prefix` (see `ListenOptions.prefix`). */
const mountedAt = <E, R>(
  app: HttpApp.Default<E, R>,
  prefix: string | undefined
): HttpApp.Default<E | HttpServerError.RouteNotFound, R> => {
  const base = normalizePrefix(prefix)
  if (base === "") return app
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): HttpApp.Default<E | HttpServerError.RouteNotFound, R> => {
    const path = request.url.split("?")[0]
    if (path !== base && !path.startsWith(`${base}/`)) return Effect.fail(new HttpServerError.RouteNotFound({ request }))
    const rest = request.url.slice(base.length)
    const mounted = request.modify({
      url: rest.startsWith("/") ? rest : `/${rest}`,
      headers: Headers.set(request.headers, "x-forwarded-prefix", base)
    })
    return Effect.provideService(app, HttpServerRequest.HttpServerRequest, mounted)
  })
}

/** A running server. */
export interface Served {
  readonly port: number
  /** `http://<host>:<port>` */
  readonly url: string
  /** Stop accepting connections, finish the requests in flight, then release the app's services. */
  readonly close: () => Promise<void>
}

type Requirements<R> = Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>

/**
 * Serve an app natively on Node through `@effect/platform-node` (no web `Request` conversion),
 * every failure ending as the error envelope. The layer also provides `HttpServer` (its address).
 *
 * @example
 * Layer.launch(Node.layer(app, { port: 8787, host: "0.0.0.0" }).pipe(Layer.provide(AppLive)))
 */
export const layer = <E, R>(
  app: HttpApp.Default<E, R>,
  options?: ListenOptions
): Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError, Requirements<R>> =>
  Layer.suspend(() => {
    const server = http.createServer()
    const listen = { port: options?.port ?? 0, host: options?.host ?? "127.0.0.1" }
    return HttpServer.serve(withEnvelope(mountedAt(app, options?.prefix))).pipe(
      Layer.provide(closeGracefully(server, options?.gracePeriod ?? 10_000)),
      Layer.provideMerge(NodeHttpServer.layer(() => server, listen)),
      Layer.map((context) => Context.make(HttpServer.HttpServer, Context.get(context, HttpServer.HttpServer)))
    )
  })

/**
 * Released before the server closes: connections that go idle once their request is answered are
 * closed at once (else keep-alive holds the close for seconds), and all of them after `gracePeriod`.
 */
const closeGracefully = (server: http.Server, gracePeriod: number) =>
  Layer.scopedDiscard(Effect.addFinalizer(() =>
    Effect.sync(() => {
      if (!server.listening) return
      const idle = setInterval(() => server.closeIdleConnections(), 25).unref()
      const deadline = setTimeout(() => server.closeAllConnections(), gracePeriod).unref()
      server.once("close", () => {
        clearInterval(idle)
        clearTimeout(deadline)
      })
    })
  ))

/**
 * Serve an app natively on Node from non-Effect code; `layer` provides the app's services.
 *
 * @example
 * const server = await Node.serve(app, { port: 8787, layer: AppLive })
 * await server.close()
 */
export function serve<E>(app: HttpApp.Default<E, never>, options?: ListenOptions): Promise<Served>
export function serve<E, R, LE>(
  app: HttpApp.Default<E, R>,
  options: ListenOptions & { readonly layer: Layer.Layer<Requirements<R>, LE> }
): Promise<Served>
export async function serve<E, R, LE>(
  app: HttpApp.Default<E, R>,
  options?: ListenOptions & { readonly layer?: Layer.Layer<Requirements<R>, LE> }
): Promise<Served> {
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const services = options?.layer ?? (Layer.empty as Layer.Layer<Requirements<R>>)
  try {
    const context = await Effect.runPromise(Layer.buildWithScope(Layer.provide(layer(app, options), services), scope))
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = address._tag === "TcpAddress" ? address.port : 0
    return { port, url: `http://${options?.host ?? "127.0.0.1"}:${port}`, close }
  } catch (error) {
    await close()
    throw error
  }
}

/**
 * A Node `(req, res)` listener for a web-standard handler (the body is counted under `maxBodySize`,
 * the response streamed with backpressure; under `prefix`, the prefix is stripped and sent as
 * `X-Forwarded-Prefix`). Prefer `layer`/`serve` for Effect apps on Node.
 *
 * @example
 * http.createServer(Node.toNodeListener(Web.make(app).handler)).listen(8787)
 */
export const toNodeListener = (handler: Handler, options?: BridgeOptions) =>
  (req: http.IncomingMessage, res: http.ServerResponse): void => void handle(handler, req, res, options)
