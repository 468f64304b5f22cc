import { Cookies, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RequestId, UpstreamTimeout, UpstreamUnavailable } from "@core/kernel"
import { Cause, Duration, Effect, Option, type Scope, Stream } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import { TLSSocket } from "node:tls"
import { HOP_BY_HOP } from "./Forwarding.js"
import { isServiceName, type ServiceName } from "./Routes.js"
import type { Upstream } from "./Upstream.js"
import type { UpstreamErrorKind } from "./Metrics.js"

export type { UpstreamErrorKind } from "./Metrics.js"

/** How an HTTP upstream connects, waits and reports. */
export interface HttpUpstreamOptions {
  /**
   * How long getting a connection (a pooled one, or a new one) may take, and how long the upstream
   * may take to answer with headers once the whole request is sent. Past it: 504 `UPSTREAM_TIMEOUT`.
   * @default 30 seconds
   */
  readonly timeout?: Duration.DurationInput
  /**
   * How long a body may stand still while it waits on the upstream: the upstream not taking more
   * of the request body, or not sending more of its response body. A slow client never counts.
   * @default 60 seconds
   */
  readonly idleTimeout?: Duration.DurationInput
  /** Connections open to the upstream at most; further requests wait for a free one. @default 256 */
  readonly maxSockets?: number
  /**
   * Keep the `X-Forwarded-Proto` and `X-Forwarded-Host` a proxy in front of the gateway set
   * (`CORE_TRUST_PROXY`) instead of writing the gateway's own view. @default false
   */
  readonly trustProxy?: boolean
  /** Called once for every upstream failure, before or after the headers, e.g. to count it. */
  readonly onError?: (service: ServiceName, kind: UpstreamErrorKind) => void
}

const DEFAULT_TIMEOUT = Duration.seconds(30)
const DEFAULT_IDLE_TIMEOUT = Duration.seconds(60)
const DEFAULT_MAX_SOCKETS = 256

/** Statuses whose responses never have a body (a web `Response` refuses one). */
const BODILESS_STATUSES = new Set([204, 205, 304])

/** Why an exchange with the upstream ended early; `client` means the caller went away. */
interface Failure {
  readonly kind: UpstreamErrorKind | "client"
  readonly reason: string
  /** Failed on a pooled connection the upstream had already closed: safe to retry without a body. */
  readonly stale: boolean
}

/** The marker `destroy` is called with when a timer fires or the caller's body breaks off. */
class Abort extends Error {
  constructor(readonly kind: "timeout" | "client") {
    super(kind)
  }
}

const failureOf = (error: unknown, request: http.ClientRequest): Failure => {
  if (error instanceof Abort) return { kind: error.kind, reason: error.kind, stale: false }
  const code = (error as { code?: unknown }).code
  const reason = typeof code === "string" ? code : error instanceof Error ? error.message : "unknown"
  return { kind: "unavailable", reason, stale: request.reusedSocket && code === "ECONNRESET" }
}

const hasBody = (method: string): boolean => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"

/** The Node or web-standard request a server handed to Effect (`request.source` of both adapters). */
const sourceOf = (request: HttpServerRequest.HttpServerRequest): unknown => (request as { source?: unknown }).source

const nodeSourceOf = (request: HttpServerRequest.HttpServerRequest): http.IncomingMessage | undefined => {
  const source = sourceOf(request)
  return source instanceof http.IncomingMessage ? source : undefined
}

const inboundBody = (request: HttpServerRequest.HttpServerRequest) => {
  if (!hasBody(request.method)) return undefined
  const source = sourceOf(request)
  return source instanceof Request && source.body === null ? undefined : request.stream
}

/** The protocol and host the client used, as far as the gateway itself can see them. */
const inboundOrigin = (request: HttpServerRequest.HttpServerRequest): { proto: string; host: string | undefined } => {
  const node = nodeSourceOf(request)
  if (node !== undefined) {
    return { proto: node.socket instanceof TLSSocket ? "https" : "http", host: request.headers.host }
  }
  try {
    const url = new URL(request.originalUrl)
    return { proto: url.protocol.slice(0, -1), host: request.headers.host ?? url.host }
  } catch {
    return { proto: "http", host: request.headers.host }
  }
}

/**
 * The headers the upstream receives: the rewritten request's, `Host` the upstream's, the client's
 * address appended to `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` the inbound ones.
 */
