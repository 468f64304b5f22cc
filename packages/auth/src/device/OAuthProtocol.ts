import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Body, type Configuration, CoreConfig, ErrorResponse } from "@core/kernel"
import { Effect } from "effect"
import type { z } from "zod"
import { OAuthError } from "./OAuthErrors.js"

/** The most bytes an `/oauth/*` body may have. */
export const OAUTH_BODY_LIMIT = 16 * 1024

const FORM = "application/x-www-form-urlencoded"

/** Headers of every `/oauth/*` answer (RFC 6749 §5.1): nothing of it may be cached. */
export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" } as const

/** A JSON answer of an `/oauth/*` route, never cached. */
export const oauthJson = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { ...NO_STORE, ...headers } })

const utf8 = new TextDecoder("utf-8", { fatal: true })

const fromForm = (text: string): Effect.Effect<Record<string, string>, OAuthError> => {
  const params: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in params) return Effect.fail(OAuthError.invalidRequest(`The parameter ${name} is repeated`))
    params[name] = value
  }
  return Effect.succeed(params)
}

const fromJson = (text: string): Effect.Effect<Record<string, string>, OAuthError> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return Effect.fail(OAuthError.invalidRequest("The request body is not valid JSON"))
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Effect.fail(OAuthError.invalidRequest("The request body must be a JSON object"))
  }
  const params: Record<string, string> = {}
  for (const [name, field] of Object.entries(value)) {
    if (field === null || field === undefined) continue
    if (typeof field !== "string") return Effect.fail(OAuthError.invalidRequest(`The parameter ${name} must be a string`))
    params[name] = field
  }
  return Effect.succeed(params)
}

/**
 * The parameters of an `/oauth/*` request: a form-encoded body (RFC 6749 §3.2, what OAuth clients
 * send; a repeated parameter is refused) or a JSON object of strings. Anything else — another media
 * type, bad UTF-8 or JSON, more than 16 KiB — fails with `invalid_request`. An empty body is no parameters.
 */
export const params: Effect.Effect<Record<string, string>, OAuthError, HttpServerRequest.HttpServerRequest> = Effect.gen(
  function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const contentType = request.headers["content-type"]
    const bytes = yield* Effect.mapError(
      Body.bytes({ limit: OAUTH_BODY_LIMIT }),
      () => OAuthError.invalidRequest(`The request body exceeds ${OAUTH_BODY_LIMIT} bytes`)
    )
    const type = contentType?.split(";")[0].trim().toLowerCase()
    if (type !== FORM && !Body.isJsonContentType(contentType)) {
      if (bytes.byteLength === 0) return {}
      return yield* OAuthError.invalidRequest(`Send the parameters as ${FORM} or application/json`)
    }
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return yield* OAuthError.invalidRequest("The request body is not UTF-8")
    }
    if (type === FORM) return yield* fromForm(text)
    return text.trim() === "" ? {} : yield* fromJson(text)
  }
)

/**
 * Parse request parameters with a contract: a missing or malformed parameter answers
 * `invalid_request` naming it, or the error `special` gives for that parameter (`invalid_scope`).
 */
export const decode = <S extends z.ZodType>(
  schema: S,
  input: Record<string, string>,
  special: Readonly<Record<string, OAuthError>> = {}
): Effect.Effect<z.output<S>, OAuthError> => {
  const parsed = schema.safeParse(input)
  if (parsed.success) return Effect.succeed(parsed.data)
  const issue = parsed.error.issues[0]
  const name = String(issue?.path[0] ?? "")
  if (name in special) return Effect.fail(special[name])
  return Effect.fail(OAuthError.invalidRequest(
    name === "" ? "Invalid request parameters" : input[name] === undefined ? `Missing parameter ${name}` : `Invalid parameter ${name}`
  ))
}

const PREFIX = /^(?:\/[A-Za-z0-9._~-]+){1,16}$/
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

const firstOf = (header: string | undefined) => header?.split(",")[0]?.trim()

const absoluteUrl = (url: string): URL | undefined => {
  try {
    return url.startsWith("/") ? undefined : new URL(url)
  } catch {
    return undefined
  }
}

