import { HttpServerResponse, type HttpServerRequest } from "@effect/platform"
import { CoreConfig, Crypto } from "@core/kernel"
import { Data, Duration, Effect, Either, Layer, type Redacted } from "effect"
import { createHmac } from "node:crypto"

/** The cookie holding the browser's CSRF nonce. */
export const CSRF_COOKIE = "core.csrf"
/** The hidden form field carrying the form's token. */
export const CSRF_FIELD = "csrf"
/** How long a nonce cookie lives; a form older than that is refused once and shown again. */
export const CSRF_COOKIE_TTL = Duration.days(1)

const NONCE = /^[A-Za-z0-9_-]{43}$/

/** Why a form post was refused. */
export type CsrfReason = "cross-site" | "origin" | "missing-cookie" | "bad-token"

/** A form post failed the CSRF checks (answered 403 with the form shown again). */
export class CsrfRejected extends Data.TaggedError("CsrfRejected")<{ readonly reason: CsrfReason }> {}

/** A token for one rendered form; `fresh` when its nonce is new and must be set as the cookie. */
export interface IssuedToken {
  readonly token: string
  readonly nonce: string
  readonly fresh: boolean
}

/** How forms are protected. */
export interface CsrfOptions {
  /** The root secret (`CORE_SECRET`); the HMAC key is derived from it for this purpose alone. */
  readonly secret: string | Redacted.Redacted<string>
  /** Whether the nonce cookie is `Secure` (every environment but development). */
  readonly secure: boolean
  /** Origins a form may be posted from besides the request's own host (`CORE_PUBLIC_URL`, `CORE_CORS_ORIGINS`). */
  readonly allowedOrigins: ReadonlyArray<string>
  /** Read the host a proxy was asked for from `X-Forwarded-Host` (`CORE_TRUST_PROXY`). */
  readonly trustProxy: boolean
}

const originOf = (value: string): string | undefined => {
  try {
    const url = new URL(value)
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined
  } catch {
    return undefined
  }
}

/**
 * Signed double-submit CSRF protection for the web pages: a random nonce in an HttpOnly,
 * SameSite=Lax cookie, and per form a token = HMAC-SHA256(key derived from `CORE_SECRET`,
 * form name + binding + nonce), where the binding is the session id of a signed-in page ("" before
 * sign-in). A post passes when `Sec-Fetch-Site` is not `cross-site`, its `Origin` (when sent) is this
 * site, and its token matches the cookie's (constant-time compare).
 */
export const make = (options: CsrfOptions) => {
  const key = Crypto.deriveKey(options.secret, "web-csrf")
  const allowed = new Set(options.allowedOrigins.map(originOf).filter((origin) => origin !== undefined))

  const tokenFor = (nonce: string, form: string, binding: string): string =>
    createHmac("sha256", key).update(`${form}\n${binding}\n${nonce}`).digest("base64url")

  const nonceOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
    const value = request.cookies[CSRF_COOKIE]
    return value !== undefined && NONCE.test(value) ? value : undefined
  }

  /** The token of a form about to be rendered (a new nonce when the browser has none). */
  const issue = (request: HttpServerRequest.HttpServerRequest, form: string, binding = ""): IssuedToken => {
    const known = nonceOf(request)
    const nonce = known ?? Crypto.randomToken(32)
    return { token: tokenFor(nonce, form, binding), nonce, fresh: known === undefined }
  }

  const hostsOf = (request: HttpServerRequest.HttpServerRequest): ReadonlyArray<string> => {
    const forwarded = options.trustProxy ? request.headers["x-forwarded-host"]?.split(",")[0]?.trim() : undefined
    return [request.headers.host, forwarded].filter((host): host is string => host !== undefined && host !== "")
      .map((host) => host.toLowerCase())
  }

  const originAllowed = (request: HttpServerRequest.HttpServerRequest, origin: string): boolean => {
    const parsed = originOf(origin)
    if (parsed === undefined) return false
    return allowed.has(parsed) || hostsOf(request).includes(new URL(parsed).host)
  }

  /** Check a form post: where it comes from, then its token against the cookie. */
  const verify = (
    request: HttpServerRequest.HttpServerRequest,
    form: string,
    submitted: string | undefined,
    binding = ""
  ): Either.Either<void, CsrfRejected> => {
    const site = request.headers["sec-fetch-site"]?.toLowerCase()
    if (site === "cross-site") return Either.left(new CsrfRejected({ reason: "cross-site" }))
    const origin = request.headers["origin"]
    if (origin !== undefined && !originAllowed(request, origin)) return Either.left(new CsrfRejected({ reason: "origin" }))
    if (origin === undefined && site === "same-site") return Either.left(new CsrfRejected({ reason: "origin" }))
    const nonce = nonceOf(request)
    if (nonce === undefined) return Either.left(new CsrfRejected({ reason: "missing-cookie" }))
    if (submitted === undefined || !Crypto.safeEqual(submitted, tokenFor(nonce, form, binding))) {
      return Either.left(new CsrfRejected({ reason: "bad-token" }))
    }
    return Either.void
  }

  /** Set the nonce cookie when the token was issued with a new one. */
  const withCookie = (response: HttpServerResponse.HttpServerResponse, issued: IssuedToken) =>
    issued.fresh
      ? HttpServerResponse.unsafeSetCookie(response, CSRF_COOKIE, issued.nonce, {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: options.secure,
        maxAge: CSRF_COOKIE_TTL
      })
      : response

  return { issue, verify, withCookie } as const
}

/** The CSRF protection of this process, keyed from `CORE_SECRET`. */
export class Csrf extends Effect.Service<Csrf>()("@core/auth/Csrf", {
  effect: Effect.map(CoreConfig, (config) =>
    make({
      secret: config.secret,
      secure: config.nodeEnv !== "development",
      allowedOrigins: [config.publicUrl, ...config.corsOrigins],
      trustProxy: config.trustProxy
    }))
}) {
  /** CSRF protection from explicit options (tests, a host app). */
  static readonly layerWith = (options: CsrfOptions) => Layer.succeed(Csrf, Csrf.make(make(options)))
}
