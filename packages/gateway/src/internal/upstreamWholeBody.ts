/**
 * Bodies held whole on both paths of `HttpUpstream`: the size up to which a body is, the statuses
 * that never have one, and a small request body received whole before the upstream request leaves
 * with it.
 */
import type * as http from "node:http"

/** Bodies with a `Content-Length` up to this are held whole: a response before it is answered, a request before it is sent. */
export const WHOLE_BODY_LIMIT = 64 * 1024

/** Statuses whose responses never have a body (a web `Response` refuses one). */
export const BODILESS_STATUSES: ReadonlySet<number> = new Set([204, 205, 304])

/** A `Content-Length` header's value as a number, if it is a valid one. */
const contentLengthOf = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const length = Number(value)
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined
}

/** Whether a body with this `Content-Length` is held whole: a valid length up to `WHOLE_BODY_LIMIT`. */
export const fitsWhole = (contentLength: string | undefined): boolean => {
  const length = contentLengthOf(contentLength)
  return length !== undefined && length <= WHOLE_BODY_LIMIT
}

/** The chunks of a body as one (the chunk itself when there is one); `size` is their total length, if known. */
export const joined = (chunks: ReadonlyArray<Uint8Array>, size?: number): Uint8Array =>
  chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)

/** What receives a small request body whole (an exchange of `forward`, a dispatch of the Node path). */
export interface WholeBodyReceiver {
  /** `"receiving"` while the body comes in. */
  readonly phase: string
  /** The chunks so far. */
  received: Array<Uint8Array> | undefined
  /** The body is all there: the request leaves with it. */
  receivedWhole(body: Uint8Array): void
  /** The caller's request closed; `complete` when all of its body had come. */
  receivingClosed(complete: boolean): void
}

/** Where a request body's listeners find its receiver (a symbol, not a closure per listener). */
const RECEIVER = Symbol.for("@core/gateway/HttpUpstream/WholeBodyReceiver")

interface Tagged {
  [RECEIVER]?: WholeBodyReceiver
}

const receiverOf = (emitter: object): WholeBodyReceiver => (emitter as Tagged)[RECEIVER]!

/** Receive `inbound`'s body whole for `receiver`, which is in its `"receiving"` phase. */
export const receiveWhole = (inbound: http.IncomingMessage, receiver: WholeBodyReceiver): void => {
  receiver.received = []
  ;(inbound as Tagged)[RECEIVER] = receiver
  inbound.on("data", onReceivedData).on("end", onReceivedEnd).on("close", onReceivedClose)
}

function onReceivedData(this: http.IncomingMessage, chunk: Uint8Array): void {
  receiverOf(this).received?.push(chunk)
}

/** A small body is all there: the request leaves with it. */
function onReceivedEnd(this: http.IncomingMessage): void {
  const receiver = receiverOf(this)
  const received = receiver.received
  if (receiver.phase !== "receiving" || received === undefined) return
  receiver.received = undefined
  receiver.receivedWhole(joined(received))
}

function onReceivedClose(this: http.IncomingMessage): void {
  receiverOf(this).receivingClosed(this.complete)
}