/** Whether `CORE_PUBLIC_URL` was set (the configuration otherwise defaults it to `http://localhost:<PORT>`). */
const hasPublicUrl = (config: Configuration) => config.publicUrl !== `http://localhost:${config.port}`

/** The origin a request was sent to: `X-Forwarded-Host`/`-Proto` when proxies are trusted, else its `Host`. */
export const requestOrigin = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  const absolute = absoluteUrl(request.originalUrl)
  const forwardedHost = trustProxy ? firstOf(request.headers["x-forwarded-host"]) : undefined
  const forwardedProto = trustProxy ? firstOf(request.headers["x-forwarded-proto"])?.toLowerCase() : undefined
  const host = [forwardedHost, request.headers.host, absolute?.host].find((value) => value !== undefined && HOST.test(value))
  const proto = forwardedProto === "http" || forwardedProto === "https" ? forwardedProto : absolute?.protocol.slice(0, -1) ?? "http"
  return `${proto}://${host ?? "localhost"}`
}

/** The address people reach: `CORE_PUBLIC_URL` when it is set, else the request's origin; no trailing slash. */
export const publicRoot: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest | CoreConfig> = Effect.zipWith(
  HttpServerRequest.HttpServerRequest,
  CoreConfig,
  (request, config) =>
    hasPublicUrl(config) ? config.publicUrl.replace(/\/+$/, "") : requestOrigin(request, config.trustProxy)
)

/**
 * Where clients reach the identity service, without a trailing slash: the public root followed by
 * the gateway's `X-Forwarded-Prefix` (`/api/v1/iam`) when the request came through it. The OAuth
 * addresses (metadata, `verification_uri`) start here.
 */
export const publicBase: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest | CoreConfig> = Effect.zipWith(
  HttpServerRequest.HttpServerRequest,
  publicRoot,
  (request, root) => {
    const prefix = firstOf(request.headers["x-forwarded-prefix"])?.replace(/\/+$/, "")
    return `${root}${prefix !== undefined && PREFIX.test(prefix) ? prefix : ""}`
  }
)

const describeCoreError = (error: unknown): OAuthError => {
  if (!ErrorResponse.isCoreError(error)) return OAuthError.invalidRequest("Invalid request")
  switch (error._tag) {
    case "Unauthorized":
      return OAuthError.signInRequired()
    case "RateLimited":
      return OAuthError.tooManyCodes(error.retryAfterSeconds)
    default:
      return OAuthError.invalidRequest(error.message)
  }
}

const respond = (error: OAuthError) =>
  oauthJson({ error: error.error, error_description: error.description }, error.status, {
    ...(error.retryAfterSeconds === undefined ? {} : { "retry-after": String(error.retryAfterSeconds) }),
    ...(error.error === "invalid_token" ? { "www-authenticate": `Bearer error="invalid_token"` } : {})
  })

/**
 * The OAuth form `{ error, error_description }` (RFC 6749 §5.2) for the kernel's error skeleton,
 * never the envelope: OAuth errors as they are, kernel errors as `invalid_request`
 * (`invalid_token` for missing credentials), an interruption or a defect as `server_error`.
 */
export const oauthRenderer: ErrorResponse.Renderer = {
  recognize: (failure) =>
    failure instanceof OAuthError
      ? { status: failure.status, code: "VALIDATION_ERROR", message: failure.description, details: null, headers: {}, kind: "failure", error: failure }
      : undefined,
  render: (problem) => {
    if (problem.kind === "interrupted") return oauthJson({ error: "server_error", error_description: "The request was interrupted" }, 503)
    if (problem.kind === "internal") return oauthJson({ error: "server_error", error_description: "Internal server error" }, 500)
    return respond(problem.error instanceof OAuthError ? problem.error : describeCoreError(problem.error))
  }
}

/** Answer a failure of an `/oauth/*` route in the OAuth form (the kernel's skeleton with `oauthRenderer`). */
export const handleOAuthCause = ErrorResponse.handleCauseWith(oauthRenderer)
