/** `HttpUpstream`'s Node path: an exchange answered on Node's response, with no fiber and no stream. */
import { Runtime } from "effect"
import type * as http from "node:http"
import type { UpstreamErrorKind } from "../Metrics.js"
import type { NodeForwarding, NodeHandler } from "../Upstream.js"
import { type BodySource, Exchange, exchangeOf, type Outcome, tag } from "./upstreamExchange.js"
import { hasBody, nodeInboundHeaders, nodeOutboundHeaders } from "./upstreamHeaders.js"
import { cutConnection, errorOf, reportBrokenOff, reportFailed, type Settings } from "./upstreamReport.js"

/** The settings of the Node path: the runtime its failures are logged with (the one `make` ran in). */
export interface NodeSettings extends Settings {
  readonly runtime: Runtime.Runtime<never>
}

/**
 * An exchange that answers on a Node response: it writes the head once, then the body whole or
 * streamed with backpressure (the idle timer runs only while the upstream is awaited, never while
 * the client is slow), and aborts when the client goes away. Found by its listeners through the
 * exchange's symbol, as the `Exchange`'s own are.
 */
class NodeExchange extends Exchange {
  constructor(
    readonly settings: NodeSettings,
    readonly client: http.ServerResponse,
    readonly forwarding: NodeForwarding,
    options: http.RequestOptions,
    body: BodySource
  ) {
    super(settings.target, settings, options, body)
    tag(client, this)
    client.on("close", onClientClose)
    this.listener = answer
  }

  /** Pipe the upstream's body into the client, pausing it while the client is slow. */
  stream(response: http.IncomingMessage): void {
    tag(response, this)
    this.bodyIdle = setTimeout(onStreamIdle, this.timeouts.idleMillis, this)
    this.client.on("drain", onClientDrain)
    response.on("data", onStreamData).on("end", onStreamEnd).on("close", onStreamClose)
  }

  /** The body broke off or stood still after the head: reported, and the client's connection cut. */
  brokenOffAfterHead(kind: UpstreamErrorKind): void {
    clearTimeout(this.bodyIdle)
    Runtime.runSync(this.settings.runtime, reportBrokenOff(this.settings, this.forwarding.requestId, kind))
    const socket = this.client.socket
    if (socket !== null) cutConnection(socket)
    else this.client.destroy()
  }

  /** The client went away: the upstream request and its response are destroyed, its connection with them. */
  clientGone(): void {
    this.abortedBy ??= "client"
    this.abort()
    this.response?.destroy()
  }
}

const answer = (outcome: Outcome, exchange: Exchange): void => {
  const { client, forwarding, settings } = exchange as NodeExchange
  if (outcome._tag === "Failed") {
    const { kind, reason } = outcome.failure
    if (kind === "client") return
    Runtime.runSync(settings.runtime, reportFailed(settings, forwarding.requestId, kind, reason))
    return forwarding.fail(errorOf(settings.service, kind))
  }
  const response = outcome.response
  client.writeHead(response.statusCode ?? 502, nodeInboundHeaders(response))
  switch (outcome._tag) {
    case "Whole":
      client.end(outcome.body)
      return
    case "Bodiless":
      client.end()
      return
    case "Streamed":
      return (exchange as NodeExchange).stream(response)
    case "BrokenOff":
      for (const chunk of outcome.chunks) client.write(chunk)
      return (exchange as NodeExchange).brokenOffAfterHead(outcome.kind)
  }
}

function onClientClose(this: http.ServerResponse): void {
  if (!this.writableFinished) exchangeOf<NodeExchange>(this).clientGone()
}

function onStreamData(this: http.IncomingMessage, chunk: Uint8Array): void {
  const exchange = exchangeOf<NodeExchange>(this)
  exchange.bodyIdle?.refresh()
  if (!exchange.client.write(chunk)) this.pause()
}

/** The client took what was written: the upstream's body flows again, and the idle timer counts from now. */
function onClientDrain(this: http.ServerResponse): void {
  const exchange = exchangeOf<NodeExchange>(this)
  const response = exchange.response
  if (response === undefined || !response.isPaused()) return
  exchange.bodyIdle?.refresh()
  response.resume()
}

/** The upstream sent nothing for the idle timeout; while the client is what holds the body up, the timer waits. */
const onStreamIdle = (exchange: NodeExchange): void => {
  if (exchange.response!.isPaused()) exchange.bodyIdle!.refresh()
  else exchange.destroy("timeout")
}

function onStreamEnd(this: http.IncomingMessage): void {
  const exchange = exchangeOf<NodeExchange>(this)
  clearTimeout(exchange.bodyIdle)
  exchange.client.end()
}

function onStreamClose(this: http.IncomingMessage): void {
  if (this.complete) return
  const exchange = exchangeOf<NodeExchange>(this)
  const kind = exchange.abortedBy ?? "unavailable"
  if (kind === "client") clearTimeout(exchange.bodyIdle)
  else exchange.brokenOffAfterHead(kind)
}

/**
 * The `node` of an HTTP upstream: the request goes out under the base path with the gateway's
 * headers and the forwarding ones, its body (if the method has one) copied with backpressure or,
 * up to 64 KiB with a `Content-Length`, sent whole; the answer is written on `response` as
 * `forward` would answer it, a failure before the head handed to `forwarding.fail`.
 */
export const nodeWith = (settings: NodeSettings): NodeHandler => {
  const { agent, basePath, host, hostname, port } = settings.target
  return (request, response, forwarding) => {
    const method = request.method ?? "GET"
    const options: http.RequestOptions = {
      agent,
      hostname,
      port,
      method,
      path: basePath + forwarding.url,
      headers: nodeOutboundHeaders(request, forwarding.headers, host, settings.trustProxy)
    }
    new NodeExchange(settings, response, forwarding, options, hasBody(method) ? { node: request } : "none")
  }
}
