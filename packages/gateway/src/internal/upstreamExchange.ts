/** One HTTP exchange with an upstream on Node's events: the request, its body, the response's head and small bodies. */
import type * as http from "node:http"
import { TLSSocket } from "node:tls"
import type { Socket } from "node:net"
import type { Outcome } from "./upstreamOutcome.js"
import { Abort } from "./upstreamReport.js"
import type { Target, Timeouts } from "./upstreamTarget.js"
import { BODILESS_STATUSES, fitsWhole, joined, receiveWhole, type WholeBodyReceiver } from "./upstreamWholeBody.js"

/**
 * Where the request body comes from: none; bytes already in hand, sent with the headers; a Node
 * request copied with backpressure as it arrives; or the caller writing into `outgoing`.
 */
export type BodySource = "none" | { readonly node: http.IncomingMessage } | "caller"

const ignore = () => {}

/** Where an upstream request, its response and a Node request body find their exchange. */
const EXCHANGE = Symbol.for("@core/gateway/HttpUpstream/Exchange")

interface Tagged {
  [EXCHANGE]?: Exchange
}

/** Let a listener on `emitter` find `exchange` with `exchangeOf` (a symbol, not a closure). */
export const tag = (emitter: object, exchange: Exchange): void => {
  ;(emitter as Tagged)[EXCHANGE] = exchange
}

/** The exchange `emitter` was tagged with. */
export const exchangeOf = <A extends Exchange = Exchange>(emitter: object): A => (emitter as Tagged)[EXCHANGE] as A

/**
 * One request to an upstream, driven by Node's events alone (no fiber, no stream) up to an
 * `Outcome`: the connection and header timeouts; a Node request body with a `Content-Length` up to
 * `WHOLE_BODY_LIMIT` received whole and sent with the headers, a larger or unknown one copied with
 * backpressure and the idle timeout; one retry of a bodiless request on a stale pooled
 * connection; a response body up to `WHOLE_BODY_LIMIT` read whole. `abort` ends it from outside
 * (the caller went away).
 *
 * Its listeners are module functions that find the exchange through a symbol on the emitter, and
 * its timers take it as their argument: no closure per listener and per forward.
 */
export class Exchange implements WholeBodyReceiver {
  /** The request to the upstream, once sent; a caller-written body goes here. */
  outgoing: http.ClientRequest | undefined
  /** The Node request whose body is copied, if it is. */
  readonly inbound: http.IncomingMessage | undefined
  phase: "receiving" | "request" | "body" | "done" = "request"
  /** A small Node request body, received whole before the request is sent with it. */
  received: Array<Uint8Array> | undefined
  timer: NodeJS.Timeout | undefined
  bodyIdle: NodeJS.Timeout | undefined
  uploadIdle: NodeJS.Timeout | undefined
  waitingForDrain = false
  sent = false
  connected = false
  retried = false
  abortedBy: Abort["kind"] | undefined
  outcome: Outcome | undefined
  listener: ((outcome: Outcome, exchange: Exchange) => void) | undefined
  chunks: Array<Uint8Array> = []
  size = 0
  response: http.IncomingMessage | undefined

  constructor(
    readonly target: Target,
    readonly timeouts: Timeouts,
    readonly options: http.RequestOptions,
    readonly body: BodySource
  ) {
    const inbound = typeof body === "object" ? body.node : undefined
    this.inbound = inbound
    if (inbound !== undefined) tag(inbound, this)
    if (inbound !== undefined && fitsWhole(inbound.headers["content-length"])) {
      this.phase = "receiving"
      receiveWhole(inbound, this)
      return
    }
    this.send()
    inbound?.on("data", onInboundData).on("end", onInboundEnd).on("close", onInboundClose)
  }

  /** Call `listener` with the outcome (and this exchange), now or when it comes. */
  await(listener: (outcome: Outcome, exchange: Exchange) => void): void {
    if (this.outcome === undefined) this.listener = listener
    else listener(this.outcome, this)
  }

  /** End the exchange: timers cleared, the upstream request (and its connection) destroyed. */
  abort(): void {
    this.phase = "done"
    this.listener = undefined
    this.clearTimers()
    clearTimeout(this.uploadIdle)
    this.outgoing?.destroy()
  }

  /** A small Node request body is all there: the request leaves with it. */
  receivedWhole(body: Uint8Array): void {
    this.phase = "request"
    this.send(body)
  }

  /** The caller's connection closed before its small body was all there. */
  receivingClosed(): void {
    if (this.phase === "receiving") this.settle({ _tag: "Failed", failure: { kind: "client", reason: "client" } })
  }

  send(body?: Uint8Array): void {
    const outgoing = this.target.transport.request(this.options)
    tag(outgoing, this)
    this.outgoing = outgoing
    this.sent = false
    outgoing.on("response", onResponse).on("error", onError).on("finish", onFinish)
    this.timer = setTimeout(onTimeout, this.timeouts.timeoutMillis, this)
    if (this.body === "none" || body !== undefined) outgoing.end(body)
    else outgoing.once("socket", onSocket).on("drain", onDrain).on("close", onOutgoingClose)
  }

  settle(outcome: Outcome): void {
    if (this.phase === "done") return
    this.phase = "done"
    this.clearTimers()
    this.outcome = outcome
    const listener = this.listener
    this.listener = undefined
    listener?.(outcome, this)
  }

  clearTimers(): void {
    clearTimeout(this.timer)
    clearTimeout(this.bodyIdle)
  }

  destroy(kind: Abort["kind"]): void {
    this.abortedBy ??= kind
    this.outgoing?.destroy(new Abort(kind))
    this.response?.destroy()
  }

