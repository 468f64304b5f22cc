import { Data } from "effect"
import type { ValidationIssue } from "@core/contracts"

/** A body, query or path parameter failed its contract. 400 `VALIDATION_ERROR`. */
export class ValidationError extends Data.TaggedError("ValidationError")<{
  readonly message: string
  readonly issues: ReadonlyArray<ValidationIssue>
}> {}

/** The request body is not JSON. 400 `INVALID_JSON`. */
export class InvalidJson extends Data.TaggedError("InvalidJson")<{ readonly message: string }> {}

/** No or bad credentials. 401 `UNAUTHORIZED`. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly message: string }> {}

/** The payment provider declined. 402 `PAYMENT_FAILED`. */
export class PaymentFailed extends Data.TaggedError("PaymentFailed")<{
  readonly message: string
  readonly details?: Record<string, unknown>
}> {}

/** Authenticated, but lacking the permission or the operator role. 403 `FORBIDDEN`. */
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly message: string }> {}

/**
 * A URL a person would be sent to (a portal's `returnUrl`) is neither on the public address nor on a
 * trusted origin. 403 `INVALID_CALLBACK_URL` with `{ field }`, as identity answers a bad `callbackURL`.
 */
export class InvalidRedirect extends Data.TaggedError("InvalidRedirect")<{
  readonly message: string
  readonly field: string
}> {}

/** Not found — also for another tenant's resource. 404 `NOT_FOUND`. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

/** Uniqueness or idempotency conflict. 409 `CONFLICT`. */
export class Conflict extends Data.TaggedError("Conflict")<{
  readonly message: string
  readonly details?: Record<string, unknown>
}> {}

/** A transition the current state forbids. 409 `INVALID_STATE` with `{ from, to }`. */
export class InvalidState extends Data.TaggedError("InvalidState")<{
  readonly message: string
  readonly from: string
  readonly to: string
}> {}

/** An `If-Match` that names another version of the record. 412 `PRECONDITION_FAILED`. */
export class PreconditionFailed extends Data.TaggedError("PreconditionFailed")<{ readonly message: string }> {}

/** The body is over the route's limit. 413 `PAYLOAD_TOO_LARGE`. */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{
  readonly message: string
  readonly limit: number
}> {}

/** Wrong content type. 415 `UNSUPPORTED_MEDIA_TYPE`. */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{
  readonly message: string
}> {}

/** Too many requests. 429 `RATE_LIMITED` with `Retry-After` and `RateLimit-*` headers. */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly message: string
  readonly retryAfterSeconds: number
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}> {}

/** The caller's platform is suspended. 451 `PLATFORM_SUSPENDED`. */
export class PlatformSuspended extends Data.TaggedError("PlatformSuspended")<{
  readonly message: string
  readonly platformId: string
}> {}

/** A reserved route. 501 `NOT_IMPLEMENTED`. */
export class NotImplemented extends Data.TaggedError("NotImplemented")<{ readonly message: string }> {}

/** The gateway cannot reach an upstream. 502 `UPSTREAM_UNAVAILABLE`. */
export class UpstreamUnavailable extends Data.TaggedError("UpstreamUnavailable")<{
  readonly message: string
  readonly upstream: string
}> {}

/** The upstream did not answer in time. 504 `UPSTREAM_TIMEOUT`. */
export class UpstreamTimeout extends Data.TaggedError("UpstreamTimeout")<{
  readonly message: string
  readonly upstream: string
}> {}

/**
 * A dependency the service cannot serve without (its database) is down, for a while: 503
 * `UNAVAILABLE` with `Retry-After`. Not an upstream's failure: nothing was proxied (decision 0572).
 */
export class Unavailable extends Data.TaggedError("Unavailable")<{
  readonly message: string
  /** What is down, for the log (`database`, `identity`); never in the answer. */
  readonly dependency: string
  readonly retryAfterSeconds: number
}> {}

/** Every error the kernel knows how to answer. */
export type CoreError =
  | ValidationError
  | InvalidJson
  | Unauthorized
  | PaymentFailed
  | Forbidden
  | InvalidRedirect
  | NotFound
  | Conflict
  | InvalidState
  | PreconditionFailed
  | PayloadTooLarge
  | UnsupportedMediaType
  | RateLimited
  | PlatformSuspended
  | NotImplemented
  | Unavailable
  | UpstreamUnavailable
  | UpstreamTimeout
