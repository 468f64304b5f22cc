import { Headers, type HttpServerRequest } from "@effect/platform"
import type { Match } from "./Routes.js"

/** Request headers that belong to one connection and never travel upstream (RFC 9110 §7.6.1). */
export const HOP_BY_HOP: ReadonlyArray<string> = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade"
]

const listedInConnection = (headers: Headers.Headers): Array<string> =>
  (headers.connection ?? "").split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "")

/**
 * The headers an upstream receives: the inbound ones (already without client `X-Core-*`
 * headers, with `X-Core-Request-Id`) minus hop-by-hop headers, plus `X-Forwarded-Prefix`.
 */
export const forwardHeaders = (headers: Headers.Headers, prefix: string): Headers.Headers =>
  Headers.set(Headers.remove(headers, [...HOP_BY_HOP, ...listedInConnection(headers)]), "x-forwarded-prefix", prefix)

/** The request an upstream receives for a matched route. */
export const rewrite = (
  request: HttpServerRequest.HttpServerRequest,
  match: Match
): HttpServerRequest.HttpServerRequest =>
  request.modify({ url: match.url, headers: forwardHeaders(request.headers, match.route.prefix) })
