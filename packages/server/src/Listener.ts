import { type HttpApp, HttpServer, type HttpServerRequest } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Data, Duration, Effect, Layer, type Scope } from "effect"
import * as http from "node:http"

/** The port could not be listened on. */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

/** Where and how to listen. */
export interface ListenOptions {
  readonly port: number
  /** @default "0.0.0.0" */
  readonly host?: string
  /** How long requests in flight may run once shutdown starts. @default 10 seconds */
  readonly grace?: Duration.DurationInput
}

const IDLE_SWEEP_MS = 25

const describeListenFailure = (cause: unknown, port: number): string => {
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined
  if (code === "EADDRINUSE") return `PORT ${port} is already in use`
  if (code === "EACCES") return `PORT ${port} needs more privileges than this process has`
  return `Cannot listen on PORT ${port}: ${cause instanceof Error ? cause.message : String(cause)}`
}

/**
 * Once closing starts: close each keep-alive connection as soon as it goes idle, and cut whatever
 * still runs after `grace`.
 */
const drain = (server: http.Server, grace: Duration.DurationInput | undefined) => {
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS)
  const deadline = setTimeout(() => server.closeAllConnections(), Duration.toMillis(grace ?? Duration.seconds(10)))
  sweep.unref()
  deadline.unref()
  server.once("close", () => {
    clearInterval(sweep)
    clearTimeout(deadline)
  })
}

/**
 * Serve a `node:http` request listener (the gateway's `Assemble.listener`) until the scope closes,
 * closing as `listen` does. Answers the port actually bound.
 */
export const listenNode = (
  listener: (request: http.IncomingMessage, response: http.ServerResponse) => void,
  options: ListenOptions
): Effect.Effect<number, ListenError, Scope.Scope> =>
  Effect.gen(function*() {
    const server = http.createServer(listener)
    yield* Effect.async<void, ListenError>((resume) => {
      const onError = (cause: unknown) =>
        resume(Effect.fail(new ListenError({ message: describeListenFailure(cause, options.port) })))
      server.once("error", onError)
      server.listen(options.port, options.host ?? "0.0.0.0", () => {
        server.off("error", onError)
        resume(Effect.void)
      })
    })
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        drain(server, options.grace)
        server.close(() => resume(Effect.void))
      })
    )
    const address = server.address()
    return typeof address === "object" && address !== null ? address.port : options.port
  })

/**
 * Serve an app natively on Node until the scope closes. Closing stops accepting connections, lets
 * the requests in flight finish (closing each keep-alive connection as soon as it goes idle), and
 * cuts whatever still runs after `grace`. Answers the port actually bound (`port: 0` picks one).
 */
export const listen = <E, R>(
  app: HttpApp.Default<E, R>,
  options: ListenOptions
): Effect.Effect<number, ListenError, Scope.Scope | Exclude<R, Scope.Scope | HttpServerRequest.HttpServerRequest>> =>
  Effect.gen(function*() {
    const server = http.createServer()
    const context = yield* Layer.build(
      HttpServer.serve(app).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => server, { port: options.port, host: options.host ?? "0.0.0.0" }))
      )
    ).pipe(Effect.mapError((error) => new ListenError({ message: describeListenFailure(error.cause, options.port) })))
    yield* Effect.addFinalizer(() => Effect.sync(() => drain(server, options.grace)))
    const address = Context.get(context, HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? address.port : options.port
  })
