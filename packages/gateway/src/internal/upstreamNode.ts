/** `HttpUpstream`'s Node path: one undici dispatch answered on Node's response, with no fiber and no stream. */
import { Runtime } from "effect"
import type * as http from "node:http"
import type { Dispatcher } from "undici"
import type { UpstreamErrorKind } from "../Metrics.js"
import type { NodeForwarding, NodeHandler } from "../Upstream.js"
import { hasBody, nodeOutboundHeaders, rawInboundHeaders } from "./upstreamHeaders.js"
import { Abort, cutConnection, errorOf, reportBrokenOff, reportFailed, type Settings } from "./upstreamReport.js"
import { Upload, type UploadDispatch } from "./upstreamUpload.js"
import { BODILESS_STATUSES, fitsWhole, joined, receiveWhole, type WholeBodyReceiver } from "./upstreamWholeBody.js"

/** The settings of the Node path: the runtime its failures are logged with (the one `make` ran in). */
export interface NodeSettings extends Settings {
  readonly runtime: Runtime.Runtime<never>
}

/** undici's errors that mean the upstream was too slow: to connect, to answer, or inside its body. */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT"
])

/** A connection closed or reset under a request, as a stale pooled one is. */
const CLOSED_CODES: ReadonlySet<string> = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"])

const codeOf = (error: Error): string | undefined => {
  const code = (error as { code?: unknown }).code
  return typeof code === "string" ? code : undefined
}

/** The kind of an upstream failure and the reason logged with it (node:http's code for a closed connection). */
const failureOf = (error: Error): { readonly kind: UpstreamErrorKind | "client"; readonly reason: string } => {
  if (error instanceof Abort) return { kind: error.kind, reason: error.kind }
  const code = codeOf(error)
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { kind: "timeout", reason: "timeout" }
  return { kind: "unavailable", reason: code === "UND_ERR_SOCKET" ? "ECONNRESET" : code ?? error.message }
}

/** Where the client's response finds its dispatch (a symbol, not a closure per listener). */
const DISPATCH = Symbol.for("@core/gateway/HttpUpstream/NodeDispatch")

interface Tagged {
  [DISPATCH]?: NodeDispatch
}

const dispatchOf = (emitter: object): NodeDispatch => (emitter as Tagged)[DISPATCH]!

/**
 * One request to the upstream through its undici pool, answered on the client's Node response.
 * A bodiless request goes at once; a body with a `Content-Length` up to `WHOLE_BODY_LIMIT` is
 * received whole and sent with the headers; a larger or unknown one streams through an `Upload`
 * (and the head's timeout is this dispatch's own, counted from the body's end, so that a stalled
 * upload is the idle timeout's alone). The head is written once: at once for a bodiless answer
 * or a streamed body, with the body for one up to `WHOLE_BODY_LIMIT`. A streamed body pauses
 * undici while the client is slow (undici's body timeout waits meanwhile). Uses undici's
 * raw-header handler (`onConnect` … `onComplete`), which skips the parsing of the controller API,
 * and keeps the connection after a HEAD or an empty body (`reset: false`), as node:http does.
 */
class NodeDispatch implements Dispatcher.DispatchHandler, UploadDispatch, WholeBodyReceiver {
  phase: "receiving" | "request" | "whole" | "streamed" | "done" = "request"
  /** undici's abort of the request, once it is on a connection. */
  abort: ((error?: Error) => void) | undefined
  gone = false
  retried = false
  upload: Upload | undefined
  /** A small request body, received whole before the request is sent with it. */
  received: Array<Uint8Array> | undefined
  headTimer: NodeJS.Timeout | undefined
  status = 0
  headers: Record<string, string | Array<string>> | undefined
  chunks: Array<Buffer> = []
  size = 0
  resume: (() => void) | undefined
  waitingForDrain = false

  constructor(
    readonly settings: NodeSettings,
    readonly client: http.ServerResponse,
    readonly forwarding: NodeForwarding,
    readonly options: Dispatcher.DispatchOptions,
    inbound: http.IncomingMessage | undefined
  ) {
    ;(client as Tagged)[DISPATCH] = this
    client.on("close", onClientClose)
    if (inbound === undefined) {
      this.send(null)
      return
    }
    if (fitsWhole(inbound.headers["content-length"])) {
      this.phase = "receiving"
      receiveWhole(inbound, this)
      return
    }
    this.upload = new Upload(this, inbound)
    this.options.headersTimeout = 0
    this.send(this.upload)
  }

  /** A small body is all there: the request leaves with it. */
  receivedWhole(body: Uint8Array): void {
    this.send(body)
  }

  /** The client's connection closed before its small body was all there: nothing is sent. */
  receivingClosed(complete: boolean): void {
    if (!complete) this.clientGone()
  }

  send(body: Dispatcher.DispatchOptions["body"]): void {
    this.phase = "request"
    this.options.body = body
    this.settings.target.pool.dispatch(this.options, this)
  }

