import { type HttpApp, HttpServer, type HttpServerRequest } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Data, Duration, Effect, Layer, type Scope } from "effect"
import * as http from "node:http"
import { answer, answerOnSocket, describeClientError, description } from "./internal/clientErrors.js"
import { type Drain, track } from "./internal/drain.js"

/** The port could not be listened on. */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

/** Where and how to listen. */
export interface ListenOptions {
  readonly port: number
  /** @default "0.0.0.0" */
  readonly host?: string
  /** How long requests in flight may run once shutdown starts. @default 10 seconds */
  readonly grace?: Duration.DurationInput
  /**
   * How long a request body may stay silent (no byte received) before the request is answered
   * 408 `REQUEST_TIMEOUT` and its connection closed. @default 30 seconds
   */
  readonly bodyTimeout?: Duration.DurationInput
  /** Connections open at once; a further one is closed as it arrives. @default 1024 */
  readonly maxConnections?: number
}

/** A listening server: the port bound, the requests in flight, and `close` (stop accepting, drain). */
export interface Bound {
  readonly port: number
  readonly inFlight: () => number
  /**
   * Accept what waits in the accept queue, stop accepting, and answer every request on the
   * connections open by then (bounded by `grace`); idempotent.
   */
  readonly close: Effect.Effect<void>
}

const DEFAULT_GRACE = Duration.seconds(10)

const graceOf = (options: ListenOptions): number => Duration.toMillis(options.grace ?? DEFAULT_GRACE)

const describeListenFailure = (cause: unknown, port: number): string => {
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined
  if (code === "EADDRINUSE") return `PORT ${port} is already in use`
  if (code === "EACCES") return `PORT ${port} needs more privileges than this process has`
  return `Cannot listen on PORT ${port}: ${cause instanceof Error ? cause.message : String(cause)}`
}

const hasBody = (request: http.IncomingMessage): boolean => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

/**
 * Watch a request's body: when no byte arrives for `timeoutMs` before it is complete, answer 408
 * (if nothing was answered yet) and close the connection. Checked every `timeoutMs` against the
 * bytes the socket has read, so a body that trickles in keeps its request alive.
 */
const watchBody = (request: http.IncomingMessage, response: http.ServerResponse, timeoutMs: number) => {
  const socket = request.socket
  let seen = socket.bytesRead
  const check = () => {
    if (request.complete || response.writableEnded || socket.destroyed) return
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead
      timer = setTimeout(check, timeoutMs).unref()
      return
    }
    if (!response.headersSent) {
      answer(response, description(408, "REQUEST_TIMEOUT", `No part of the request body arrived for ${timeoutMs} ms`))
      response.once("finish", () => socket.destroy())
    } else {
      socket.destroy()
    }
  }
  let timer = setTimeout(check, timeoutMs).unref()
  response.once("close", () => clearTimeout(timer))
}

/** How long an idle keep-alive connection is kept (nginx's and load balancers' order of magnitude). */
const KEEP_ALIVE_MS = 65_000

/**
 * What every server of this package does besides serving: a cap on connections, a body idle
 * timeout, error envelopes for requests Node cannot parse (431 for a head over the header limit,
 * instead of Node's empty answer), and a count of the requests in flight.
 */
const harden = (server: http.Server, options: ListenOptions): Drain => {
  const drain = track(server)
  const bodyTimeoutMs = Duration.toMillis(options.bodyTimeout ?? Duration.seconds(30))
  server.maxConnections = options.maxConnections ?? 1_024
  // Node's 5 s keep-alive loses races with clients that reuse a connection just as it expires (the
  // request is reset, "other side closed"); 65 s outlives common client and proxy pools, and the
  // head timeout stays above it as Node asks. Shutdown still closes idle connections at once.
  server.keepAliveTimeout = KEEP_ALIVE_MS
  server.headersTimeout = KEEP_ALIVE_MS + 1_000
  server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (hasBody(request)) watchBody(request, response, bodyTimeoutMs)
  })
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy()
      return
    }
    answerOnSocket(socket, describeClientError(error))
  })
  return drain
}

/**
 * Serve a `node:http` request listener (the gateway's `Assemble.listener`) until the scope closes
 * or `close` runs, closing as `listen` does. Answers the port actually bound.
 */
export const listenNode = (
  listener: (request: http.IncomingMessage, response: http.ServerResponse) => void,
  options: ListenOptions
): Effect.Effect<Bound, ListenError, Scope.Scope> =>
  Effect.gen(function*() {
    const server = http.createServer()
    const drain = harden(server, options)
    server.on("request", listener)
    yield* Effect.async<void, ListenError>((resume) => {
      const onError = (cause: unknown) =>
        resume(Effect.fail(new ListenError({ message: describeListenFailure(cause, options.port) })))
      server.once("error", onError)
      server.listen(options.port, options.host ?? "0.0.0.0", () => {
        server.off("error", onError)
        resume(Effect.void)
      })
    })
    const close = Effect.promise(() => drain.close(graceOf(options)))
    yield* Effect.addFinalizer(() => close)
    const address = server.address()
    return { port: typeof address === "object" && address !== null ? address.port : options.port, inFlight: drain.inFlight, close }
  })

/**
 * Serve an app natively on Node until the scope closes. Closing first accepts the connections
 * already waiting, then stops accepting; every request on a connection open by then gets its answer
 * (with `Connection: close`), a connection that has sent nothing yet has a few seconds to send its
 * request, idle keep-alive connections close, and whatever still runs after `grace` is cut
 * (`internal/drain.ts`, docs/decisions/0583). Answers the port actually bound (`port: 0` picks one).
 */
export const listen = <E, R>(
  app: HttpApp.Default<E, R>,
  options: ListenOptions
): Effect.Effect<number, ListenError, Scope.Scope | Exclude<R, Scope.Scope | HttpServerRequest.HttpServerRequest>> =>
  Effect.gen(function*() {
    const server = http.createServer()
    const drain = harden(server, options)
    const context = yield* Layer.build(
      HttpServer.serve(app).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => server, { port: options.port, host: options.host ?? "0.0.0.0" }))
      )
    ).pipe(Effect.mapError((error) => new ListenError({ message: describeListenFailure(error.cause, options.port) })))
    yield* Effect.addFinalizer(() => Effect.promise(() => drain.close(graceOf(options))))
    const address = Context.get(context, HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? address.port : options.port
  })
