import { z } from "zod"

/** The machine-readable error codes every Core service answers with. */
export const ErrorCode = z.enum([
  "VALIDATION_ERROR",
  "INVALID_JSON",
  "UNAUTHORIZED",
  "PAYMENT_FAILED",
  "FORBIDDEN",
  "INVALID_CALLBACK_URL",
  "NOT_FOUND",
  "CONFLICT",
  "INVALID_STATE",
  "PRECONDITION_FAILED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "PLATFORM_SUSPENDED",
  "INTERNAL_ERROR",
  "NOT_IMPLEMENTED",
  "UPSTREAM_UNAVAILABLE",
  "UPSTREAM_TIMEOUT",
  "STARTING",
  "UNAVAILABLE",
  "BAD_REQUEST",
  "REQUEST_TIMEOUT",
  "HEADERS_TOO_LARGE"
])
export type ErrorCode = z.infer<typeof ErrorCode>

/** One problem found while validating a body, query or path parameter. */
export const ValidationIssue = z.object({
  path: z.string(),
  message: z.string()
})
export type ValidationIssue = z.infer<typeof ValidationIssue>

/**
 * The error envelope: `{ error: { code, message, requestId, details } }`.
 * `details` is `null` when there are none.
 */
export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    requestId: z.string(),
    details: z.record(z.string(), z.unknown()).nullable().optional()
  })
}).meta({ id: "ErrorEnvelope", description: "The error envelope of every Core service" })
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>