  failed(error: unknown): void {
    clearTimeout(this.timer)
    if (error instanceof Abort) return this.settle({ _tag: "Failed", failure: { kind: error.kind, reason: error.kind } })
    const code = (error as { code?: unknown }).code
    const stale = this.outgoing?.reusedSocket === true && code === "ECONNRESET"
    if (stale && this.body === "none" && !this.retried) {
      this.retried = true
      return this.send()
    }
    const reason = typeof code === "string" ? code : error instanceof Error ? error.message : "unknown"
    this.settle({ _tag: "Failed", failure: { kind: "unavailable", reason } })
  }

  answered(response: http.IncomingMessage): void {
    clearTimeout(this.timer)
    this.response = response
    response.on("error", ignore)
    const status = response.statusCode ?? 502
    if (this.options.method === "HEAD" || BODILESS_STATUSES.has(status)) {
      response.resume()
      return this.settle({ _tag: "Bodiless", response })
    }
    if (!fitsWhole(response.headers["content-length"])) return this.settle({ _tag: "Streamed", response })
    this.phase = "body"
    tag(response, this)
    this.bodyIdle = setTimeout(onBodyIdle, this.timeouts.idleMillis, this)
    response.on("data", onResponseData).on("end", onResponseEnd).on("close", onResponseClose)
  }

  brokenOff(): void {
    const kind = this.abortedBy ?? "unavailable"
    if (kind === "client") return this.settle({ _tag: "Failed", failure: { kind, reason: kind } })
    this.settle({ _tag: "BrokenOff", response: this.response!, chunks: this.chunks, kind })
  }
}

/** Once the connection is up (TLS included), no timeout applies until the body is sent. */
function onSocket(this: http.ClientRequest, socket: Socket): void {
  const exchange = exchangeOf(this)
  if (!socket.connecting) exchange.connected = true
  else socket.once(socket instanceof TLSSocket ? "secureConnect" : "connect", () => (exchange.connected = true))
}

/** The whole request is sent: the upstream has `timeout` from now to answer with headers. */
function onFinish(this: http.ClientRequest): void {
  const exchange = exchangeOf(this)
  exchange.sent = true
  exchange.timer?.refresh()
}

/** Connecting, or waiting for headers, took too long (an upload in progress never does). */
const onTimeout = (exchange: Exchange): void => {
  if (exchange.phase === "request" && (exchange.sent || !exchange.connected)) exchange.destroy("timeout")
}

function onError(this: http.ClientRequest, error: unknown): void {
  const exchange = exchangeOf(this)
  if (exchange.phase === "request" && exchange.outgoing === this) exchange.failed(error)
}

function onResponse(this: http.ClientRequest, response: http.IncomingMessage): void {
  const exchange = exchangeOf(this)
  if (exchange.phase === "request") exchange.answered(response)
  else response.destroy()
}

function onResponseData(this: http.IncomingMessage, chunk: Uint8Array): void {
  const exchange = exchangeOf(this)
  exchange.chunks.push(chunk)
  exchange.size += chunk.length
  exchange.bodyIdle?.refresh()
}

function onResponseEnd(this: http.IncomingMessage): void {
  const exchange = exchangeOf(this)
  exchange.settle({ _tag: "Whole", response: this, body: joined(exchange.chunks, exchange.size) })
}

function onResponseClose(this: http.IncomingMessage): void {
  const exchange = exchangeOf(this)
  if (exchange.phase === "body") exchange.brokenOff()
}

const onBodyIdle = (exchange: Exchange): void => {
  if (exchange.phase === "body") exchange.destroy("timeout")
}

/** A Node request body's chunk: the upstream takes it, or the body pauses until it drains. */
function onInboundData(this: http.IncomingMessage, chunk: Uint8Array): void {
  const exchange = exchangeOf(this)
  const outgoing = exchange.outgoing!
  if (outgoing.destroyed || outgoing.write(chunk)) return
  this.pause()
  exchange.waitingForDrain = true
  if (exchange.uploadIdle === undefined) exchange.uploadIdle = setTimeout(onUploadIdle, exchange.timeouts.idleMillis, exchange)
  else exchange.uploadIdle.refresh()
}

function onDrain(this: http.ClientRequest): void {
  const exchange = exchangeOf(this)
  if (!exchange.waitingForDrain) return
  exchange.waitingForDrain = false
  exchange.inbound?.resume()
}

/**
 * The upstream request is gone (failed, timed out, aborted, or done): a Node body it was waiting
 * on flows again and is discarded, as Node's server does with a body nobody reads, so that the
 * client can finish sending and read the answer.
 */
function onOutgoingClose(this: http.ClientRequest): void {
  const exchange = exchangeOf(this)
  clearTimeout(exchange.uploadIdle)
  if (!exchange.waitingForDrain) return
  exchange.waitingForDrain = false
  exchange.inbound?.resume()
}

/** The upstream took no more of the body for the idle timeout. */
const onUploadIdle = (exchange: Exchange): void => {
  if (exchange.waitingForDrain && !exchange.outgoing!.destroyed) exchange.destroy("timeout")
}

function onInboundEnd(this: http.IncomingMessage): void {
  const outgoing = exchangeOf(this).outgoing!
  if (!outgoing.destroyed) outgoing.end()
}

/** The caller's connection closed: before its body was complete, the upstream request is aborted. */
function onInboundClose(this: http.IncomingMessage): void {
  const exchange = exchangeOf(this)
  clearTimeout(exchange.uploadIdle)
  if (!this.complete && !exchange.outgoing!.destroyed) exchange.destroy("client")
}
