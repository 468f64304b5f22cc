import { z } from "zod"
import { BoundedId, EmailAddress, FreeText, Metadata, NAME_MAX_LENGTH, TEXT_MAX_LENGTH } from "../Bounds.js"
import { ErrorEnvelope } from "../Envelope.js"
import { naming, pathInput } from "../PathRecords.js"

/** Shortest password accepted at sign-up, reset and change (better-auth's default). */
export const PASSWORD_MIN_LENGTH = 8
/** Longest password accepted anywhere (better-auth's default). */
export const PASSWORD_MAX_LENGTH = 128

/** The name of the session cookie; the bearer token and the cookie carry the same value. */
export const SESSION_COOKIE = "core.session_token"
/** The response header carrying a newly issued session token (better-auth's bearer plugin). */
export const SET_AUTH_TOKEN_HEADER = "set-auth-token"

/** A user as better-auth answers it. Timestamps are ISO 8601. */
export const User = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  image: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string()
})
export type User = z.infer<typeof User>

/** A session as answered to its owner: never its token. Timestamps are ISO 8601. */
export const Session = z.object({
  id: z.string(),
  userId: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  activeOrganizationId: z.string().nullable()
})
export type Session = z.infer<typeof Session>

/** The `{ code, message }` error body of the better-auth-compatible `/api/auth/*` routes. */
export const AuthErrorBody = z.object({
  code: z.string(),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional()
})

/**
 * The 401 of a better-auth-compatible route that needs a caller: better-auth's `{ code, message }`
 * from the identity service, or the gateway's error envelope when the gateway refuses the request
 * first (no credential while `CORE_STATIC_API_KEY` is set, or a bad one).
 */
export const AuthUnauthorizedBody = z.union([AuthErrorBody, ErrorEnvelope])
export type AuthErrorBody = z.infer<typeof AuthErrorBody>

/** `POST /api/auth/sign-up/email`. Password length is checked after parsing (`PASSWORD_TOO_SHORT`/`_LONG`). */
export const SignUpEmailRequest = z.object({
  name: z.string().max(NAME_MAX_LENGTH),
  email: EmailAddress,
  password: FreeText.min(1),
  image: FreeText.optional(),
  callbackURL: FreeText.optional(),
  rememberMe: z.boolean().optional()
})
export type SignUpEmailRequest = z.infer<typeof SignUpEmailRequest>

/** Answer of `POST /api/auth/sign-up/email`; the token also comes as `set-auth-token` and the cookie. */
export const SignUpEmailResponse = z.object({ token: z.string(), user: User })
export type SignUpEmailResponse = z.infer<typeof SignUpEmailResponse>

/** `POST /api/auth/sign-in/email`. A malformed email answers `INVALID_EMAIL`, as in better-auth. */
export const SignInEmailRequest = z.object({
  email: FreeText,
  password: FreeText,
  callbackURL: FreeText.optional(),
  rememberMe: z.boolean().optional()
})
export type SignInEmailRequest = z.infer<typeof SignInEmailRequest>

/** Answer of `POST /api/auth/sign-in/email`; `redirect` is true (and `url` set) only with a `callbackURL`. */
export const SignInEmailResponse = z.object({
  redirect: z.boolean(),
  token: z.string(),
  url: z.string().optional(),
  user: User
})
export type SignInEmailResponse = z.infer<typeof SignInEmailResponse>

/** `POST /api/auth/sign-in/magic-link`. */
export const MagicLinkRequest = z.object({
  email: EmailAddress,
  name: z.string().max(NAME_MAX_LENGTH).optional(),
  callbackURL: FreeText.optional(),
  newUserCallbackURL: FreeText.optional(),
  errorCallbackURL: FreeText.optional(),
  metadata: Metadata.optional()
})
export type MagicLinkRequest = z.infer<typeof MagicLinkRequest>

/** `{ status: true }`: magic link, password reset and verification requests answer it whatever the email. */
export const StatusResponse = z.object({ status: z.boolean() })
export type StatusResponse = z.infer<typeof StatusResponse>

