/** The Node path's streamed request body: a client's request fed to undici with backpressure both ways. */
import type * as http from "node:http"
import { Readable } from "node:stream"
import { Abort } from "./upstreamReport.js"

/** What an upload needs of its dispatch. */
export interface UploadDispatch {
  readonly settings: { readonly idleMillis: number }
  /** undici's abort of the request, once it is on a connection. */
  readonly abort: ((error?: Error) => void) | undefined
  /** The client went away: the upstream request is aborted. */
  clientGone(): void
}

/** Where the client's request finds its upload (a symbol, not a closure per listener). */
const UPLOAD = Symbol.for("@core/gateway/HttpUpstream/NodeUpload")

interface Tagged {
  [UPLOAD]?: Upload
}

const uploadOf = (emitter: object): Upload => (emitter as Tagged)[UPLOAD]!

/**
 * A request body the client is still sending, fed to undici with backpressure both ways: the
 * client's request pauses while undici has enough, and an idle timer runs while a chunk waits on
 * the upstream (never while the client is slow). undici destroying it (the request failed) leaves
 * the client's request to be read and discarded, so that the client can still get its answer.
 */
export class Upload extends Readable {
  idle: NodeJS.Timeout | undefined
  /** A chunk waits on the upstream. */
  stalled = false

  constructor(readonly dispatch: UploadDispatch, readonly inbound: http.IncomingMessage) {
    super()
    ;(inbound as Tagged)[UPLOAD] = this
    inbound.on("data", onUploadData).on("end", onUploadEnd).on("close", onUploadClose)
  }

  override _read(): void {
    this.stalled = false
    this.inbound.resume()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.idle)
    this.inbound.off("data", onUploadData).off("end", onUploadEnd).resume()
    callback(error)
  }

  /** A chunk undici has not taken yet: the client's request waits, and the upstream has `idleMillis`. */
  waiting(): void {
    this.stalled = true
    this.inbound.pause()
    if (this.idle === undefined) this.idle = setTimeout(onUploadIdle, this.dispatch.settings.idleMillis, this)
    else this.idle.refresh()
  }
}

function onUploadData(this: http.IncomingMessage, chunk: Buffer): void {
  const upload = uploadOf(this)
  if (!upload.push(chunk)) upload.waiting()
}

function onUploadEnd(this: http.IncomingMessage): void {
  uploadOf(this).push(null)
}

function onUploadClose(this: http.IncomingMessage): void {
  if (!this.complete) uploadOf(this).dispatch.clientGone()
}

/** The upstream took none of the body for the idle timeout; while connecting, the connect timeout counts instead. */
const onUploadIdle = (upload: Upload): void => {
  if (!upload.stalled) return
  const dispatch = upload.dispatch
  if (dispatch.abort !== undefined) dispatch.abort(new Abort("timeout"))
  else upload.idle!.refresh()
}