const outboundHeaders = (
  request: HttpServerRequest.HttpServerRequest,
  upstreamHost: string,
  trustProxy: boolean
): Record<string, string> => {
  const { expect: _handledByTheGateway, ...headers }: Record<string, string> = { ...request.headers }
  if (!hasBody(request.method)) delete headers["content-length"]
  const origin = inboundOrigin(request)
  const client = Option.getOrUndefined(request.remoteAddress)
  const forwardedFor = [headers["x-forwarded-for"], client].filter((part) => part !== undefined && part !== "")
  if (forwardedFor.length > 0) headers["x-forwarded-for"] = forwardedFor.join(", ")
  if (!trustProxy || headers["x-forwarded-proto"] === undefined) headers["x-forwarded-proto"] = origin.proto
  if (!trustProxy || headers["x-forwarded-host"] === undefined) {
    if (origin.host === undefined) delete headers["x-forwarded-host"]
    else headers["x-forwarded-host"] = origin.host
  }
  headers.host = upstreamHost
  return headers
}

/** The upstream's response headers without hop-by-hop ones and without `Set-Cookie` (carried as cookies). */
const inboundHeaders = (response: http.IncomingMessage): Record<string, string> => {
  const listed = (response.headers.connection ?? "").split(",").map((name) => name.trim().toLowerCase())
  const dropped = new Set([...HOP_BY_HOP, ...listed, "set-cookie"])
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !dropped.has(name)) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

const ignore = () => {}

/** Resolves when the upstream takes more of the body (or the request ends, which the exchange reports). */
const drained = (outgoing: http.ClientRequest): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const stop = () => outgoing.off("drain", done).off("close", done)
    const done = () => {
      stop()
      resume(Effect.void)
    }
    outgoing.on("drain", done).on("close", done)
    return Effect.sync(stop)
  })

/**
 * Copy the caller's body into the upstream request with backpressure; a stall of the upstream
 * longer than `idleMillis`, or the caller's body breaking off, aborts the request.
 */
const pump = <E>(body: Stream.Stream<Uint8Array, E>, outgoing: http.ClientRequest, idleMillis: number) =>
  Stream.runForEach(body, (chunk) =>
    Effect.suspend(() =>
      outgoing.destroyed || outgoing.write(chunk)
        ? Effect.void
        : Effect.timeoutFail(drained(outgoing), { duration: idleMillis, onTimeout: () => new Abort("timeout") })
    )).pipe(
      Effect.matchCauseEffect({
        onSuccess: () => Effect.sync(() => outgoing.end()),
        onFailure: (cause) =>
          Effect.sync(() => {
            if (Cause.isInterruptedOnly(cause)) return
            const failure = Cause.failureOption(cause)
            outgoing.destroy(Option.isSome(failure) && failure.value instanceof Abort ? failure.value : new Abort("client"))
          })
      }),
      Effect.interruptible
    )

/**
 * Wait for the upstream's response headers: `timeoutMillis` for a connection, then again from the
 * moment the whole request is sent. Interruption (the caller went away) destroys the request.
 */
const awaitResponse = (outgoing: http.ClientRequest, timeoutMillis: number) =>
  Effect.async<http.IncomingMessage, Failure>((resume) => {
    const expire = () => outgoing.destroy(new Abort("timeout"))
    const connecting = setTimeout(expire, timeoutMillis)
    let answering: NodeJS.Timeout | undefined
    const settle = () => {
      clearTimeout(connecting)
      clearTimeout(answering)
    }
    outgoing.once("socket", (socket) => {
      if (!socket.connecting) return clearTimeout(connecting)
      socket.once(socket instanceof TLSSocket ? "secureConnect" : "connect", () => clearTimeout(connecting))
    })
    outgoing.once("finish", () => {
      answering = setTimeout(expire, timeoutMillis)
    })
    outgoing.once("response", (response) => {
      settle()
      response.on("error", ignore)
      resume(Effect.succeed(response))
    })
    outgoing.once("error", (error) => {
      settle()
      resume(Effect.fail(failureOf(error, outgoing)))
    })
    return Effect.sync(() => {
      settle()
      outgoing.destroy()
    })
  }).pipe(Effect.interruptible)

interface Target {
  readonly transport: typeof http | typeof https
  readonly agent: http.Agent
  readonly hostname: string
  readonly port: string
  /** `Host` of the upstream, with its port. */
  readonly host: string
  /** The base URL's path without a trailing slash (`""` for none). */
  readonly basePath: string
}

