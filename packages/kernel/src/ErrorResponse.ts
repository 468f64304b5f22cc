import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { ErrorCode, ErrorEnvelope } from "@core/contracts"
import { Cause, Effect, Option } from "effect"
import type { CoreError } from "./Errors.js"
import { requestIdOf } from "./RequestId.js"

/** How one error is answered: status, code, message, details and extra headers. */
export interface ErrorDescription {
  readonly status: number
  readonly code: ErrorCode
  readonly message: string
  readonly details: Record<string, unknown> | null
  readonly headers: Record<string, string>
}

const plain = (status: number, code: ErrorCode, message: string): ErrorDescription => ({
  status,
  code,
  message,
  details: null,
  headers: {}
})

/** The one table from tagged errors to status and code (DESIGN §3). */
export const describe = (error: CoreError): ErrorDescription => {
  switch (error._tag) {
    case "ValidationError":
      return { ...plain(400, "VALIDATION_ERROR", error.message), details: { issues: error.issues } }
    case "InvalidJson":
      return plain(400, "INVALID_JSON", error.message)
    case "Unauthorized":
      return plain(401, "UNAUTHORIZED", error.message)
    case "PaymentFailed":
      return { ...plain(402, "PAYMENT_FAILED", error.message), details: error.details ?? null }
    case "Forbidden":
      return plain(403, "FORBIDDEN", error.message)
    case "NotFound":
      return plain(404, "NOT_FOUND", error.message)
    case "Conflict":
      return { ...plain(409, "CONFLICT", error.message), details: error.details ?? null }
    case "InvalidState":
      return { ...plain(409, "INVALID_STATE", error.message), details: { from: error.from, to: error.to } }
    case "PayloadTooLarge":
      return { ...plain(413, "PAYLOAD_TOO_LARGE", error.message), details: { limit: error.limit } }
    case "UnsupportedMediaType":
      return plain(415, "UNSUPPORTED_MEDIA_TYPE", error.message)
    case "RateLimited":
      return {
        ...plain(429, "RATE_LIMITED", error.message),
        headers: {
          "retry-after": String(error.retryAfterSeconds),
          "ratelimit-limit": String(error.limit),
          "ratelimit-remaining": String(error.remaining),
          "ratelimit-reset": String(error.resetSeconds)
        }
      }
    case "PlatformSuspended":
      return plain(451, "PLATFORM_SUSPENDED", error.message)
    case "NotImplemented":
      return plain(501, "NOT_IMPLEMENTED", error.message)
    case "UpstreamUnavailable":
      return plain(502, "UPSTREAM_UNAVAILABLE", error.message)
    case "UpstreamTimeout":
      return plain(504, "UPSTREAM_TIMEOUT", error.message)
  }
}

const CORE_ERROR_TAGS = new Set<string>([
  "ValidationError",
  "InvalidJson",
  "Unauthorized",
  "PaymentFailed",
  "Forbidden",
  "NotFound",
  "Conflict",
  "InvalidState",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "RateLimited",
  "PlatformSuspended",
  "NotImplemented",
  "UpstreamUnavailable",
  "UpstreamTimeout"
])

/** Whether a value is one of the kernel's tagged errors. */
export const isCoreError = (u: unknown): u is CoreError =>
  typeof u === "object" && u !== null && "_tag" in u && CORE_ERROR_TAGS.has((u as { _tag: string })._tag)

/** `@effect/platform`'s `RouteNotFound`: an unmatched route is a 404, not a defect. */
const isRouteNotFound = (u: unknown): boolean =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "RouteNotFound"

/** The envelope body for a description and a request id. */
export const envelope = (description: ErrorDescription, requestId: string): ErrorEnvelope => ({
  error: {
    code: description.code,
    message: description.message,
    requestId,
    details: description.details
  }
})

/** Render a description as a JSON response carrying the request id. */
export const respond = (description: ErrorDescription, requestId: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(envelope(description, requestId), {
    status: description.status,
    headers: { ...description.headers, "x-request-id": requestId }
  })

/** Render a tagged error as its envelope response. */
export const toResponse = (error: CoreError, requestId: string): HttpServerResponse.HttpServerResponse =>
  respond(describe(error), requestId)

const internalError = plain(500, "INTERNAL_ERROR", "An internal error occurred")

/** A path or query with broken percent-encoding (`%E0%A4%A`): the router's `decodeURI` throws. */
const malformedUrl: ErrorDescription = {
  ...plain(400, "VALIDATION_ERROR", "The request URL is not valid percent-encoding"),
  details: { issues: [{ path: "url", message: "Malformed percent-encoding" }] }
}

/**
 * Turn any failure cause of a request into a response: tagged errors through the table,
 * anything else (defects, unknown failures) into a logged 500 `INTERNAL_ERROR` without a stack trace.
 * Apply once per app with `HttpRouter.catchAllCause(ErrorResponse.handleCause)` or around an `HttpApp`.
 */
export const handleCause = <E>(
  cause: Cause.Cause<E>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = requestIdOf(request)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && isCoreError(failure.value)) {
      return toResponse(failure.value, requestId)
    }
    if (Option.isSome(failure) && isRouteNotFound(failure.value)) {
      return respond(plain(404, "NOT_FOUND", "Route not found"), requestId)
    }
    const defect = Cause.dieOption(cause)
    if (Option.isSome(defect) && defect.value instanceof URIError) {
      return respond(malformedUrl, requestId)
    }
    if (Cause.isInterruptedOnly(cause)) {
      return respond(plain(503, "INTERNAL_ERROR", "The request was interrupted"), requestId)
    }
    yield* Effect.logError("unhandled request failure", Cause.pretty(cause)).pipe(
      Effect.annotateLogs({ requestId, method: request.method, url: request.url })
    )
    return respond(internalError, requestId)
  })

/** Middleware form: any app whose errors end as envelope responses. */
export const withErrorEnvelope = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchAllCause(app, handleCause)
