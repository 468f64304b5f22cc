import { z } from "zod"
import { BoundedId } from "../Bounds.js"
import { defineRoutes } from "../Routes.js"

import { DEVICE_CLIENT_ID, DEVICE_CODE_GRANT, REFRESH_TOKEN_GRANT } from "./device-constants.js"

export { DEVICE_CLIENT_ID, DEVICE_CODE_GRANT, REFRESH_TOKEN_GRANT }

/** RFC 8628 §6.1's base-20 alphabet of user codes: consonants only, no vowels, no look-alikes. */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"

/** Characters of a user code (shown as `XXXX-XXXX`). */
export const USER_CODE_LENGTH = 8

/** A user code as shown: two groups of four alphabet characters joined by a dash. */
export const USER_CODE_PATTERN = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/

/** The OAuth error codes the `/oauth/*` routes answer (RFC 6749 §5.2, RFC 8628 §3.5). */
export const OAUTH_ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "invalid_scope",
  "unauthorized_client",
  "unsupported_grant_type",
  "authorization_pending",
  "slow_down",
  "access_denied",
  "expired_token",
  "invalid_token",
  "server_error"
] as const
export const OAuthErrorCode = z.enum(OAUTH_ERROR_CODES)
export type OAuthErrorCode = z.infer<typeof OAuthErrorCode>

/** The error body of every `/oauth/*` route (RFC 6749 §5.2), never the error envelope. */
export const OAuthErrorBody = z.object({
  error: OAuthErrorCode,
  error_description: z.string().optional()
})
export type OAuthErrorBody = z.infer<typeof OAuthErrorBody>

/** RFC 6749 §3.3 scope: space-separated tokens of visible ASCII but `"` and `\`. */
const SCOPE_PATTERN = /^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/

/** The longest scope string accepted. */
export const SCOPE_MAX_LENGTH = 256

/** An OAuth scope string. */
export const Scope = z.string().max(SCOPE_MAX_LENGTH).regex(SCOPE_PATTERN, { error: "Not an OAuth scope" })

/**
 * `POST /oauth/device/code` (form-encoded or JSON). `client_id` must be `core-cli`; another answers
 * 401 `invalid_client`.
 */
export const DeviceCodeRequest = z.object({
  client_id: BoundedId,
  scope: Scope.optional()
})
export type DeviceCodeRequest = z.infer<typeof DeviceCodeRequest>

/** Answer of `POST /oauth/device/code` (RFC 8628 §3.2). */
export const DeviceCodeResponse = z.object({
  device_code: z.string(),
  user_code: z.string().regex(USER_CODE_PATTERN),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().int().positive(),
  interval: z.number().int().positive(),
  scope: z.string().optional()
})
export type DeviceCodeResponse = z.infer<typeof DeviceCodeResponse>

/** The device code grant at either token route. */
export const DeviceTokenRequest = z.object({
  grant_type: z.literal(DEVICE_CODE_GRANT),
  device_code: BoundedId,
  client_id: BoundedId
})
export type DeviceTokenRequest = z.infer<typeof DeviceTokenRequest>

/** The refresh grant at either token route. */
export const RefreshTokenRequest = z.object({
  grant_type: z.literal(REFRESH_TOKEN_GRANT),
  refresh_token: BoundedId,
  client_id: BoundedId
})
export type RefreshTokenRequest = z.infer<typeof RefreshTokenRequest>

/**
 * The issue message of a token request without a `grant_type` (OAuth's `invalid_request`); any
 * other `grant_type` the union does not know is `unsupported_grant_type` (RFC 6749 §5.2).
 */
export const MISSING_GRANT_TYPE = "Missing parameter grant_type"

const grantTypeOf = (input: unknown): unknown =>
  typeof input === "object" && input !== null ? (input as Record<string, unknown>).grant_type : undefined

/** `POST /oauth/device/token` and `POST /oauth/token`: both grants at both routes. */
export const TokenRequest = z.discriminatedUnion("grant_type", [DeviceTokenRequest, RefreshTokenRequest], {
  error: (issue) => {
    if (issue.code !== "invalid_union") return undefined
    const grantType = grantTypeOf(issue.input)
    return grantType === undefined || grantType === "" ? MISSING_GRANT_TYPE : "Unsupported grant_type"
  }
})
export type TokenRequest = z.infer<typeof TokenRequest>

