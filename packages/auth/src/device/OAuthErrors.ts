import type { Iam } from "@core/contracts"
import { Data } from "effect"

/**
 * An OAuth rule refused the request: the RFC 6749 §5.2 / RFC 8628 §3.5 `error` code, its description
 * and status. The `/oauth/*` routes answer it as `{ error, error_description }`, never the envelope.
 */
export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly error: Iam.OAuthErrorCode
  readonly description: string
  readonly status: 400 | 401 | 403 | 429
  /** Seconds before trying again (`Retry-After`), for 429. */
  readonly retryAfterSeconds?: number
}> {
  /** A missing, repeated or malformed parameter, or a body that cannot be read. */
  static invalidRequest(description: string): OAuthError {
    return new OAuthError({ error: "invalid_request", description, status: 400 })
  }

  /** A `client_id` other than `core-cli`. */
  static invalidClient(): OAuthError {
    return new OAuthError({ error: "invalid_client", description: "Unknown client", status: 401 })
  }

  /** An unknown, used or revoked code or refresh token. */
  static invalidGrant(description: string): OAuthError {
    return new OAuthError({ error: "invalid_grant", description, status: 400 })
  }

  /** A malformed scope. */
  static invalidScope(): OAuthError {
    return new OAuthError({ error: "invalid_scope", description: "The scope is malformed", status: 400 })
  }

  /** A `grant_type` other than the device code and refresh grants. */
  static unsupportedGrantType(): OAuthError {
    return new OAuthError({
      error: "unsupported_grant_type",
      description: "Supported grant types: urn:ietf:params:oauth:grant-type:device_code, refresh_token",
      status: 400
    })
  }

  /** The person has not decided yet. */
  static authorizationPending(): OAuthError {
    return new OAuthError({ error: "authorization_pending", description: "The user has not yet approved the code", status: 400 })
  }

  /** Polled faster than the interval, which is now `interval` seconds. */
  static slowDown(interval: number): OAuthError {
    return new OAuthError({ error: "slow_down", description: `Poll at most every ${interval} seconds`, status: 400 })
  }

  /** The device code (or the user code) outlived its ten minutes. */
  static expiredToken(): OAuthError {
    return new OAuthError({ error: "expired_token", description: "The code has expired", status: 400 })
  }

  /** The person declined. */
  static accessDenied(): OAuthError {
    return new OAuthError({ error: "access_denied", description: "The user denied the request", status: 400 })
  }

  /** No signed-in session where one is needed. */
  static signInRequired(): OAuthError {
    return new OAuthError({ error: "invalid_token", description: "A signed-in session is required", status: 401 })
  }

  /** A write carried by the session cookie from another site (CSRF). */
  static crossSite(): OAuthError {
    return new OAuthError({ error: "invalid_request", description: "Cross-site request refused", status: 403 })
  }

  /** Too many wrong user codes from one address or user. */
  static tooManyCodes(retryAfterSeconds: number): OAuthError {
    return new OAuthError({
      error: "slow_down",
      description: `Too many wrong codes; try again in ${retryAfterSeconds} seconds`,
      status: 429,
      retryAfterSeconds
    })
  }
}