/** Answer of `POST /api/auth/request-password-reset`, whether or not the email has an account. */
export const PasswordResetRequested = StatusResponse.extend({ message: z.string() })
export type PasswordResetRequested = z.infer<typeof PasswordResetRequested>

/** Query of `GET /api/auth/magic-link/verify`. */
export const MagicLinkVerifyQuery = z.object({
  token: FreeText,
  callbackURL: FreeText.optional(),
  newUserCallbackURL: FreeText.optional(),
  errorCallbackURL: FreeText.optional()
})
export type MagicLinkVerifyQuery = z.infer<typeof MagicLinkVerifyQuery>

/** Answer of `GET /api/auth/magic-link/verify` without a `callbackURL` (with one it redirects). */
export const MagicLinkVerifyResponse = z.object({ token: z.string(), user: User, session: Session })
export type MagicLinkVerifyResponse = z.infer<typeof MagicLinkVerifyResponse>

/** Answer of `GET /api/auth/get-session`: the session and its user, or `null`. */
export const GetSessionResponse = z.object({ session: Session, user: User }).nullable()
export type GetSessionResponse = z.infer<typeof GetSessionResponse>

/** Answer of `GET /api/auth/list-sessions`: the caller's active sessions (better-auth's shape). */
export const AuthSessionList = z.array(Session)
export type AuthSessionList = z.infer<typeof AuthSessionList>

/** Answer of `POST /api/auth/sign-out`. */
/**
 * The body of sign-out: none, or an empty object, which better-auth's client sends
 * (`authClient.signOut()` posts `{}`); a field is 400 (there is nothing to say to sign-out).
 */
export const SignOutRequest = z.object({}).strict().optional()
export type SignOutRequest = z.input<typeof SignOutRequest>

export const SignOutResponse = z.object({ success: z.literal(true) })
export type SignOutResponse = z.infer<typeof SignOutResponse>

/** `POST /api/auth/revoke-session`: a session of the caller by id, or by its token. */
export const RevokeSessionRequest = z
  .object({ id: BoundedId.optional(), token: BoundedId.optional() })
  .refine((body) => body.id !== undefined || body.token !== undefined, { message: "id or token is required" })
export type RevokeSessionRequest = z.infer<typeof RevokeSessionRequest>

/** Image of a profile: a URI, or `null` to remove it. */
export const ProfileImage = z.url().max(TEXT_MAX_LENGTH).nullable()

/** `PATCH /api/auth/profile`. */
export const UpdateProfileRequest = z.object({
  name: z.string().min(1).max(NAME_MAX_LENGTH).optional(),
  image: ProfileImage.optional()
})
export type UpdateProfileRequest = z.infer<typeof UpdateProfileRequest>

/** `POST /api/auth/update-user` (better-auth): the profile fields; `email` cannot be changed here. */
export const UpdateUserRequest = UpdateProfileRequest.extend({ email: z.unknown().optional() })
export type UpdateUserRequest = z.infer<typeof UpdateUserRequest>

/** `POST /api/auth/request-password-reset`. */
export const RequestPasswordResetRequest = z.object({ email: EmailAddress, redirectTo: FreeText.optional() })
export type RequestPasswordResetRequest = z.infer<typeof RequestPasswordResetRequest>

/** `POST /api/auth/reset-password`. */
export const ResetPasswordRequest = z.object({ newPassword: FreeText, token: BoundedId })
export type ResetPasswordRequest = z.infer<typeof ResetPasswordRequest>

/** Path of `GET /api/auth/reset-password/:token`, where the mailed reset link lands. */
export const ResetLandingParams = z.object({ token: pathInput(BoundedId) })

/** Query of `GET /api/auth/reset-password/:token`: where to send the browser (with `?token=` or `?error=`). */
export const ResetLandingQuery = z.object({ callbackURL: FreeText.min(1) })

/** `POST /api/auth/change-password`. */
export const ChangePasswordRequest = z.object({
  currentPassword: FreeText,
  newPassword: FreeText,
  revokeOtherSessions: z.boolean().optional()
})
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>

/** Answer of `POST /api/auth/change-password`; `token` is the new session's when others were revoked. */
export const ChangePasswordResponse = z.object({ token: z.string().nullable(), user: User })
export type ChangePasswordResponse = z.infer<typeof ChangePasswordResponse>

