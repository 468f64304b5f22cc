import { Forbidden } from "@core/kernel"
import { Effect } from "effect"
import type { Exchange, Guard } from "./Middleware.js"

/** The request headers a browser may send, exactly. */
export const ALLOWED_HEADERS: ReadonlyArray<string> = ["Content-Type", "Authorization", "X-Request-Id"]

const ALLOWED_HEADER_NAMES = new Set(ALLOWED_HEADERS.map((name) => name.toLowerCase()))

/** The methods a cross-origin request may use. */
export const ALLOWED_METHODS: ReadonlyArray<string> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]

/** Response headers a browser script may read. */
export const EXPOSED_HEADERS: ReadonlyArray<string> = [
  "X-Request-Id",
  "X-Core-Trace-Id",
  "Retry-After",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "set-auth-token"
]

/** How long a browser may keep a preflight answer (seconds). */
export const MAX_AGE_SECONDS = 600

/** The origin a request was addressed to (`http://<Host>`; `X-Forwarded-Proto` when proxies are trusted). */
export const ownOrigin = (request: Pick<Exchange, "headers">, trustProxy: boolean): string | undefined => {
  const host = request.headers.host
  if (host === undefined) return undefined
  const forwarded = trustProxy ? request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() : undefined
  const proto = forwarded === "https" || forwarded === "http" ? forwarded : "http"
  return `${proto}://${host}`.toLowerCase()
}

/**
 * Which origins may call from a browser: the configured allowlist (`CORE_CORS_ORIGINS`), the
 * public address (`CORE_PUBLIC_URL`) and the origin the request itself was addressed to
 * (same-origin requests are not cross-origin at all).
 */
export const originPolicy = (options: {
  readonly allowed: ReadonlyArray<string>
  readonly publicUrl?: string
  readonly trustProxy: boolean
}) => {
  const allowed = new Set(options.allowed.map((origin) => origin.toLowerCase()))
  if (options.publicUrl !== undefined) allowed.add(new URL(options.publicUrl).origin.toLowerCase())
  return (origin: string, request: Pick<Exchange, "headers">): boolean => {
    const lower = origin.toLowerCase()
    return allowed.has(lower) || lower === ownOrigin(request, options.trustProxy)
  }
}

const corsHeaders = (origin: string): Record<string, string> => ({
  "access-control-allow-origin": origin,
  "access-control-expose-headers": EXPOSED_HEADERS.join(", "),
  vary: "Origin"
})

/**
 * Step 7: CORS. A request without `Origin` is not a browser's cross-origin call and passes. From an
 * allowed origin, a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with
 * the allowed methods and exactly the seed's request headers, and other requests get the
 * `Access-Control-Allow-Origin` header. A disallowed origin, or a preflight asking for another
 * header or method, is refused with 403 `FORBIDDEN` and never forwarded. No credentials mode: a
 * browser authenticates cross-origin with the session bearer (docs/gateway.md).
 */
export const middleware = (isAllowed: (origin: string, request: Exchange) => boolean): Guard => (request, frame) => {
  const origin = request.headers.origin
  if (origin === undefined) return undefined
  if (!isAllowed(origin, request)) {
    return Effect.fail(new Forbidden({ message: `Origin ${origin.slice(0, 200)} is not allowed` }))
  }
  const preflight = request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined
  if (!preflight) {
    Object.assign(frame.responseHeaders, corsHeaders(origin))
    return undefined
  }
  const method = request.headers["access-control-request-method"]!.trim().toUpperCase()
  if (!ALLOWED_METHODS.includes(method)) {
    return Effect.fail(new Forbidden({ message: `Method ${method.slice(0, 20)} is not allowed` }))
  }
  const asked = (request.headers["access-control-request-headers"] ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "")
  const refused = asked.find((name) => !ALLOWED_HEADER_NAMES.has(name))
  if (refused !== undefined) {
    return Effect.fail(
      new Forbidden({ message: `Request header ${refused.slice(0, 100)} is not allowed (allowed: ${ALLOWED_HEADERS.join(", ")})` })
    )
  }
  return {
    status: 204,
    headers: {
      ...corsHeaders(origin),
      "access-control-allow-methods": ALLOWED_METHODS.join(", "),
      "access-control-allow-headers": ALLOWED_HEADERS.join(", "),
      "access-control-max-age": String(MAX_AGE_SECONDS),
      vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"
    }
  }
}