interface Settings {
  readonly service: ServiceName
  readonly target: Target
  readonly timeoutMillis: number
  readonly idleMillis: number
  readonly trustProxy: boolean
  readonly onError: (service: ServiceName, kind: UpstreamErrorKind) => void
}

/** One request to the upstream, its body pumped in the background, up to the response headers. */
const exchange = (settings: Settings, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const { target } = settings
    const outgoing = yield* Effect.acquireRelease(
      Effect.sync(() =>
        target.transport.request({
          agent: target.agent,
          hostname: target.hostname,
          port: target.port,
          method: request.method,
          path: `${target.basePath}${request.url}`,
          headers: outboundHeaders(request, target.host, settings.trustProxy)
        }).on("error", ignore)
      ),
      (outgoing) => Effect.sync(() => outgoing.destroy())
    )
    const body = inboundBody(request)
    if (body === undefined) outgoing.end()
    else yield* Effect.forkScoped(pump(body, outgoing, settings.idleMillis))
    return yield* awaitResponse(outgoing, settings.timeoutMillis)
  })

const report = (settings: Settings, requestId: string, kind: UpstreamErrorKind, message: string, reason: string) =>
  Effect.sync(() => settings.onError(settings.service, kind)).pipe(
    Effect.zipRight(Effect.logWarning(message)),
    Effect.annotateLogs({ upstream: settings.service, kind, reason, requestId })
  )

const errorOf = (service: ServiceName, kind: UpstreamErrorKind): UpstreamUnavailable | UpstreamTimeout =>
  kind === "timeout"
    ? new UpstreamTimeout({ message: `The ${service} service did not answer in time`, upstream: service })
    : new UpstreamUnavailable({ message: `The ${service} service is not reachable`, upstream: service })

/**
 * The next chunk of the upstream's body, `None` at its end. A read waiting on the upstream can be
 * interrupted at any time (an async iterator over a Node stream cannot: `return()` queues behind
 * the pending `next()`).
 */
const readChunk = (body: http.IncomingMessage): Effect.Effect<Uint8Array, Option.Option<UpstreamErrorKind>> =>
  Effect.async((resume) => {
    const brokenOff = Effect.fail(Option.some<UpstreamErrorKind>("unavailable"))
    const ended = () => (body.complete ? Effect.fail(Option.none()) : brokenOff)
    if (body.destroyed || body.readableEnded) return resume(ended())
    const settle = (effect: Effect.Effect<Uint8Array, Option.Option<UpstreamErrorKind>>) => {
      stop()
      resume(effect)
    }
    const onReadable = () => {
      const chunk: Uint8Array | null = body.read()
      if (chunk !== null) settle(Effect.succeed(chunk))
    }
    const onEnd = () => settle(ended())
    const onError = () => settle(brokenOff)
    const stop = () => body.off("readable", onReadable).off("end", onEnd).off("close", onEnd).off("error", onError)
    body.on("readable", onReadable).on("end", onEnd).on("close", onEnd).on("error", onError)
    onReadable()
    return Effect.sync(stop)
  })

/**
 * The upstream's body as a stream: pulled only as fast as the client reads, failing when the
 * upstream stands still for the idle timeout or breaks off. A break-off after the headers cannot
 * become an envelope any more: it is logged, counted, and the client's connection is reset so that
 * it sees a truncated body rather than a clean end.
 */
const bodyOf = (
  settings: Settings,
  request: HttpServerRequest.HttpServerRequest,
  response: http.IncomingMessage
): Stream.Stream<Uint8Array, UpstreamUnavailable | UpstreamTimeout> =>
  Stream.repeatEffectOption(readChunk(response)).pipe(
    Stream.timeoutFail((): UpstreamErrorKind => "timeout", Duration.millis(settings.idleMillis)),
    Stream.tapError((kind) =>
      report(settings, RequestId.requestIdOf(request), kind, "upstream response broken off", kind === "timeout" ? "idle" : "closed").pipe(
        Effect.zipRight(Effect.sync(() => nodeSourceOf(request)?.socket.destroy()))
      )),
    Stream.mapError((kind) => errorOf(settings.service, kind))
  )

const toResponse = (
  settings: Settings,
  request: HttpServerRequest.HttpServerRequest,
  response: http.IncomingMessage
): HttpServerResponse.HttpServerResponse => {
  const status = response.statusCode ?? 502
  const options = {
    status,
    statusText: response.statusMessage,
    headers: inboundHeaders(response),
    cookies: Cookies.fromSetCookie(response.headers["set-cookie"] ?? [])
  }
  if (request.method === "HEAD" || BODILESS_STATUSES.has(status)) {
    response.resume()
    return HttpServerResponse.empty(options)
  }
  return HttpServerResponse.stream(bodyOf(settings, request, response), options)
}

