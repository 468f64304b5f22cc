import { HttpServerResponse } from "@effect/platform"
import type { Iam } from "@core/contracts"
import { ErrorResponse, type ValidationError } from "@core/kernel"
import type { OrganizationError } from "../organizations/OrganizationErrors.js"
import type { AccountError, AccountErrorCode } from "./AccountErrors.js"

/** A rule error of the better-auth-compatible routes: an account's or an organization's. */
export type LibraryError = AccountError | OrganizationError

const isLibraryError = (u: unknown): u is LibraryError =>
  typeof u === "object" && u !== null && "_tag" in u &&
  ((u as LibraryError)._tag === "AccountError" || (u as LibraryError)._tag === "OrganizationError")

/** The statuses better-auth answers account codes with, where not 400. */
const ACCOUNT_STATUS: Partial<Record<AccountErrorCode, number>> = {
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: 422,
  INVALID_EMAIL_OR_PASSWORD: 401,
  SESSION_NOT_FOUND: 404,
  INVALID_CALLBACK_URL: 403,
  INVALID_ERROR_CALLBACK_URL: 403,
  INVALID_NEW_USER_CALLBACK_URL: 403,
  INVALID_REDIRECT_URL: 403
}

/**
 * The statuses better-auth's organization plugin answers its codes with, where not 400 (not-found
 * answers are 404, also for another tenant's organization, member or invitation).
 */
const ORGANIZATION_STATUS: Partial<Record<Iam.OrganizationErrorCode, number>> = {
  // better-auth answers 400; a taken slug is 409 on every creation route (decision 0199).
  ORGANIZATION_ALREADY_EXISTS: 409,
  ORGANIZATION_NOT_FOUND: 404,
  MEMBER_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: 404,
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: 403,
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: 403,
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: 403,
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: 403,
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: 403,
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: 403,
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: 403,
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: 403,
  YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS: 403,
  YOU_ARE_NOT_ALLOWED_TO_READ_THIS_ORGANIZATION: 403
}

/**
 * The one table from a rule error to the status better-auth answers it with (domain errors carry
 * none): a refused credential (`unauthenticated`) is 401, as better-auth answers a dead magic link.
 */
export const statusOf = (error: LibraryError): number =>
  error._tag === "AccountError"
    ? error.reason === "unauthenticated" ? 401 : ACCOUNT_STATUS[error.code] ?? 400
    : ORGANIZATION_STATUS[error.code] ?? 400

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
      ? { status: statusOf(failure), code: failure.code as never, message: failure.message, details: null, headers: {}, kind: "failure", error: failure }
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