/**
 * A token response (RFC 6749 §5.1): the access token is a one-hour session token (a bearer for
 * every route), the refresh token lives 30 days and works once.
 */
export const TokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("bearer"),
  expires_in: z.number().int().positive(),
  refresh_token: z.string(),
  scope: z.string().optional()
})
export type TokenResponse = z.infer<typeof TokenResponse>

/** `POST /oauth/device/authorize` and `POST /oauth/device/deny`: the code the person typed or confirmed. */
export const DeviceDecisionRequest = z.object({ user_code: z.string().min(1).max(64) })
export type DeviceDecisionRequest = z.infer<typeof DeviceDecisionRequest>

/** Answer of `POST /oauth/device/authorize` and `POST /oauth/device/deny`. */
export const DeviceDecisionResponse = z.object({ ok: z.literal(true) })
export type DeviceDecisionResponse = z.infer<typeof DeviceDecisionResponse>

/** `GET /.well-known/oauth-authorization-server` (RFC 8414 §2). */
export const AuthorizationServerMetadata = z.object({
  issuer: z.string(),
  token_endpoint: z.string(),
  device_authorization_endpoint: z.string(),
  grant_types_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  service_documentation: z.string().optional()
})
export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadata>

/**
 * Answer of `POST /api/v1/cli/whoami` (decision 0134). For a session: its user's
 * email, its tenant's platform (`null` without one), its effective role (`user` without a tenant)
 * and its expiry. For an API key: its creator's email (else its name, else its id), its platform,
 * role `apikey` and its expiry (`null` when it has none).
 */
export const CliIdentity = z.object({
  email: z.string(),
  platformId: z.string().nullable(),
  role: z.string(),
  expiresAt: z.string().nullable()
})
export type CliIdentity = z.infer<typeof CliIdentity>

/** The error body of `POST /api/v1/cli/whoami`: the envelope without `details`, as the seed shows it. */
export const CliIdentityError = z.object({
  error: z.object({ code: z.string(), message: z.string(), requestId: z.string() })
})
export type CliIdentityError = z.infer<typeof CliIdentityError>

const tags = ["identity: device authorization"]
const oauthError = (description: string) => ({ description, schema: OAuthErrorBody })
const formOrJson = ["application/x-www-form-urlencoded", "application/json"]
const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" }
/** The most bytes an `/oauth/*` body may have. */
export const OAUTH_BODY_LIMIT = 16 * 1024

/**
 * The device authorization routes of the identity service (RFC 8628) at their own paths (through
 * the gateway under `/api/v1/iam`), with the refresh grant, the server metadata and the CLI's whoami.
 */
