import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { ErrorCode, ErrorEnvelope } from "@core/contracts"
import { Cause, Effect, Option } from "effect"
import { type CoreError, Unavailable, UpstreamTimeout, UpstreamUnavailable } from "./Errors.js"
import * as DatabaseFailure from "./internal/databaseFailure.js"
import { requestIdOf } from "./RequestId.js"
import * as Telemetry from "./Telemetry.js"

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

/**
 * The challenge every 401 carries (RFC 7235 §3.1; the bearer scheme of RFC 6750): a session token
 * or an API key presented as a bearer. Decision 0605.
 */
export const BEARER_CHALLENGE = 'Bearer realm="core"'

/**
 * The bearer challenge naming a protected resource's metadata (RFC 9728 §5.1), as `/mcp` answers
 * its 401s so that an OAuth-capable MCP client finds where to sign in.
 *
 * @example
 * bearerChallenge("http://localhost:8787/.well-known/oauth-protected-resource/mcp")
 * // 'Bearer realm="core", resource_metadata="http://localhost:8787/.well-known/oauth-protected-resource/mcp"'
 */
export const bearerChallenge = (resourceMetadata?: string): string =>
  resourceMetadata === undefined ? BEARER_CHALLENGE : `${BEARER_CHALLENGE}, resource_metadata="${resourceMetadata.replace(/["\\]/g, "")}"`

/** The one table from tagged errors to status and code (docs/architecture.md). */
export const describe = (error: CoreError): ErrorDescription => {
  switch (error._tag) {
    case "ValidationError":
      return { ...plain(400, "VALIDATION_ERROR", error.message), details: { issues: error.issues } }
    case "InvalidJson":
      return plain(400, "INVALID_JSON", error.message)
    case "Unauthorized":
      return { ...plain(401, "UNAUTHORIZED", error.message), headers: { "www-authenticate": BEARER_CHALLENGE } }
    case "PaymentFailed":
      return { ...plain(402, "PAYMENT_FAILED", error.message), details: error.details ?? null }
    case "Forbidden":
      return plain(403, "FORBIDDEN", error.message)
    case "InvalidRedirect":
      return { ...plain(403, "INVALID_CALLBACK_URL", error.message), details: { field: error.field } }
    case "NotFound":
      return plain(404, "NOT_FOUND", error.message)
    case "Conflict":
      return { ...plain(409, "CONFLICT", error.message), details: error.details ?? null }
    case "InvalidState":
      return { ...plain(409, "INVALID_STATE", error.message), details: { from: error.from, to: error.to } }
    case "PreconditionFailed":
      return plain(412, "PRECONDITION_FAILED", error.message)
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
    case "Unavailable":
      return { ...plain(503, "UNAVAILABLE", error.message), headers: { "retry-after": String(error.retryAfterSeconds) } }
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
  "InvalidRedirect",
  "NotFound",
  "Conflict",
  "InvalidState",
  "PreconditionFailed",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "RateLimited",
  "PlatformSuspended",
  "NotImplemented",
  "Unavailable",
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

/**
 * One failure as a protocol answers it: a tagged error described by the table, a protocol's own
 * failure, or what the skeleton makes of a defect (`internal`) or an interruption (`interrupted`).
 */
export interface Problem extends ErrorDescription {
  readonly kind: "failure" | "interrupted" | "internal" | "upstream"
  /** The failure itself, for protocols whose bodies say more than the description (better-auth's issues). */
  readonly error?: unknown
}

/**
 * What a protocol supplies to the one error skeleton (`handleCauseWith`): how it recognizes its own
 * failures, and the response for any problem. The envelope, better-auth's `{ code, message }`,
 * OAuth's `{ error, error_description }` and the HTML pages are renderers.
 */
export interface Renderer {
  /** Describe one of the protocol's own failures (e.g. `OAuthError`); `undefined` for any other. */
  readonly recognize?: (failure: unknown) => Problem | undefined
  /** The response to a problem; the skeleton adds `X-Request-Id`. */
  readonly render: (problem: Problem, requestId: string) => HttpServerResponse.HttpServerResponse
}

const problemOf = (description: ErrorDescription, error?: unknown): Problem => ({ ...description, kind: "failure", error })

const internalError: Problem = { ...plain(500, "INTERNAL_ERROR", "An internal error occurred"), kind: "internal" }
const interrupted: Problem = { ...plain(503, "INTERNAL_ERROR", "The request was interrupted"), kind: "interrupted" }
const routeNotFound = problemOf(plain(404, "NOT_FOUND", "Route not found"))

/** A path or query with broken percent-encoding (`%E0%A4%A`): the router's `decodeURI` throws. */
const malformedUrl = problemOf({
  ...plain(400, "VALIDATION_ERROR", "The request URL is not valid percent-encoding"),
  details: { issues: [{ path: "url", message: "Malformed percent-encoding" }] }
})

/** How long a client waits before it tries again while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5

/**
 * A dependency the service cannot serve without is down (decision 0572): one message for every
 * such outage, whatever is down; `dependency` only goes to the log.
 */
export const dependencyUnavailable = (dependency: string, retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS): Unavailable =>
  new Unavailable({ message: "The service is temporarily unavailable; try again shortly", dependency, retryAfterSeconds })

/** The database is unreachable: the same answer whatever the driver said. */
export const databaseUnavailable = (reason: string): Unavailable => dependencyUnavailable(`database (${reason})`)

/** The problem a cause comes to, and whether it is a defect to log. */
const problemOfCause = <E>(cause: Cause.Cause<E>, renderer: Renderer): Problem => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const own = renderer.recognize?.(failure.value)
    if (own !== undefined) return own
    if (isCoreError(failure.value)) return problemOf(describe(failure.value), failure.value)
    if (isRouteNotFound(failure.value)) return routeNotFound
  }
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect) && defect.value instanceof URIError) return malformedUrl
  // The database refusing connections is an outage of the service's own dependency: 503, not 500.
  const unreachable = DatabaseFailure.unreachableOf(cause)
  if (unreachable !== undefined) {
    const error = databaseUnavailable(unreachable)
    return { ...describe(error), kind: "upstream", error }
  }
  // An adapter whose port has no error channel (a payment provider, say) dies with an upstream
  // error when the remote service fails: the caller gets 502/504, the log gets the cause.
  if (Option.isSome(defect) && (defect.value instanceof UpstreamUnavailable || defect.value instanceof UpstreamTimeout)) {
    return { ...describe(defect.value), kind: "upstream", error: defect.value }
  }
  return Cause.isInterruptedOnly(cause) ? interrupted : internalError
}

