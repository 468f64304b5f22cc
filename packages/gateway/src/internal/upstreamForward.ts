/** `HttpUpstream`'s forward: an exchange awaited by the request's fiber, and its outcome turned into the answer. */
import { Cookies, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RequestId, type UpstreamTimeout, type UpstreamUnavailable } from "@core/kernel"
import { type Cause, Effect, type Scope, Stream } from "effect"
import * as http from "node:http"
import * as net from "node:net"
import type { UpstreamErrorKind } from "../Metrics.js"
import type { Upstream } from "../Upstream.js"
import { pump, streamOf } from "./upstreamBody.js"
import { type BodySource, Exchange } from "./upstreamExchange.js"
import { hasBody, inboundHeaders, outboundHeaders, sourceOf } from "./upstreamHeaders.js"
import type { Outcome } from "./upstreamOutcome.js"
import { cutConnection, errorOf, reportBrokenOff, reportFailed, type Settings } from "./upstreamReport.js"

type Forwarded = Effect.Effect<HttpServerResponse.HttpServerResponse, UpstreamUnavailable | UpstreamTimeout, Scope.Scope>

/**
 * A body that breaks off after the headers cannot become an envelope any more: it is logged,
 * counted, and the client's connection cut.
 */
const resetOnFailure = (
  settings: Settings,
  request: HttpServerRequest.HttpServerRequest,
  body: Stream.Stream<Uint8Array, UpstreamErrorKind>
): Stream.Stream<Uint8Array, UpstreamUnavailable | UpstreamTimeout> =>
  body.pipe(
    Stream.tapError((kind) =>
      reportBrokenOff(settings, RequestId.requestIdOf(request), kind).pipe(
        Effect.zipRight(Effect.sync(() => {
          const socket = (sourceOf(request) as Partial<http.IncomingMessage> | undefined)?.socket
          if (socket instanceof net.Socket) cutConnection(socket)
        }))
      )),
    Stream.mapError((kind) => errorOf(settings.service, kind))
  )

const responseOptions = (response: http.IncomingMessage) => {
  const setCookie = response.headers["set-cookie"]
  return {
    status: response.statusCode ?? 502,
    statusText: response.statusMessage,
    headers: inboundHeaders(response),
    cookies: setCookie === undefined ? Cookies.empty : Cookies.fromSetCookie(setCookie)
  }
}

/** The gateway's answer to how an exchange ended. */
const answer = (settings: Settings, request: HttpServerRequest.HttpServerRequest, outcome: Outcome): Forwarded => {
  switch (outcome._tag) {
    case "Whole":
      return Effect.succeed(HttpServerResponse.uint8Array(outcome.body, responseOptions(outcome.response)))
    case "Bodiless":
      return Effect.succeed(HttpServerResponse.empty(responseOptions(outcome.response)))
    case "Streamed": {
      const body = resetOnFailure(settings, request, streamOf(outcome.response, settings.idleMillis))
      const response = outcome.response
      return Effect.as(
        Effect.addFinalizer(() => Effect.sync(() => response.destroy())),
        HttpServerResponse.stream(body, responseOptions(response))
      )
    }
    case "BrokenOff": {
      const body = Stream.concat(Stream.fromIterable(outcome.chunks), Stream.fail(outcome.kind))
      return Effect.succeed(HttpServerResponse.stream(resetOnFailure(settings, request, body), responseOptions(outcome.response)))
    }
    case "Failed": {
      const { kind, reason } = outcome.failure
      if (kind === "client") return Effect.interrupt
      return Effect.zipRight(
        reportFailed(settings, RequestId.requestIdOf(request), kind, reason),
        Effect.fail(errorOf(settings.service, kind))
      )
    }
  }
}

const requestOptions = (
  settings: Settings,
  request: HttpServerRequest.HttpServerRequest,
  node: http.IncomingMessage | undefined
): http.RequestOptions => ({
  agent: settings.target.agent,
  hostname: settings.target.hostname,
  port: settings.target.port,
  method: request.method,
  path: `${settings.target.basePath}${request.url}`,
  headers: outboundHeaders(request, node, settings.target.host, settings.trustProxy)
})

