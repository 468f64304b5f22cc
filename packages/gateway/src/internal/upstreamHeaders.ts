/** The headers an upstream receives, and the ones of its response the client receives. */
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"
import type * as http from "node:http"
import { TLSSocket } from "node:tls"
import { util } from "undici"
import { HOP_BY_HOP } from "../Forwarding.js"

const { headerNameToString } = util

/** Whether a request method carries a body upstream (GET, HEAD and OPTIONS are sent without). */
export const hasBody = (method: string): boolean => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"

/** The Node or web-standard request a server handed to Effect (`request.source` of both adapters). */
export const sourceOf = (request: HttpServerRequest.HttpServerRequest): unknown =>
  (request as { source?: unknown }).source

/**
 * Where the gateway sees the protocol the client used: the socket of a Node request, or the URL of a
 * web request (`originalUrl`).
 */
type Seen = http.IncomingMessage | string

/** The protocol and host the client used, as far as the gateway itself can see them. */
const inboundOrigin = (host: string | undefined, seen: Seen): { proto: string; host: string | undefined } => {
  if (typeof seen !== "string") return { proto: seen.socket instanceof TLSSocket ? "https" : "http", host }
  try {
    const url = new URL(seen)
    return { proto: url.protocol.slice(0, -1), host: host ?? url.host }
  } catch {
    return { proto: "http", host }
  }
}

const forwardedHeaders = (
  inbound: Readonly<Record<string, string>>,
  method: string,
  client: string | undefined,
  seen: Seen,
  upstreamHost: string,
  trustProxy: boolean
): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const name in inbound) headers[name] = inbound[name]
  delete headers.expect
  if (!hasBody(method)) delete headers["content-length"]
  if (client !== undefined && client !== "") {
    const before = headers["x-forwarded-for"]
    headers["x-forwarded-for"] = before === undefined || before === "" ? client : `${before}, ${client}`
  }
  if (!trustProxy || headers["x-forwarded-proto"] === undefined || headers["x-forwarded-host"] === undefined) {
    const origin = inboundOrigin(headers.host, seen)
    if (!trustProxy || headers["x-forwarded-proto"] === undefined) headers["x-forwarded-proto"] = origin.proto
    if (!trustProxy || headers["x-forwarded-host"] === undefined) {
      if (origin.host === undefined) delete headers["x-forwarded-host"]
      else headers["x-forwarded-host"] = origin.host
    }
  }
  headers.host = upstreamHost
  return headers
}

/**
 * The headers the upstream receives: the rewritten request's without `Expect` (the gateway's server
 * answered it) and, for a bodiless method, without `Content-Length`; `Host` the upstream's; the
 * client's address appended to `X-Forwarded-For`; `X-Forwarded-Proto` and `X-Forwarded-Host` the
 * gateway's own view (`node`'s socket, else the request's URL) unless `trustProxy` keeps a proxy's.
 */
export const outboundHeaders = (
  request: HttpServerRequest.HttpServerRequest,
  node: http.IncomingMessage | undefined,
  upstreamHost: string,
  trustProxy: boolean
): Record<string, string> =>
  forwardedHeaders(
    request.headers,
    request.method,
    Option.getOrUndefined(request.remoteAddress),
    node ?? request.originalUrl,
    upstreamHost,
    trustProxy
  )

/** The same for the Node path: `headers` (the gateway's rewritten ones) sent on for `request`. */
export const nodeOutboundHeaders = (
  request: http.IncomingMessage,
  headers: Readonly<Record<string, string>>,
  upstreamHost: string,
  trustProxy: boolean
): Record<string, string> =>
  forwardedHeaders(headers, request.method ?? "GET", request.socket.remoteAddress, request, upstreamHost, trustProxy)

const HOP_BY_HOP_SET: ReadonlySet<string> = new Set(HOP_BY_HOP)
const DROPPED = new Set([...HOP_BY_HOP, "set-cookie"])

/** The header names a response's `Connection` lists, which are hop-by-hop too. */
const listedBy = (connection: string | undefined): ReadonlySet<string> | undefined =>
  connection === undefined || connection === "" || connection === "keep-alive" || connection === "close"
    ? undefined
    : new Set(connection.split(",").map((name) => name.trim().toLowerCase()))

/**
 * The upstream's response headers without hop-by-hop ones, the ones its `Connection` names, and
 * `Set-Cookie` (carried as cookies); repeated headers joined with `, `.
 */
export const inboundHeaders = (response: http.IncomingMessage): Record<string, string> => {
  const source = response.headers
  const listed = listedBy(source.connection)
  const headers: Record<string, string> = {}
  for (const name in source) {
    const value = source[name]
    if (value === undefined || DROPPED.has(name) || listed?.has(name)) continue
    headers[name] = typeof value === "string" ? value : value.join(", ")
  }
  return headers
}

/**
 * The same for the Node path from undici's raw headers (name and value buffers, alternating), as
 * `writeHead` takes them: `Set-Cookie` kept, an array of every cookie; other repeated headers
 * joined with `, `, as Node's parser joins them.
 */
export const rawInboundHeaders = (raw: ReadonlyArray<Buffer>): Record<string, string | Array<string>> => {
  const headers: Record<string, string | Array<string>> = {}
  let connection: string | undefined
  for (let index = 0; index < raw.length; index += 2) {
    const name = headerNameToString(raw[index])
    const value = raw[index + 1].toString("latin1")
    if (name === "connection") connection = value
    if (HOP_BY_HOP_SET.has(name)) continue
    const before = headers[name]
    if (name === "set-cookie") {
      if (before === undefined) headers[name] = [value]
      else (before as Array<string>).push(value)
    } else headers[name] = before === undefined ? value : `${before as string}, ${value}`
  }
  const listed = listedBy(connection)
  if (listed !== undefined) for (const name of listed) delete headers[name]
  return headers
}
