import type { z } from "zod"
import { defineRoutes, type ResponseSpec } from "../Routes.js"
import {
  AuthErrorBody,
  AuthUnauthorizedBody,
  AuthSessionList,
  ChangePasswordRequest,
  ChangePasswordResponse,
  CoreSessionResponse,
  DeleteUserRequest,
  DeleteUserResponse,
  GetSessionResponse,
  MagicLinkRequest,
  MagicLinkVerifyQuery,
  MagicLinkVerifyResponse,
  PasswordResetRequested,
  RequestPasswordResetRequest,
  ResetLandingParams,
  ResetLandingQuery,
  ResetPasswordRequest,
  RevokedSession,
  RevokeSessionRequest,
  SendVerificationEmailRequest,
  SessionIdParams,
  SessionList,
  SignInEmailRequest,
  SignInEmailResponse,
  SignOutRequest,
  SignOutResponse,
  SignUpEmailRequest,
  SignUpEmailResponse,
  StatusResponse,
  UpdateProfileRequest,
  UpdateUserRequest,
  User,
  ValidateSessionRequest,
  ValidateSessionResponse,
  VerifyEmailQuery,
  VerifyEmailResponse
} from "./accounts.js"

const tags = ["identity: accounts"]
const user = ["user"] as const

/** An error of a better-auth-compatible route: that library's `{ code, message }`, never the envelope. */
const authError = (codes: string): ResponseSpec => ({ description: codes, schema: AuthErrorBody })
const invalid = authError("VALIDATION_ERROR (with issues), or a rule of the route")
const signedOut: ResponseSpec = {
  description: "UNAUTHORIZED: no live session (the gateway's error envelope when it refuses the request first)",
  schema: AuthUnauthorizedBody
}
const badRedirect = authError("INVALID_CALLBACK_URL and the like: a redirect target that is not trusted")

const SESSION_ISSUED = {
  "set-auth-token": "The new session token (exposed to CORS, for bearer clients)",
  "set-cookie": "core.session_token, HttpOnly, SameSite=Lax"
}
const SESSION_CLEARED = { "set-cookie": "core.session_token, expired" }

/** A success that hands out a session: the token in `set-auth-token` and the cookie. */
const issues = <S extends z.ZodType>(schema: S, description: string) => ({ description, schema, headers: SESSION_ISSUED })
const redirect = (description: string): ResponseSpec => ({ description, headers: { location: "Where the browser goes next" } })

/**
 * The accounts and sessions routes of the identity service: better-auth's `/api/auth/*` (its bodies
 * and `{ code, message }` errors), and the documented profile, session list, enriched session and
 * session validation (the error envelope).
 */
