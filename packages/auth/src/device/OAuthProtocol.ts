import { Iam, type ValidationIssue } from "@core/contracts"
import { ErrorResponse, PublicUrl, Route } from "@core/kernel"
import { OAuthError } from "./OAuthErrors.js"

/** Headers of every `/oauth/*` answer (RFC 6749 §5.1): nothing of it may be cached. */
export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" } as const

/** A JSON answer of an `/oauth/*` route, never cached. */
export const oauthJson = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  Route.json(body, { status, headers: { ...NO_STORE, ...headers } })

/** The address people reach (`PublicUrl.root`: `CORE_PUBLIC_URL` when set, else the request's origin). */
export const publicRoot = PublicUrl.root

/**
 * Where clients reach the identity service, without a trailing slash: the public root followed by
 * the gateway's `X-Forwarded-Prefix` (`/api/v1/iam`) when the request came through it. The OAuth
 * addresses (metadata, `verification_uri`) start here.
 */
export const publicBase = PublicUrl.base

/**
 * What a parameter that cannot exist (one holding a NUL character, refused by the kernel before
 * any lookup) means in OAuth: the same answer as an unknown value of it.
 */
const UNKNOWN_VALUE: Readonly<Record<string, () => OAuthError>> = {
  client_id: OAuthError.invalidClient,
  device_code: () => OAuthError.invalidGrant("Unknown device code"),
  refresh_token: () => OAuthError.invalidGrant("Unknown refresh token"),
  user_code: () => OAuthError.invalidGrant("Unknown code")
}

const isMissing = (issue: ValidationIssue) => issue.message.endsWith("received undefined")
const holdsNul = (issue: ValidationIssue) => issue.message.includes("NUL")

/**
 * A parameter the contract refused, in OAuth's terms: a malformed scope is `invalid_scope`, an
 * unknown `grant_type` `unsupported_grant_type`, a value that cannot exist the answer to an unknown
 * one, and anything else `invalid_request` naming the missing or invalid parameter.
 */
const fromIssue = (issue: ValidationIssue | undefined): OAuthError => {
  const name = issue?.path.split(".")[0] ?? ""
  if (issue === undefined || name === "") return OAuthError.invalidRequest("Invalid request parameters")
  if (name === "scope") return OAuthError.invalidScope()
  if (name === "grant_type") {
    return issue.message === Iam.MISSING_GRANT_TYPE ? OAuthError.invalidRequest(Iam.MISSING_GRANT_TYPE) : OAuthError.unsupportedGrantType()
  }
  const unknown = UNKNOWN_VALUE[name]
  if (unknown !== undefined && holdsNul(issue)) return unknown()
  return OAuthError.invalidRequest(isMissing(issue) ? `Missing parameter ${name}` : `Invalid parameter ${name}`)
}

const describeCoreError = (error: unknown): OAuthError => {
  if (!ErrorResponse.isCoreError(error)) return OAuthError.invalidRequest("Invalid request")
  switch (error._tag) {
    case "Unauthorized":
      return OAuthError.signInRequired()
    case "RateLimited":
      return OAuthError.tooManyCodes(error.retryAfterSeconds)
    case "ValidationError":
      return fromIssue(error.issues[0])
    // The gateway's refusal of another site's origin (CORS), in OAuth's words (decision 0609).
    case "Forbidden":
      return new OAuthError({ error: "invalid_request", description: error.message, reason: "cross-site" })
    default:
      return OAuthError.invalidRequest(error.message)
  }
}

/**
 * The one table from an OAuth refusal to its status (RFC 6749 §5.2: 400, or 401 for client and
 * token authentication): too many attempts (a `Retry-After`) 429, a cross-site write 403.
 */
export const statusOf = (error: OAuthError): number =>
  error.retryAfterSeconds !== undefined
    ? 429
    : error.reason === "cross-site"
    ? 403
    : error.error === "invalid_client" || error.error === "invalid_token"
    ? 401
    : 400

const respond = (error: OAuthError) =>
  oauthJson({ error: error.error, error_description: error.description }, statusOf(error), {
    ...(error.retryAfterSeconds === undefined ? {} : { "retry-after": String(error.retryAfterSeconds) }),
    ...(error.error === "invalid_token" ? { "www-authenticate": `Bearer error="invalid_token"` } : {})
  })

/**
 * The OAuth form `{ error, error_description }` (RFC 6749 §5.2) for the kernel's error skeleton,
 * never the envelope: OAuth errors as they are, a body the contract refuses as the OAuth error of
 * its first issue, other kernel errors as `invalid_request` (`invalid_token` for missing
 * credentials, `slow_down` for too many wrong codes), an interruption, a defect or a dependency that
 * is down as `server_error` (a database outage keeps its 503 and `Retry-After`).
 */
export const oauthRenderer: ErrorResponse.Renderer = {
  recognize: (failure) =>
    failure instanceof OAuthError
      ? { status: statusOf(failure), code: "VALIDATION_ERROR", message: failure.description, details: null, headers: {}, kind: "failure", error: failure }
      : undefined,
  render: (problem) => {
    if (problem.kind === "interrupted") return oauthJson({ error: "server_error", error_description: "The request was interrupted" }, 503)
    if (problem.kind === "internal") return oauthJson({ error: "server_error", error_description: "Internal server error" }, 500)
    // A dependency down (the database: 503 with Retry-After) or an upstream failing: the server's fault, not the request's.
    if (problem.kind === "upstream") return oauthJson({ error: "server_error", error_description: problem.message }, problem.status, problem.headers)
    return respond(problem.error instanceof OAuthError ? problem.error : describeCoreError(problem.error))
  }
}
