import type { RequestHandler } from "express"
import type { IncomingMessage } from "node:http"
import { type BridgeOptions, type Handler, handle, type ReadBody } from "./internal/nodeBridge.js"

export type { BridgeOptions } from "./internal/nodeBridge.js"

/** A body a parser such as `express.json()` already consumed, as it kept it. */
const parsedBody = (req: IncomingMessage): ReadBody | undefined => {
  const parsed = req as IncomingMessage & { readonly body?: unknown }
  if (!req.readableEnded || parsed.body === undefined) return undefined
  if (typeof parsed.body === "string") return parsed.body
  return parsed.body instanceof Uint8Array ? new Uint8Array(parsed.body) : JSON.stringify(parsed.body)
}

/**
 * Express middleware serving a web handler; mount it with `app.use(prefix, ...)` and the service sees
 * its own paths (Express makes `req.url` relative to the mount) and the mount as
 * `X-Forwarded-Prefix` (`req.baseUrl`), so that its links and form actions follow it. The request body streams to the app
 * under `maxBodySize`; the response streams back with backpressure. Mount it before body parsers
 * (a body one already consumed is passed on re-encoded as JSON).
 *
 * @example
 * app.use("/core", Express.middleware(Web.make(service, ServiceLive).handler))
 */
export const middleware = (handler: Handler, options?: BridgeOptions): RequestHandler => (req, res) =>
  void handle(handler, req, res, options, parsedBody(req), req.baseUrl)
