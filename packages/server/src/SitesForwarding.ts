import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Forwarding, type Upstream } from "@core/gateway"
import { LocalEdge } from "@core/provisioning"

/** A `node:http` request listener. */
export type Listener = (request: IncomingMessage, response: ServerResponse) => void

/** Whether a `Host` names a local edge site: `<project>.localhost` or `<branch>.<project>.localhost`. */
export const isSiteHost = (host: string | undefined): boolean =>
  LocalEdge.projectOfHost(host) !== undefined || LocalEdge.previewOfHost(host) !== undefined

const HOP_BY_HOP: ReadonlySet<string> = new Set(Forwarding.HOP_BY_HOP)

/** The request's headers as they go on: no hop-by-hop ones, none of the `X-Core-*` a client may send. */
const headersOf = (request: IncomingMessage, requestId: string): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const name in request.headers) {
    const value = request.headers[name]
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith("x-core-")) continue
    headers[name] = typeof value === "string" ? value : value.join(", ")
  }
  headers["x-request-id"] = requestId
  return headers
}

/**
 * The local edge's sites when the provisioning service runs in another process
 * (`CORE_UPSTREAM_PROVISIONING_URL`; decision 0554): a request whose `Host` names a site goes to the
 * provisioning upstream on its Node path — the path and query as they came, the site's host in
 * `X-Forwarded-Host` (the upstream's `LocalPages` serves it from there) — and a provisioning
 * service that cannot be reached answers 502 (504 when too slow), as plain text like the sites'
 * own errors. Every other host goes to `next`, the gateway.
 */
export const listener = (next: Listener, provisioning: Upstream.Upstream): Listener => {
  const node = provisioning.node
  if (node === undefined) return next
  return (request, response) => {
    if (!isSiteHost(request.headers.host)) return next(request, response)
    const requestId = typeof request.headers["x-request-id"] === "string" && request.headers["x-request-id"].length <= 128
      ? request.headers["x-request-id"]
      : randomUUID()
    node(request, response, {
      url: request.url ?? "/",
      headers: headersOf(request, requestId),
      requestId,
      fail: (error) => {
        const timeout = error._tag === "UpstreamTimeout"
        response.writeHead(timeout ? 504 : 502, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "x-request-id": requestId })
        response.end(timeout ? "Gateway Timeout\n" : "Bad Gateway\n")
      }
    })
  }
}