/** A 401 that a protocol's renderer answered without a challenge gets the bearer one (RFC 7235). */
const withChallenge = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse =>
  response.status === 401 && response.headers["www-authenticate"] === undefined
    ? HttpServerResponse.setHeader(response, "www-authenticate", BEARER_CHALLENGE)
    : response

/**
 * The one error skeleton of every protocol: the request id, the failure through the protocol's
 * renderer or the table, an interruption as 503, and anything else — a defect, an unknown failure —
 * logged once (path only: a query may carry a one-time token) and answered 500 without a stack trace.
 */
export const handleCauseWith = (renderer: Renderer) =>
<E>(cause: Cause.Cause<E>): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const requestId = requestIdOf(request)
    const problem = problemOfCause(cause, renderer)
    const answer = () => withChallenge(HttpServerResponse.setHeader(renderer.render(problem, requestId), "x-request-id", requestId))
    // The request's server span, when spans are recorded, names the envelope's code.
    const recorded = Telemetry.recordErrorCode(problem.code)
    if (problem.kind !== "internal" && problem.kind !== "upstream") return Effect.zipRight(recorded, Effect.sync(answer))
    // A failed statement's own message goes with it (decision 0187), never its parameters.
    const database = DatabaseFailure.failureOf(cause)
    // An outage is one line naming what is down (never its address), not a stack per request.
    const log = problem.error instanceof Unavailable
      ? Effect.logWarning("dependency unavailable", problem.error.dependency)
      : problem.kind === "upstream" ? Effect.logWarning("upstream failure", Cause.pretty(cause)) : Effect.logError("unhandled request failure", Cause.pretty(cause))
    return log.pipe(
      Effect.zipRight(recorded),
      Effect.annotateLogs({
        requestId,
        method: request.method,
        path: request.url.split("?")[0],
        ...(database === undefined || problem.error instanceof Unavailable ? {} : { database })
      }),
      Effect.map(answer)
    )
  })

/**
 * One tagged error as a protocol answers it, outside the skeleton (the gateway's refusals of a
 * request routed to a service of another protocol): the renderer's response with `X-Request-Id`
 * and, for a 401, the challenge.
 */
export const renderError = (renderer: Renderer, error: CoreError, requestId: string): HttpServerResponse.HttpServerResponse =>
  withChallenge(HttpServerResponse.setHeader(renderer.render(problemOf(describe(error), error), requestId), "x-request-id", requestId))

/** The kernel's own renderer: the envelope `{ error: { code, message, requestId, details } }`. */
export const envelopeRenderer: Renderer = {
  render: (problem, requestId) => respond(problem, requestId)
}

/**
 * Turn any failure cause of a request into the envelope: tagged errors through the table,
 * anything else (defects, unknown failures) into a logged 500 `INTERNAL_ERROR` without a stack trace.
 * Apply once per app with `HttpRouter.catchAllCause(ErrorResponse.handleCause)` or around an `HttpApp`.
 */
export const handleCause = handleCauseWith(envelopeRenderer)

/** Middleware form: any app whose errors end as envelope responses. */
export const withErrorEnvelope = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchAllCause(app, handleCause)