  /** The client went away: the upstream request is aborted (its connection with it), or never sent. */
  clientGone(): void {
    if (this.gone) return
    this.gone = true
    clearTimeout(this.headTimer)
    if (this.phase === "receiving") this.phase = "done"
    else this.abort?.(new Abort("client"))
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.gone) return abort(new Abort("client"))
    this.abort = abort
  }

  /** The whole request is sent: a streamed upload's upstream has `timeout` from now to answer. */
  onRequestSent(): void {
    if (this.upload !== undefined) this.headTimer = setTimeout(onHeadTimeout, this.settings.timeoutMillis, this)
  }

  onHeaders(status: number, raw: Array<Buffer>, resume: () => void): boolean {
    if (status < 200) return true
    clearTimeout(this.headTimer)
    const headers = rawInboundHeaders(raw)
    const client = this.client
    if (this.options.method === "HEAD" || BODILESS_STATUSES.has(status)) {
      client.writeHead(status, headers).end()
      this.phase = "done"
      return true
    }
    if (fitsWhole(headers["content-length"] as string | undefined)) {
      this.phase = "whole"
      this.status = status
      this.headers = headers
      return true
    }
    client.writeHead(status, headers)
    this.phase = "streamed"
    this.resume = resume
    client.on("drain", onClientDrain)
    return true
  }

  onData(chunk: Buffer): boolean {
    if (this.phase === "whole") {
      this.chunks.push(chunk)
      this.size += chunk.length
      return true
    }
    if (this.client.write(chunk)) return true
    this.waitingForDrain = true
    return false
  }

  onComplete(): void {
    const phase = this.phase
    this.phase = "done"
    if (phase === "whole") {
      this.client.writeHead(this.status, this.headers!).end(joined(this.chunks, this.size))
    } else if (phase === "streamed") this.client.end()
  }

  onError(error: Error): void {
    clearTimeout(this.headTimer)
    const phase = this.phase
    this.phase = "done"
    this.abort = undefined
    if (this.gone || phase === "done") return
    const { kind, reason } = failureOf(error)
    if (kind === "client") return
    if (phase === "request") return this.failed(error, kind, reason)
    if (phase === "whole") {
      this.client.writeHead(this.status, this.headers!)
      for (const chunk of this.chunks) this.client.write(chunk)
    }
    this.brokenOffAfterHead(kind)
  }

  /** No head came: a bodiless request on a connection that closed under it goes once more, else the gateway answers. */
  failed(error: Error, kind: UpstreamErrorKind, reason: string): void {
    const code = codeOf(error)
    if (this.options.body === null && !this.retried && code !== undefined && CLOSED_CODES.has(code)) {
      this.retried = true
      return this.send(null)
    }
    const { forwarding, settings } = this
    Runtime.runSync(settings.runtime, reportFailed(settings, forwarding.requestId, kind, reason))
    forwarding.fail(errorOf(settings.service, kind))
  }

  /** The body broke off or stood still after the head: reported, and the client's connection cut. */
  brokenOffAfterHead(kind: UpstreamErrorKind): void {
    Runtime.runSync(this.settings.runtime, reportBrokenOff(this.settings, this.forwarding.requestId, kind))
    const socket = this.client.socket
    if (socket !== null) cutConnection(socket)
    else this.client.destroy()
  }
}

/** A streamed upload was sent whole and no head came within the timeout. */
const onHeadTimeout = (dispatch: NodeDispatch): void => {
  if (dispatch.phase === "request") dispatch.abort?.(new Abort("timeout"))
}

function onClientClose(this: http.ServerResponse): void {
  if (!this.writableFinished) dispatchOf(this).clientGone()
}

/** The client took what was written: undici reads the upstream's body again. */
function onClientDrain(this: http.ServerResponse): void {
  const dispatch = dispatchOf(this)
  if (!dispatch.waitingForDrain || dispatch.phase !== "streamed") return
  dispatch.waitingForDrain = false
  dispatch.resume!()
}

/**
 * The `node` of an HTTP upstream: the request goes out under the base path with the gateway's
 * headers and the forwarding ones, its body (if the method has one) streamed with backpressure or,
 * up to 64 KiB with a `Content-Length`, sent whole; the answer is written on `response` as
 * `forward` would answer it, a failure before the head handed to `forwarding.fail`.
 */
export const nodeWith = (settings: NodeSettings): NodeHandler => {
  const { basePath, host } = settings.target
  return (request, response, forwarding) => {
    const method = request.method ?? "GET"
    const options: Dispatcher.DispatchOptions = {
      path: basePath + forwarding.url,
      method,
      reset: false,
      headers: nodeOutboundHeaders(request, forwarding.headers, host, settings.trustProxy)
    }
    new NodeDispatch(settings, response, forwarding, options, hasBody(method) ? request : undefined)
  }
}