export const AccountRoutes = defineRoutes({
  signUpEmail: {
    method: "POST", path: "/api/auth/sign-up/email", summary: "Sign up with email and password, signed in at once",
    description: "Creates a user with an email, a name and a password (at least 8 characters, stored as an scrypt hash) and signs it in: the answer is better-auth's { token, user }, the token also in `set-auth-token` and the session cookie. An email already registered is 422 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL; a malformed body 400 VALIDATION_ERROR. Rate-limited as credentials (10 a minute per address).",
    auth: "public", rateLimit: "credentials", request: { body: SignUpEmailRequest },
    responses: {
      200: issues(SignUpEmailResponse, "The new user and session token"),
      400: authError("VALIDATION_ERROR, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG"),
      422: authError("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL")
    },
    tags
  },
  signInEmail: {
    method: "POST", path: "/api/auth/sign-in/email", summary: "Sign in with email and password",
    description: "Checks an email and password and starts a session of 7 days, sliding with use: better-auth's { redirect, token, url?, user }, the token also in `set-auth-token` and the cookie. A wrong email or password is 401 INVALID_EMAIL_OR_PASSWORD (the same answer for both, and audited as a failed sign-in). Rate-limited as credentials.",
    auth: "public", rateLimit: "credentials", request: { body: SignInEmailRequest },
    responses: {
      200: issues(SignInEmailResponse, "The user and session token; redirect and url with a callbackURL"),
      400: authError("VALIDATION_ERROR, INVALID_EMAIL, PASSWORD_TOO_LONG"),
      401: authError("INVALID_EMAIL_OR_PASSWORD"),
      429: { ...authError("RATE_LIMITED: too many failed attempts for the email or address"), headers: { "retry-after": "Seconds to wait" } }
    },
    tags
  },
  signInMagicLink: {
    method: "POST", path: "/api/auth/sign-in/magic-link", summary: "Mail a one-time sign-in link (10 minutes)",
    description: "Answers { status: true } whether or not the email has an account.",
    auth: "public", rateLimit: "credentials", request: { body: MagicLinkRequest },
    responses: { 200: StatusResponse, 400: invalid, 403: badRedirect },
    tags
  },
  verifyMagicLink: {
    method: "GET", path: "/api/auth/magic-link/verify", summary: "Redeem a magic link: sign in (and sign up)",
    description: "With a callbackURL, redirects there (or to errorCallbackURL with ?error=); without one, answers the session.",
    auth: "public", request: { query: MagicLinkVerifyQuery },
    responses: {
      200: issues(MagicLinkVerifyResponse, "The session, its token and user (no callbackURL)"),
      302: { ...redirect("To callbackURL (newUserCallbackURL for a new user), or the error callback with ?error="), headers: { location: "The callback", ...SESSION_ISSUED } },
      400: invalid,
      401: authError("INVALID_TOKEN: unknown, used or expired link"),
      403: badRedirect
    },
    tags
  },
  signOut: {
    method: "POST", path: "/api/auth/sign-out", summary: "End the current session",
    description: "Public: without a live session (none, or a stale cookie) it still answers { success: true } and clears the cookie.",
    auth: "public", suspension: "exempt",
    request: { body: SignOutRequest },
    responses: { 200: { schema: SignOutResponse, headers: SESSION_CLEARED } },
    tags
  },
  getSession: {
    method: "GET", path: "/api/auth/get-session", summary: "The current session and its user, or null",
    description: "Public: without a live session it answers null with 200. A refreshed cookie session gets a new cookie.",
    auth: "public", suspension: "exempt",
    responses: { 200: { schema: GetSessionResponse, headers: { "set-cookie": "core.session_token, when the session slid" } } },
    tags
  },
  listSessions: {
    method: "GET", path: "/api/auth/list-sessions", summary: "The caller's active sessions",
    description: "The calling user's live sessions in better-auth's session shape (expiry, user agent, address), for a list of where it is signed in. A user session only; an API key is refused.",
    auth: "caller", callers: user,
    responses: { 200: AuthSessionList, 401: signedOut },
    tags
  },
  revokeSession: {
    method: "POST", path: "/api/auth/revoke-session", summary: "End one of the caller's sessions, by id or token",
    description: "Another user's session, like an unknown one, is 404 SESSION_NOT_FOUND and stays as it is.",
    auth: "caller", callers: user, request: { body: RevokeSessionRequest },
    responses: { 200: StatusResponse, 400: invalid, 401: signedOut, 404: authError("SESSION_NOT_FOUND: not a live session of the caller") },
    tags
  },
  revokeSessions: {
    method: "POST", path: "/api/auth/revoke-sessions", summary: "End every session of the caller, this one included",
    description: "Ends every session of the calling user, the one making the call included, and clears its cookie: signing out everywhere. Each revocation is audited and the gateway's credential cache forgets them.",
    auth: "caller", callers: user,
    responses: { 200: { schema: StatusResponse, headers: SESSION_CLEARED }, 401: signedOut },
    tags
  },
  revokeOtherSessions: {
    method: "POST", path: "/api/auth/revoke-other-sessions", summary: "End every session of the caller but this one",
    description: "Ends every session of the calling user except the one making the call, e.g. after a password change on a shared machine. Audited like a sign-out.",
    auth: "caller", callers: user,
    responses: { 200: StatusResponse, 401: signedOut },
    tags
  },
  updateUser: {
    method: "POST", path: "/api/auth/update-user", summary: "Change the caller's name or image",
    description: "better-auth's update-user: sets the caller's `name` and/or `image`. Changing the email here is refused (400 EMAIL_CAN_NOT_BE_UPDATED), as is a body with nothing to change.",
    auth: "caller", callers: user, request: { body: UpdateUserRequest },
    responses: { 200: StatusResponse, 400: authError("VALIDATION_ERROR, EMAIL_CAN_NOT_BE_UPDATED, NO_FIELDS_TO_UPDATE"), 401: signedOut },
    tags
  },
  requestPasswordReset: {
    method: "POST", path: "/api/auth/request-password-reset", summary: "Mail a password reset link",
    description: "Answers the same whether or not the email has an account.",
    auth: "public", rateLimit: "credentials", request: { body: RequestPasswordResetRequest },
    responses: { 200: PasswordResetRequested, 400: invalid, 403: authError("INVALID_REDIRECT_URL") },
    tags
  },
  resetPasswordLanding: {
    method: "GET", path: "/api/auth/reset-password/:token", summary: "Where a mailed reset link lands: on to callbackURL",
    description: "Where the link of a password-reset mail points: a valid, unused token redirects (302) to the `callbackURL` it was requested with, the token in its query, so a page can ask for the new password. A callbackURL of another site is refused.",
    auth: "public", request: { params: ResetLandingParams, query: ResetLandingQuery },
    responses: { 302: redirect("To callbackURL with ?token= (a live token) or ?error=INVALID_TOKEN"), 400: invalid, 403: badRedirect },
    tags
  },
  resetPassword: {
    method: "POST", path: "/api/auth/reset-password", summary: "Set a new password with a reset token",
    description: "Sets a new password with the token of a reset link (valid 1 hour, once). Every session of the user ends, and the change is audited. An unknown, used or expired token is 400 INVALID_TOKEN.",
    auth: "public", request: { body: ResetPasswordRequest },
    responses: { 200: StatusResponse, 400: authError("VALIDATION_ERROR, INVALID_TOKEN, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG") },
    tags
  },
  changePassword: {
    method: "POST", path: "/api/auth/change-password", summary: "Change the caller's password",
    description: "With revokeOtherSessions, every other session ends and a new session token is issued.",
    auth: "caller", callers: user, request: { body: ChangePasswordRequest },
    responses: {
      200: issues(ChangePasswordResponse, "The user, and the new session token when others were revoked"),
      400: authError("VALIDATION_ERROR, INVALID_PASSWORD, CREDENTIAL_ACCOUNT_NOT_FOUND, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG"),
      401: signedOut
    },
    tags
  },
  sendVerificationEmail: {
    method: "POST", path: "/api/auth/send-verification-email", summary: "Mail an email verification link",
    description: "Mails a link that verifies the given email address (in development the link is also printed on the server's standard error). Answers { status: true } whether or not the address has an account, so it cannot be used to find users. A callbackURL of another site is refused with 403.",
    auth: "public", request: { body: SendVerificationEmailRequest },
    responses: { 200: StatusResponse, 400: authError("VALIDATION_ERROR, EMAIL_MISMATCH, EMAIL_ALREADY_VERIFIED"), 403: badRedirect },
    tags
  },
  verifyEmail: {
    method: "GET", path: "/api/auth/verify-email", summary: "Redeem an email verification link",
    description: "Redeems the token of a verification mail: the user's `emailVerified` becomes true. With a `callbackURL` it redirects there; without one it answers { status: true }. An unknown or expired token is 401 INVALID_TOKEN.",
    auth: "public", request: { query: VerifyEmailQuery },
    responses: {
      200: VerifyEmailResponse,
      302: redirect("To callbackURL, with ?error= when the token is not valid"),
      400: invalid,
      401: authError("INVALID_TOKEN"),
      403: badRedirect
    },
    tags
  },
  deleteUser: {
    method: "POST", path: "/api/auth/delete-user", summary: "Delete the caller's account",
    description: "The password confirms it; an account without one needs a session younger than a day.",
    auth: "caller", callers: user, request: { body: DeleteUserRequest },
    responses: {
      200: { schema: DeleteUserResponse, headers: SESSION_CLEARED },
      400: authError("VALIDATION_ERROR, INVALID_PASSWORD, SESSION_EXPIRED, USER_IS_THE_ONLY_OWNER_OF_AN_ORGANIZATION"),
      401: signedOut
    },
    tags
  },
  getProfile: {
    method: "GET", path: "/api/auth/profile", summary: "The caller's profile",
    description: "The calling user's profile: name, email, image and whether the email is verified, with the organizations it belongs to. A user session only.",
    auth: "caller", callers: user,
    responses: { 200: User, 401: null, 404: null },
    tags
  },
  updateProfile: {
    method: "PATCH", path: "/api/auth/profile", summary: "Change the caller's name or image",
    description: "Changes the calling user's name or image (the same fields as update-user, as a PATCH of the profile). The email stays as it is.",
    auth: "caller", callers: user, request: { body: UpdateProfileRequest },
    responses: { 200: User, 400: null, 401: null, 404: null },
    tags
  },
  listActiveSessions: {
    method: "GET", path: "/api/sessions", summary: "The caller's active sessions, the current one marked",
    description: "The calling user's live sessions with their device, address and last use, the one making the call marked `current`, newest first: what the account page lists.",
    auth: "caller", callers: user,
    responses: { 200: SessionList, 401: null },
    tags
  },
  deleteSession: {
    method: "DELETE", path: "/api/sessions/:id", summary: "End one of the caller's sessions",
    description: "Ends one session of the calling user by its id (`ses_…`), e.g. a lost laptop's. A session of someone else, or one already ended, answers 404.",
    auth: "caller", callers: user, request: { params: SessionIdParams },
    responses: { 200: RevokedSession, 400: null, 401: null, 404: null },
    tags
  },
  getCoreSession: {
    method: "GET", path: "/api/core/session", summary: "The session enriched with permissions, tenant and role (the gateway's call)",
    description: "The gateway's own lookup: the session behind a bearer token or cookie, with the user, its active organization and platform, its role there and its effective permissions (role mapping plus grants, minus denials). 401 when the token is unknown, expired or revoked.",
    auth: "caller", callers: user,
    responses: { 200: CoreSessionResponse, 401: null },
    tags
  },
  validateSession: {
    method: "POST", path: "/api/validate-session", summary: "Whether a session token is live (the gateway's and the registry's call)",
    description: "Checks the token in the body, else the caller's bearer or cookie; always 200, { valid: false } for none.",
    auth: "public", request: { body: ValidateSessionRequest.optional() },
    responses: { 200: ValidateSessionResponse, 400: null },
    tags
  }
})