/** An exchange until its outcome comes; after it, the forward's fiber reaches nothing of the exchange. */
interface Pending {
  exchange: Exchange | undefined
}

/**
 * Await the outcome of the exchange `start` begins, and answer it. Only the await is
 * interruptible; the failure handler around it then runs uninterruptibly and aborts the exchange
 * (the caller went away). Measured choices (decision 0161): a canceler returned to `Effect.async`
 * does the same through `Effect.onInterrupt` at about twice the cost of the whole await; a fiber
 * holding the exchange (an `Effect.suspend` around it) kept every exchange alive into V8's old
 * generation, so the fiber reaches it only through `pending`, emptied with the outcome; and one
 * `pending` per `forward(request)` call, rather than one per run of its effect, promoted less
 * still. Every caller runs a forward's effect once; were it run twice at the same time, only the
 * later exchange would be aborted by an interruption (the earlier one still ends with its timeouts).
 */
const exchanged = (
  settings: Settings,
  request: HttpServerRequest.HttpServerRequest,
  start: () => Exchange
): Forwarded => {
  const pending: Pending = { exchange: undefined }
  return Effect.uninterruptible(Effect.matchCauseEffect(
    Effect.interruptible(
      Effect.async<HttpServerResponse.HttpServerResponse, UpstreamUnavailable | UpstreamTimeout, Scope.Scope>((resume) => {
        const exchange = start()
        pending.exchange = exchange
        exchange.await((outcome) => {
          pending.exchange = undefined
          resume(answer(settings, request, outcome))
        })
      })
    ),
    { onFailure: abortPending(pending), onSuccess: Effect.succeed }
  ))
}

const abortPending = (pending: Pending) => (cause: Cause.Cause<UpstreamUnavailable | UpstreamTimeout>) => {
  pending.exchange?.abort()
  return Effect.failCause(cause)
}

/**
 * The forward of a web request with a body (an in-process caller's, or a web handler's): the
 * exchange is started in the request's scope, which aborts it when it closes, and a fiber in
 * that scope copies the body stream into it.
 */
const forwardPumped = (settings: Settings, request: HttpServerRequest.HttpServerRequest): Forwarded =>
  Effect.acquireRelease(
    Effect.sync(() => new Exchange(settings.target, settings, requestOptions(settings, request, undefined), "caller")),
    (exchange) => Effect.sync(() => exchange.abort())
  ).pipe(
    Effect.tap((exchange) => Effect.forkScoped(pump(request.stream, exchange.outgoing!, settings.idleMillis))),
    Effect.flatMap((exchange) => exchanged(settings, request, () => exchange))
  )

/** Effect's built-in tracer, which records nothing: spans for it are skipped. */
const builtInTracer = Effect.runSync(Effect.tracer)

/**
 * The `forward` of an HTTP upstream: a Node request (with or without a body) and any bodiless
 * request go through one `Exchange` awaited by one fiber step; a web request with a body has its
 * stream copied by a fiber of its own. Spanned (`HttpUpstream.forward`) when a tracer other than
 * Effect's built-in one, which records nothing, is installed.
 */
export const forwardWith = (settings: Settings): Upstream["forward"] => {
  const span = { attributes: { upstream: settings.service }, captureStackTrace: false }
  return (request) => {
    const source = sourceOf(request)
    const node = source instanceof http.IncomingMessage ? source : undefined
    const body: BodySource | undefined = !hasBody(request.method) || (source instanceof Request && source.body === null)
      ? "none"
      : node === undefined
      ? undefined
      : { node }
    const forward = body === undefined
      ? forwardPumped(settings, request)
      : exchanged(settings, request, () => new Exchange(settings.target, settings, requestOptions(settings, request, node), body))
    return Effect.tracerWith((tracer) =>
      tracer === builtInTracer ? forward : Effect.withSpan(forward, "HttpUpstream.forward", span)
    )
  }
}
