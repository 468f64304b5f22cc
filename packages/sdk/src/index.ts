/**
 * @core/sdk — the client of a Core deployment. Runs on Node ≥ 20, browsers, Deno, Bun and workers.
 */
export { createClient, type CoreClient } from "./client.js"
export type { ClientOptions, HttpMethod, Query, RequestOptions } from "./transport.js"
export type { CursorPage, PaginateOptions } from "./pagination.js"
export type { RetryOptions } from "./retry.js"
export type { ResponseSchema, SchemaIssue } from "./schema.js"
export type { HealthOptions } from "./resources/health.js"
export {
  BadRequestError,
  ConflictError,
  CoreAbortError,
  CoreApiError,
  CoreConnectionError,
  CoreError,
  CoreResponseValidationError,
  CoreTimeoutError,
  ForbiddenError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  PlatformSuspendedError,
  RateLimitError,
  UnauthorizedError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError
} from "./errors.js"
