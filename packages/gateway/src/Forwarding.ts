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
 * headers, with `X-Core-Request-Id`) minus hop-by-hop headers, plus `X-Forwarded-Prefix`, plus
 * what the guards added (`extra`: identity, trace context; `undefined` removes a header).
 */
export const forwardHeaders = (
  headers: Headers.Headers,
  prefix: string,
  extra: Readonly<Record<string, string | undefined>> = {}
): Headers.Headers => {
  const connection = headers.connection
  const out: Record<string, string> = {}
  for (const name in headers) {
    if (!HOP_BY_HOP_SET.has(name)) out[name] = headers[name]
  }
  if (connection !== undefined) for (const name of listedInConnection(headers)) delete out[name]
  for (const name in extra) {
    const value = extra[name]
    if (value === undefined) delete out[name]
    else out[name] = value
  }
  out["x-forwarded-prefix"] = prefix
  return Headers.unsafeFromRecord(out)
}

const HOP_BY_HOP_SET: ReadonlySet<string> = new Set(HOP_BY_HOP)

/** The request an upstream receives for a matched route. */
export const rewrite = (
  request: HttpServerRequest.HttpServerRequest,
  match: Match,
  extra?: Readonly<Record<string, string | undefined>>
): HttpServerRequest.HttpServerRequest =>
  request.modify({ url: match.url, headers: forwardHeaders(request.headers, match.route.prefix, extra) })
