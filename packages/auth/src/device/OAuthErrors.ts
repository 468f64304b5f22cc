import type { Iam } from "@core/contracts"
import { Data } from "effect"

/**
 * An OAuth rule refused the request: the RFC 6749 §5.2 / RFC 8628 §3.5 `error` code and its
 * description. The `/oauth/*` routes answer it as `{ error, error_description }`, never the envelope,
 * with the status `OAuthProtocol.statusOf` gives it.
 */
export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly error: Iam.OAuthErrorCode
  readonly description: string
  /** Refused for where it comes from (403): a write from another site, an origin the gateway refuses. */
  readonly reason?: "cross-site"
  /** Seconds before trying again (`Retry-After`): too many attempts (429). */
  readonly retryAfterSeconds?: number
}> {
  /** A missing, repeated or malformed parameter, or a body that cannot be read. */
  static invalidRequest(description: string): OAuthError {
    return new OAuthError({ error: "invalid_request", description })
  }

  /** A `client_id` other than `core-cli`. */
  static invalidClient(): OAuthError {
    return new OAuthError({ error: "invalid_client", description: "Unknown client" })
  }

  /** An unknown, used or revoked code or refresh token. */
  static invalidGrant(description: string): OAuthError {
    return new OAuthError({ error: "invalid_grant", description })
  }

  /** A malformed scope. */
  static invalidScope(): OAuthError {
    return new OAuthError({ error: "invalid_scope", description: "The scope is malformed" })
  }

  /** A `grant_type` other than the device code and refresh grants. */
  static unsupportedGrantType(): OAuthError {
    return new OAuthError({
      error: "unsupported_grant_type",
      description: "Supported grant types: urn:ietf:params:oauth:grant-type:device_code, refresh_token"
    })
  }

  /** The person has not decided yet. */
  static authorizationPending(): OAuthError {
    return new OAuthError({ error: "authorization_pending", description: "The user has not yet approved the code" })
  }

  /** Polled faster than the interval, which is now `interval` seconds. */
  static slowDown(interval: number): OAuthError {
    return new OAuthError({ error: "slow_down", description: `Poll at most every ${interval} seconds` })
  }

  /** The device code (or the user code) outlived its ten minutes. */
  static expiredToken(): OAuthError {
    return new OAuthError({ error: "expired_token", description: "The code has expired" })
  }

  /** The person declined. */
  static accessDenied(): OAuthError {
    return new OAuthError({ error: "access_denied", description: "The user denied the request" })
  }

  /** No signed-in session where one is needed. */
  static signInRequired(): OAuthError {
    return new OAuthError({ error: "invalid_token", description: "A signed-in session is required" })
  }

  /** A write carried by the session cookie from another site (CSRF). */
  static crossSite(): OAuthError {
    return new OAuthError({ error: "invalid_request", description: "Cross-site request refused", reason: "cross-site" })
  }

  /** Too many wrong user codes from one address or user. */
  static tooManyCodes(retryAfterSeconds: number): OAuthError {
    return new OAuthError({
      error: "slow_down",
      description: `Too many wrong codes; try again in ${retryAfterSeconds} seconds`,
      retryAfterSeconds
    })
  }
}
