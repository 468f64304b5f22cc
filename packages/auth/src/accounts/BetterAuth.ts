import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ErrorResponse, RequestId, type ValidationError } from "@core/kernel"
import { Cause, Effect, Option } from "effect"

/**
 * A rule error of the better-auth-compatible routes: better-auth's UPPER_SNAKE `code`, its message
 * and the status better-auth answers it with (`AccountError`, `OrganizationError`).
 */
export interface LibraryError {
  readonly _tag: string
  readonly code: string
  readonly message: string
  readonly status: number
}

const isLibraryError = (u: unknown): u is LibraryError =>
  typeof u === "object" && u !== null && "_tag" in u &&
  typeof (u as LibraryError).code === "string" && typeof (u as LibraryError).message === "string" &&
  typeof (u as LibraryError).status === "number"

/** A JSON answer that no cache keeps (every `/api/auth/*` answer concerns one user). */
export const json = (body: unknown, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store" } })

const validationMessage = (error: ValidationError): string => {
  const where = /request (body|query|params)/.exec(error.message)?.[1] ?? "body"
  return error.issues.length === 0
    ? error.message
    : error.issues.map((issue) => `[${issue.path === "" ? where : `${where}.${issue.path}`}] ${issue.message}`).join("; ")
}

const respond = (
  requestId: string,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {}
) =>
  HttpServerResponse.unsafeJson(body, {
    status,
    headers: { ...headers, "cache-control": "no-store", "x-request-id": requestId }
  })

/**
 * Answer a failure of a better-auth-compatible route with that library's `{ code, message }` body:
 * rule errors with their own status; kernel errors with the kernel's status, code and headers
 * (`VALIDATION_ERROR` also lists its `issues`); anything else is logged and answered 500
 * `INTERNAL_SERVER_ERROR` (the log names the path, never the query, which may carry a one-time
 * token). Apply with `HttpRouter.catchAllCause` to the `/api/auth/*` routes only.
 */
export const handleCause = <E>(
  cause: Cause.Cause<E>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = RequestId.requestIdOf(request)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && isLibraryError(failure.value)) {
      const { code, message, status } = failure.value
      return respond(requestId, status, { code, message })
    }
    if (Option.isSome(failure) && ErrorResponse.isCoreError(failure.value)) {
      const error = failure.value
      const described = ErrorResponse.describe(error)
      return error._tag === "ValidationError"
        ? respond(requestId, described.status, {
          code: described.code,
          message: validationMessage(error),
          issues: error.issues
        })
        : respond(requestId, described.status, { code: described.code, message: described.message }, described.headers)
    }
    if (Cause.isInterruptedOnly(cause)) {
      return respond(requestId, 503, { code: "INTERNAL_SERVER_ERROR", message: "The request was interrupted" })
    }
    yield* Effect.logError("unhandled request failure", Cause.pretty(cause)).pipe(
      Effect.annotateLogs({ requestId, method: request.method, path: request.url.split("?")[0] })
    )
    return respond(requestId, 500, { code: "INTERNAL_SERVER_ERROR", message: "Internal Server Error" })
  })
