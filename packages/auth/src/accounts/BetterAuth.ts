import { HttpServerResponse } from "@effect/platform"
import { ErrorResponse, type ValidationError } from "@core/kernel"

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

/** A JSON answer that no cache keeps (every answer of the accounts routes concerns one caller). */
export const json = (body: unknown, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store" } })

const validationMessage = (error: ValidationError): string => {
  const where = /request (body|query|params)/.exec(error.message)?.[1] ?? "body"
  return error.issues.length === 0
    ? error.message
    : error.issues.map((issue) => `[${issue.path === "" ? where : `${where}.${issue.path}`}] ${issue.message}`).join("; ")
}

const respond = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { ...headers, "cache-control": "no-store" } })

/**
 * better-auth's `{ code, message }` bodies for the kernel's error skeleton: rule errors
 * (`AccountError`, `OrganizationError`) with their own status; kernel errors with the kernel's
 * status, code and headers (`VALIDATION_ERROR` also lists its `issues`); an interruption or a
 * defect as `INTERNAL_SERVER_ERROR`, as better-auth answers them.
 */
export const renderer: ErrorResponse.Renderer = {
  recognize: (failure) =>
    isLibraryError(failure)
      ? { status: failure.status, code: failure.code as never, message: failure.message, details: null, headers: {}, kind: "failure", error: failure }
      : undefined,
  render: (problem) => {
    if (problem.kind === "internal") return respond(500, { code: "INTERNAL_SERVER_ERROR", message: "Internal Server Error" })
    if (problem.kind === "interrupted") return respond(503, { code: "INTERNAL_SERVER_ERROR", message: problem.message })
    const error = problem.error as { _tag?: string } | undefined
    if (error?._tag === "ValidationError") {
      const validation = error as ValidationError
      return respond(problem.status, { code: problem.code, message: validationMessage(validation), issues: validation.issues })
    }
    return respond(problem.status, { code: problem.code, message: problem.message }, problem.headers)
  }
}

/**
 * The renderer of accounts' `/api/auth/*` routes: `renderer`, with a missing, dead or wrong kind of
 * credential answered as better-auth's session middleware answers it, `{ code: "UNAUTHORIZED",
 * message: "Unauthorized" }` (its official client and today's callers see that body).
 */
export const accountsRenderer: ErrorResponse.Renderer = {
  ...renderer,
  render: (problem, requestId) =>
    problem.kind === "failure" && (problem.error as { _tag?: string } | undefined)?._tag === "Unauthorized"
      ? respond(401, { code: "UNAUTHORIZED", message: "Unauthorized" })
      : renderer.render(problem, requestId)
}

/**
 * Answer a failure of a better-auth-compatible route with that library's body (the kernel's one
 * skeleton with `renderer`). Apply with `HttpRouter.catchAllCause` to the `/api/auth/*` routes only.
 */
export const handleCause = ErrorResponse.handleCauseWith(renderer)