export const DeviceRoutes = defineRoutes({
  requestDeviceCode: {
    method: "POST",
    path: "/oauth/device/code",
    summary: "Start a device login: a device code for the client, a user code for the person",
    description: "RFC 8628 §3.1: a client (the `core` CLI) asks to sign a person in. It gets a device code (32 random bytes, valid 10 minutes), a user code of 8 letters shown as XXXX-XXXX, the activation page's `verification_uri` (and `verification_uri_complete` with the code), and the polling interval (5 seconds). Form-encoded or JSON; errors in the OAuth form.",
    auth: "public",
    bodyLimit: OAUTH_BODY_LIMIT,
    request: { body: DeviceCodeRequest, contentTypes: formOrJson },
    responses: {
      200: { schema: DeviceCodeResponse, headers: noStore },
      400: oauthError("invalid_request or invalid_scope"),
      401: oauthError("invalid_client")
    },
    tags
  },
  deviceToken: {
    method: "POST",
    path: "/oauth/device/token",
    summary: "Poll for the tokens of an approved device code, or refresh (both grants)",
    description: "The device's poll (RFC 8628 §3.4): `authorization_pending` until the person approves, `slow_down` (interval plus 5 seconds) when polled too fast, `access_denied` or `expired_token` at the end; once approved, an access token (a session of 1 hour) and a rotating refresh token (30 days). Also takes the `refresh_token` grant. Errors in the OAuth form, `Cache-Control: no-store`.",
    auth: "public",
    rateLimit: "exempt",
    bodyLimit: OAUTH_BODY_LIMIT,
    request: { body: TokenRequest, contentTypes: formOrJson },
    responses: {
      200: { schema: TokenResponse, headers: noStore },
      400: oauthError("authorization_pending, slow_down, expired_token, access_denied, invalid_grant, invalid_request, unsupported_grant_type"),
      401: oauthError("invalid_client")
    },
    tags
  },
  token: {
    method: "POST",
    path: "/oauth/token",
    summary: "Refresh (rotating the refresh token), or poll a device code (both grants)",
    description: "The OAuth token endpoint of the metadata: the `refresh_token` grant rotates the refresh token (a new session each time; presenting a used one revokes its whole family, RFC 9700), and the device-code grant polls as /oauth/device/token does. Errors in the OAuth form, `Cache-Control: no-store`.",
    auth: "public",
    rateLimit: "exempt",
    bodyLimit: OAUTH_BODY_LIMIT,
    request: { body: TokenRequest, contentTypes: formOrJson },
    responses: {
      200: { schema: TokenResponse, headers: noStore },
      400: oauthError("invalid_grant (also for a reused refresh token, which revokes its family), invalid_request, unsupported_grant_type"),
      401: oauthError("invalid_client")
    },
    tags
  },
  authorizeDevice: {
    method: "POST",
    path: "/oauth/device/authorize",
    summary: "Approve a user code for the signed-in user (the activation page's call)",
    description: "The signed-in person approves the device whose user code they typed (case and dashes ignored): the device's next poll gets its tokens. Called by the activation page; a code unknown or expired is 400, a cross-site request 403. Audited.",
    auth: "caller", callers: ["user"],
    crossSite: "service",
    bodyLimit: OAUTH_BODY_LIMIT,
    request: { body: DeviceDecisionRequest, contentTypes: formOrJson },
    responses: {
      200: DeviceDecisionResponse,
      400: oauthError("invalid_grant (unknown or used code), expired_token, invalid_request"),
      401: oauthError("invalid_token: no signed-in session"),
      403: oauthError("invalid_request: a cross-site request with the session cookie"),
      429: oauthError("slow_down: too many wrong codes")
    },
    tags
  },
  denyDevice: {
    method: "POST",
    path: "/oauth/device/deny",
    summary: "Decline a user code; the device's next poll answers access_denied",
    description: "The signed-in person declines a user code: the device's next poll answers `access_denied`. Called by the activation page; audited.",
    auth: "caller", callers: ["user"],
    crossSite: "service",
    bodyLimit: OAUTH_BODY_LIMIT,
    request: { body: DeviceDecisionRequest, contentTypes: formOrJson },
    responses: {
      200: DeviceDecisionResponse,
      400: oauthError("invalid_grant, expired_token, invalid_request"),
      401: oauthError("invalid_token"),
      403: oauthError("invalid_request: cross-site"),
      429: oauthError("slow_down")
    },
    tags
  },
  authorizationServerMetadata: {
    method: "GET",
    path: "/.well-known/oauth-authorization-server",
    summary: "OAuth authorization server metadata (RFC 8414)",
    description: "The OAuth 2.0 authorization server metadata (RFC 8414) of the identity service: issuer, `token_endpoint`, `device_authorization_endpoint`, grant types and the auth methods the endpoints take, so OAuth clients configure themselves.",
    auth: "public",
    responses: { 200: { schema: AuthorizationServerMetadata, headers: noStore } },
    tags
  },
  gatewayAuthorizationServerMetadata: {
    method: "GET",
    path: "/.well-known/oauth-authorization-server/api/v1/iam",
    summary: "OAuth authorization server metadata for the gateway's /api/v1/iam issuer (RFC 8414 §3.1, path inserted)",
    description: "The same metadata at the path RFC 8414 §3.1 builds for the issuer `…/api/v1/iam` (the well-known segment inserted before the issuer's path), where standard OAuth clients look for it.",
    auth: "public",
    responses: { 200: { schema: AuthorizationServerMetadata, headers: noStore } },
    tags
  },
  cliWhoami: {
    method: "POST",
    path: "/api/v1/cli/whoami",
    summary: "The identity behind a session token (bearer) or an API key (x-api-key)",
    description: "The route reads the credential itself: the bearer (a `core_…` bearer is an API key, as the `core` " +
      "command may send one), else `x-api-key`, else the session cookie; the static service key is refused. " +
      "Declared `public` for that reason only: without valid credentials it answers 401.",
    auth: "public",
    responses: {
      200: CliIdentity,
      401: { description: "No or bad credentials (the envelope without details)", schema: CliIdentityError }
    },
    tags
  }
})
