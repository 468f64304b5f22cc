import type { ErrorEnvelope } from "@core/contracts"
import { parseRetryAfter } from "./retry.js"

/** The base of every error the SDK throws, so one `instanceof CoreError` catches them all. */
export class CoreError extends Error {
  override readonly name: string = "CoreError"
}

/** What {@link CoreApiError} is built from: one non-2xx response, already read. */
export interface ApiErrorInit {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly requestId: string | null
  readonly details: Record<string, unknown> | null
  readonly headers: Headers
  /** The parsed body (JSON when it was JSON, else the text). */
  readonly body: unknown
}

/**
 * The server answered with a non-2xx status. `code`, `message`, `requestId` and `details` come from
 * the error envelope `{ error: { code, message, requestId, details } }`; a body that is not an
 * envelope yields code `HTTP_<status>` and keeps the raw body in `body`.
 *
 * @example
 * try { await client.request("GET", "/api/v1/platforms/plt_x") }
 * catch (e) { if (e instanceof NotFoundError) console.log(e.code, e.requestId) }
 */
export class CoreApiError extends CoreError {
  override readonly name: string = "CoreApiError"
  readonly status: number
  readonly code: string
  readonly requestId: string | null
  readonly details: Record<string, unknown> | null
  readonly headers: Headers
  readonly body: unknown

  constructor(init: ApiErrorInit) {
    super(init.message)
    this.status = init.status
    this.code = init.code
    this.requestId = init.requestId
    this.details = init.details
    this.headers = init.headers
    this.body = init.body
  }
}

/** 400: the body, query or parameters failed validation, or the body was not JSON. */
export class BadRequestError extends CoreApiError {
  override readonly name = "BadRequestError"
}
/** 401: no credentials, or credentials that are not valid. */
export class UnauthorizedError extends CoreApiError {
  override readonly name = "UnauthorizedError"
}
/** 402: the payment provider declined. */
export class PaymentRequiredError extends CoreApiError {
  override readonly name = "PaymentRequiredError"
}
/** 403: authenticated, but lacking the permission. */
export class ForbiddenError extends CoreApiError {
  override readonly name = "ForbiddenError"
}
/** 404: no such resource (or one the caller may not see). */
export class NotFoundError extends CoreApiError {
  override readonly name = "NotFoundError"
}
/** 409: a uniqueness conflict, a reused idempotency key, or a forbidden state transition. */
export class ConflictError extends CoreApiError {
  override readonly name = "ConflictError"
}
/** 413: the body is over the route's limit. */
export class PayloadTooLargeError extends CoreApiError {
  override readonly name = "PayloadTooLargeError"
}
/** 415: the content type is not accepted. */
export class UnsupportedMediaTypeError extends CoreApiError {
  override readonly name = "UnsupportedMediaTypeError"
}
/** 422: well-formed but not processable. */
export class UnprocessableEntityError extends CoreApiError {
  override readonly name = "UnprocessableEntityError"
}
/** 429: rate limited; `retryAfterMs` is the server's `Retry-After`, when it sent one. */
export class RateLimitError extends CoreApiError {
  override readonly name = "RateLimitError"
  get retryAfterMs(): number | null {
    return parseRetryAfter(this.headers.get("retry-after"))
  }
}
/** 451: the caller's platform is suspended. */
export class PlatformSuspendedError extends CoreApiError {
  override readonly name = "PlatformSuspendedError"
}
/** Any 5xx: the server or an upstream failed. */
export class InternalServerError extends CoreApiError {
  override readonly name = "InternalServerError"
}

/** The request never got a response: refused connection, DNS failure, reset socket. */
export class CoreConnectionError extends CoreError {
  override readonly name = "CoreConnectionError"
}

/** One attempt took longer than the timeout. */
export class CoreTimeoutError extends CoreError {
  override readonly name = "CoreTimeoutError"
  constructor(readonly timeoutMs: number, options?: ErrorOptions) {
    super(`Request timed out after ${timeoutMs} ms`, options)
  }
}

/** The caller's `AbortSignal` fired; `cause` is the signal's reason. */
export class CoreAbortError extends CoreError {
  override readonly name = "CoreAbortError"
  constructor(reason: unknown) {
    super("Request was aborted", { cause: reason })
  }
}

/** A 2xx body did not match the schema given to `request`. */
export class CoreResponseValidationError extends CoreError {
  override readonly name = "CoreResponseValidationError"
  constructor(
    readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<unknown> }>,
    readonly body: unknown
  ) {
    super(`Response did not match the expected schema: ${issues.map((issue) => issue.message).join("; ")}`)
  }
}

const errorClassByStatus: Record<number, typeof CoreApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  402: PaymentRequiredError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  451: PlatformSuspendedError
}

const isEnvelope = (body: unknown): body is ErrorEnvelope => {
  if (typeof body !== "object" || body === null) return false
  const error = (body as { error?: unknown }).error
  return typeof error === "object" && error !== null &&
    typeof (error as { code?: unknown }).code === "string" &&
    typeof (error as { message?: unknown }).message === "string"
}

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text().catch(() => "")
  if (text === "") return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Reads a non-2xx response into the {@link CoreApiError} subclass its status names. */
export const apiErrorFromResponse = async (response: Response): Promise<CoreApiError> => {
  const body = await readBody(response)
  const headerRequestId = response.headers.get("x-request-id")
  const init: ApiErrorInit = isEnvelope(body)
    ? {
      status: response.status,
      code: body.error.code,
      message: body.error.message,
      requestId: typeof body.error.requestId === "string" ? body.error.requestId : headerRequestId,
      details: body.error.details ?? null,
      headers: response.headers,
      body
    }
    : {
      status: response.status,
      code: `HTTP_${response.status}`,
      message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
      requestId: headerRequestId,
      details: null,
      headers: response.headers,
      body
    }
  const ErrorClass = errorClassByStatus[response.status] ??
    (response.status >= 500 ? InternalServerError : CoreApiError)
  return new ErrorClass(init)
}

const isLibraryBody = (body: unknown): body is { code: string; message: string; issues?: unknown } =>
  typeof body === "object" && body !== null &&
  typeof (body as { code?: unknown }).code === "string" && typeof (body as { message?: unknown }).message === "string"

const isOAuthBody = (body: unknown): body is { error: string; error_description?: unknown } =>
  typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string"

/**
 * The same error, read in the protocol its body speaks when that is not the envelope: better-auth's
 * `{ code, message, issues? }` (the `/api/auth/*` routes; `issues` become `details`) or OAuth's
 * `{ error, error_description? }` (the `/oauth/*` routes), so every route's failure reads like any
 * other `CoreApiError`. Anything else is returned as it is.
 */
export const withProtocolCode = (error: unknown): unknown => {
  if (!(error instanceof CoreApiError)) return error
  const { body } = error
  const relabelled = isLibraryBody(body)
    ? { code: body.code, message: body.message, details: Array.isArray(body.issues) ? { issues: body.issues } : error.details }
    : isOAuthBody(body)
    ? { code: body.error, message: typeof body.error_description === "string" ? body.error_description : body.error, details: null }
    : undefined
  if (relabelled === undefined) return error
  const ErrorClass = error.constructor as typeof CoreApiError
  return new ErrorClass({ status: error.status, requestId: error.requestId, headers: error.headers, body, ...relabelled })
}