const forwardWith = (settings: Settings): Upstream["forward"] => (request) => {
  const attempt = exchange(settings, request)
  const once = inboundBody(request) === undefined
    ? Effect.catchIf(attempt, (failure) => failure.stale, () => attempt)
    : attempt
  return once.pipe(
    Effect.map((response) => toResponse(settings, request, response)),
    Effect.catchAll((failure) => {
      if (failure.kind === "client") return Effect.interrupt
      const message = failure.kind === "timeout" ? "upstream timed out" : "upstream unreachable"
      return report(settings, RequestId.requestIdOf(request), failure.kind, message, failure.reason).pipe(
        Effect.zipRight(Effect.fail(errorOf(settings.service, failure.kind)))
      )
    }),
    Effect.withSpan("HttpUpstream.forward", { attributes: { upstream: settings.service } })
  )
}

const parseBaseUrl = (service: ServiceName, baseUrl: string): URL => {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
  if (
    url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== ""
  ) {
    throw new Error(`The ${service} upstream URL must be http(s) without credentials, query or fragment`)
  }
  return url
}

const targetOf = (service: ServiceName, baseUrl: string, maxSockets: number): Target => {
  const url = parseBaseUrl(service, baseUrl)
  const secure = url.protocol === "https:"
  const transport = secure ? https : http
  return {
    transport,
    agent: new transport.Agent({ keepAlive: true, maxSockets }),
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? (secure ? "443" : "80") : url.port,
    host: url.host,
    basePath: url.pathname.replace(/\/+$/, "")
  }
}

/**
 * An upstream reached over HTTP(S) at `baseUrl` (`CORE_UPSTREAM_<SERVICE>_URL`). The gateway's
 * rewritten path is appended to the base URL's own path (`http://billing:8080/v2` and `/plans`
 * make `/v2/plans`). Requests go through a keep-alive pool of at most `maxSockets` connections,
 * closed with the scope; bodies stream both ways with backpressure. A connection refused, reset,
 * unresolvable or hung up before the headers answers 502 `UPSTREAM_UNAVAILABLE`; an upstream too
 * slow to connect or answer 504 `UPSTREAM_TIMEOUT` — the message names the service, never the URL.
 * A client going away aborts the upstream request. Dies at once on a base URL that is not
 * http(s), or carries credentials, a query or a fragment.
 *
 * @example
 * const billing = yield* HttpUpstream.make("BILLING", "http://billing:8080", { onError: metrics.upstreamError })
 * const app = Gateway.make({ upstreams: [billing] })
 */
export const make = (
  service: ServiceName,
  baseUrl: string,
  options: HttpUpstreamOptions = {}
): Effect.Effect<Upstream, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => targetOf(service, baseUrl, options.maxSockets ?? DEFAULT_MAX_SOCKETS)),
    (target) => Effect.sync(() => target.agent.destroy())
  ).pipe(
    Effect.map((target): Upstream => ({
      service,
      forward: forwardWith({
        service,
        target,
        timeoutMillis: Duration.toMillis(options.timeout ?? DEFAULT_TIMEOUT),
        idleMillis: Duration.toMillis(options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT),
        trustProxy: options.trustProxy ?? false,
        onError: options.onError ?? ignore
      })
    }))
  )

/**
 * One HTTP upstream per configured URL, keyed by service name in any case (the configuration's
 * `upstreams`, `{ billing: "http://billing:8080" }`); keys that name no service are skipped.
 *
 * @example
 * const upstreams = yield* HttpUpstream.makeAll(config.upstreams, {
 *   timeout: config.upstreamTimeoutMs, // CORE_UPSTREAM_TIMEOUT_MS
 *   trustProxy: config.trustProxy,
 *   onError: metrics.upstreamError
 * })
 */
export const makeAll = (
  urls: Readonly<Record<string, string | undefined>>,
  options: HttpUpstreamOptions = {}
): Effect.Effect<ReadonlyArray<Upstream>, never, Scope.Scope> =>
  Effect.forEach(
    Object.entries(urls).flatMap(([name, url]) => {
      const service = name.toUpperCase()
      return url !== undefined && isServiceName(service) ? [[service, url] as const] : []
    }),
    ([service, url]) => make(service, url, options)
  )