/** `POST /api/auth/send-verification-email`. */
export const SendVerificationEmailRequest = z.object({ email: EmailAddress, callbackURL: FreeText.optional() })
export type SendVerificationEmailRequest = z.infer<typeof SendVerificationEmailRequest>

/** Query of `GET /api/auth/verify-email`. */
export const VerifyEmailQuery = z.object({ token: FreeText, callbackURL: FreeText.optional() })
export type VerifyEmailQuery = z.infer<typeof VerifyEmailQuery>

/** Answer of `GET /api/auth/verify-email` without a `callbackURL`. */
export const VerifyEmailResponse = z.object({ status: z.literal(true), user: User.nullable() })
export type VerifyEmailResponse = z.infer<typeof VerifyEmailResponse>

/**
 * `POST /api/auth/delete-user`: the password confirms it; a user without a password (magic link only)
 * needs a session younger than a day instead.
 */
export const DeleteUserRequest = z.object({ password: FreeText.optional(), callbackURL: FreeText.optional() })
export type DeleteUserRequest = z.infer<typeof DeleteUserRequest>

/** Answer of `POST /api/auth/delete-user`. */
export const DeleteUserResponse = z.object({ success: z.literal(true), message: z.literal("User deleted") })
export type DeleteUserResponse = z.infer<typeof DeleteUserResponse>

/** One of the caller's sessions in `GET /api/sessions`; `current` marks the one making the request. */
export const SessionRecord = Session.extend({ current: z.boolean() })
export type SessionRecord = z.infer<typeof SessionRecord>

/** Answer of `GET /api/sessions`: the caller's active sessions, newest first. */
export const SessionList = z.object({ data: z.array(SessionRecord) })
export type SessionList = z.infer<typeof SessionList>

/** Path of `DELETE /api/sessions/:id`. */
export const SessionIdParams = z.object({ id: naming(BoundedId, "Session not found") })

/** Answer of `DELETE /api/sessions/:id`: the revoked session's id. */
export const RevokedSession = z.object({ id: z.string() })
export type RevokedSession = z.infer<typeof RevokedSession>

/** Effective role of a session: its role in the active organization, or `operator`. */
export const EffectiveRole = z.enum(["owner", "admin", "member", "operator"])
export type EffectiveRole = z.infer<typeof EffectiveRole>

/** Status of a platform as identity knows it (`POST /internal/platform-status`). */
export const PlatformStatusValue = z.enum(["active", "suspended"])

/** The tenant a session acts for: its active organization and that organization's platform. */
export const TenantContext = z.object({
  organizationId: z.string().nullable(),
  organizationSlug: z.string().nullable(),
  platformId: z.string().nullable(),
  platformStatus: PlatformStatusValue.nullable()
})
export type TenantContext = z.infer<typeof TenantContext>

/** Answer of `GET /api/core/session`: the session enriched for the gateway. */
export const CoreSessionResponse = z.object({
  session: Session,
  user: User,
  permissions: z.array(z.string()),
  tenant: TenantContext,
  role: EffectiveRole.nullable()
})
export type CoreSessionResponse = z.infer<typeof CoreSessionResponse>

/** `POST /api/validate-session`: a token in the body, or else the caller's bearer or cookie. */
export const ValidateSessionRequest = z.object({ token: BoundedId.optional() })
export type ValidateSessionRequest = z.infer<typeof ValidateSessionRequest>

/** Answer of `POST /api/validate-session` (always 200). */
export const ValidateSessionResponse = z.discriminatedUnion("valid", [
  z.object({
    valid: z.literal(true),
    userId: z.string(),
    sessionId: z.string(),
    email: z.string(),
    expiresAt: z.string(),
    activeOrganizationId: z.string().nullable(),
    platformId: z.string().nullable(),
    platformStatus: PlatformStatusValue.nullable(),
    role: EffectiveRole.nullable()
  }),
  z.object({ valid: z.literal(false) })
])
export type ValidateSessionResponse = z.infer<typeof ValidateSessionResponse>
