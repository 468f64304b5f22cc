/** How an exchange with an upstream ends, as far as it goes without the caller: what `forward` answers. */
import type * as http from "node:http"
import type { UpstreamErrorKind } from "../Metrics.js"

/** Why an exchange ended before the upstream's headers; `client` means the caller went away. */
export interface Failure {
  readonly kind: UpstreamErrorKind | "client"
  /** The socket error's code (`ECONNREFUSED`, …), or the kind for a timeout. */
  readonly reason: string
}

/** How an exchange ended, as far as it goes without the caller. */
export type Outcome =
  /** The whole body, read because its `Content-Length` is at most `WHOLE_BODY_LIMIT`. */
  | { readonly _tag: "Whole"; readonly response: http.IncomingMessage; readonly body: Uint8Array }
  /** A HEAD request or a 204/205/304 status: headers only. */
  | { readonly _tag: "Bodiless"; readonly response: http.IncomingMessage }
  /** Headers, the body still to be streamed from `response`. */
  | { readonly _tag: "Streamed"; readonly response: http.IncomingMessage }
  /** A body read whole that broke off or stood still after `chunks`. */
  | {
    readonly _tag: "BrokenOff"
    readonly response: http.IncomingMessage
    readonly chunks: ReadonlyArray<Uint8Array>
    readonly kind: UpstreamErrorKind
  }
  | { readonly _tag: "Failed"; readonly failure: Failure }
