/** The headers an upstream receives, and the ones of its response the client receives. */
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"
import type * as http from "node:http"
import { TLSSocket } from "node:tls"
import { HOP_BY_HOP } from "../Forwarding.js"

/** Whether a request method carries a body upstream (GET, HEAD and OPTIONS are sent without). */
export const hasBody = (method: string): boolean => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"

/** The Node or web-standard request a server handed to Effect (`request.source` of both adapters). */
export const sourceOf = (request: HttpServerRequest.HttpServerRequest): unknown =>
  (request as { source?: unknown }).source

/** The protocol and host the client used, as far as the gateway itself can see them. */
const inboundOrigin = (
  request: HttpServerRequest.HttpServerRequest,
  node: http.IncomingMessage | undefined
): { proto: string; host: string | undefined } => {
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
 * The headers the upstream receives: the rewritten request's without `Expect` (the gateway's server
 * answered it) and, for a bodiless method, without `Content-Length`; `Host` the upstream's; the
 * client's address appended to `X-Forwarded-For`; `X-Forwarded-Proto` and `X-Forwarded-Host` the
 * gateway's own view unless `trustProxy` keeps a proxy's.
 */
export const outboundHeaders = (
  request: HttpServerRequest.HttpServerRequest,
  node: http.IncomingMessage | undefined,
  upstreamHost: string,
  trustProxy: boolean
): Record<string, string> => {
  const inbound = request.headers
  const headers: Record<string, string> = {}
  for (const name in inbound) headers[name] = inbound[name]
  delete headers.expect
  if (!hasBody(request.method)) delete headers["content-length"]
  const client = Option.getOrUndefined(request.remoteAddress)
  if (client !== undefined && client !== "") {
    const before = headers["x-forwarded-for"]
    headers["x-forwarded-for"] = before === undefined || before === "" ? client : `${before}, ${client}`
  }
  if (!trustProxy || headers["x-forwarded-proto"] === undefined || headers["x-forwarded-host"] === undefined) {
    const origin = inboundOrigin(request, node)
    if (!trustProxy || headers["x-forwarded-proto"] === undefined) headers["x-forwarded-proto"] = origin.proto
    if (!trustProxy || headers["x-forwarded-host"] === undefined) {
      if (origin.host === undefined) delete headers["x-forwarded-host"]
      else headers["x-forwarded-host"] = origin.host
    }
  }
  headers.host = upstreamHost
  return headers
}

const DROPPED = new Set([...HOP_BY_HOP, "set-cookie"])

/**
 * The upstream's response headers without hop-by-hop ones, the ones its `Connection` names, and
 * `Set-Cookie` (carried as cookies); repeated headers joined with `, `.
 */
export const inboundHeaders = (response: http.IncomingMessage): Record<string, string> => {
  const source = response.headers
  const connection = source.connection
  const listed = connection === undefined || connection === "" || connection === "keep-alive" || connection === "close"
    ? undefined
    : new Set(connection.split(",").map((name) => name.trim().toLowerCase()))
  const headers: Record<string, string> = {}
  for (const name in source) {
    const value = source[name]
    if (value === undefined || DROPPED.has(name) || listed?.has(name)) continue
    headers[name] = typeof value === "string" ? value : value.join(", ")
  }
  return headers
}
