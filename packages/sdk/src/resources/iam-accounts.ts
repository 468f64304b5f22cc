import type { Iam } from "@core/contracts"
import { AccountRouteRefs, ServiceRouteRefs } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
import type { Transport } from "../transport.js"

/** Per-call options of the identity account methods. */
export interface IamAccountCallOptions {
  readonly signal?: AbortSignal
}

/**
 * Accounts and sessions of the identity service (under its gateway prefix), one method per route
 * of `Iam.AccountRoutes` (named in each method's comment): the better-auth-compatible routes (their
 * errors carry better-auth's codes, e.g. `INVALID_EMAIL_OR_PASSWORD`), the profile, the caller's
 * sessions and session validation. A token answered by `signUp`, `signIn` or `magicLink.verify`
 * authenticates a new client (`token`). These POSTs carry no idempotency key, so a 429 is never
 * retried: credentials are not re-sent.
 */
export interface IamAccounts {
  /** `signUpEmail`: create the user and a session. */
  readonly signUp: (input: Iam.SignUpEmailRequest, options?: IamAccountCallOptions) => Promise<Iam.SignUpEmailResponse>
  /** `signInEmail`: a new session (401 `INVALID_EMAIL_OR_PASSWORD`, 429 when limited). */
  readonly signIn: (input: Iam.SignInEmailRequest, options?: IamAccountCallOptions) => Promise<Iam.SignInEmailResponse>
  /** `signOut`: end the client's session. */
  readonly signOut: (options?: IamAccountCallOptions) => Promise<Iam.SignOutResponse>
  /** `getSession`: the client's session and user, or `null`. */
  readonly getSession: (options?: IamAccountCallOptions) => Promise<Iam.GetSessionResponse>
  /** `deleteUser`: delete the client's account (its password confirms it). */
  readonly deleteUser: (input: Iam.DeleteUserRequest, options?: IamAccountCallOptions) => Promise<Iam.DeleteUserResponse>
  /** `updateUser`: better-auth's change of the client's name or image (`profile.update` is the profile PATCH route). */
  readonly updateUser: (input: Iam.UpdateUserRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
  /** `listSessions`: better-auth's list of the client's user's active sessions. */
  readonly listSessions: (options?: IamAccountCallOptions) => Promise<Iam.AuthSessionList>
  /** `revokeSession`: end one of the client's user's sessions, by `id` or `token` (another user's: 404 `SESSION_NOT_FOUND`). */
  readonly revokeSession: (input: Iam.RevokeSessionRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
  /** `revokeSessions`: end every session of the client's user, the client's own included. */
  readonly revokeSessions: (options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
  /**
   * `identityHealth` (`Iam.ServiceRoutes`): the identity service's own health through the gateway,
   * its database check included. A degraded service answers 503, thrown at once (never retried) as
   * an `InternalServerError` whose `body` is the same report.
   */
  readonly health: (options?: IamAccountCallOptions) => Promise<Iam.IdentityHealth>
  readonly magicLink: {
    /** `signInMagicLink`: mail a sign-in link (the answer is the same for every address). */
    readonly send: (input: Iam.MagicLinkRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `verifyMagicLink`: spend the mailed token for a session. */
    readonly verify: (token: string, options?: IamAccountCallOptions) => Promise<Iam.MagicLinkVerifyResponse>
  }
  readonly password: {
    /** `changePassword`. */
    readonly change: (input: Iam.ChangePasswordRequest, options?: IamAccountCallOptions) => Promise<Iam.ChangePasswordResponse>
    /** `requestPasswordReset`: mail a reset link when the address has an account. */
    readonly requestReset: (input: Iam.RequestPasswordResetRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `resetPassword`: set a new password with the mailed token; every session ends. */
    readonly reset: (input: Iam.ResetPasswordRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
  }
  readonly emailVerification: {
    /** `sendVerificationEmail`. */
    readonly send: (input: Iam.SendVerificationEmailRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `verifyEmail`: mark the address verified. */
    readonly verify: (token: string, options?: IamAccountCallOptions) => Promise<Iam.VerifyEmailResponse>
  }
  readonly profile: {
    /** `getProfile`. */
    readonly get: (options?: IamAccountCallOptions) => Promise<Iam.User>
    /** `updateProfile` (PATCH, with an idempotency key): `name` (at least one character) and `image` (a URI, or `null` to remove it). */
    readonly update: (change: Iam.UpdateProfileRequest, options?: IamAccountCallOptions) => Promise<Iam.User>
  }
  readonly sessions: {
    /** `listActiveSessions`: the client's user's active sessions (never their tokens). */
    readonly list: (options?: IamAccountCallOptions) => Promise<Iam.SessionList>
    /** `deleteSession`: end one of them (another user's id answers 404). */
    readonly revoke: (id: string, options?: IamAccountCallOptions) => Promise<Iam.RevokedSession>
    /** `revokeOtherSessions`: end every session but the client's. */
    readonly revokeOthers: (options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `getCoreSession`: the session with its tenant, effective role and permissions. */
    readonly current: (options?: IamAccountCallOptions) => Promise<Iam.CoreSessionResponse>
    /** `validateSession`: whether a session token (else the client's own) is live. */
    readonly validate: (token?: string, options?: IamAccountCallOptions) => Promise<Iam.ValidateSessionResponse>
  }
}

const Routes: typeof AccountRouteRefs = AccountRouteRefs

/**
 * The accounts part of `client.iam`, on `transport`, under `basePath` (the gateway's identity
 * prefix by default; `""` for an identity service reached directly).
 */
export const iamAccounts = (transport: Transport, basePath?: string): IamAccounts => {
  const { call } = routeCaller(transport, { basePath, idempotencyKey: false })
  const keyed = routeCaller(transport, { basePath }).call
  return {
    signUp: (input, options) => call(Routes.signUpEmail, { body: input }, options),
    signIn: (input, options) => call(Routes.signInEmail, { body: input }, options),
    signOut: (options) => call(Routes.signOut, {}, options),
    getSession: (options) => call(Routes.getSession, {}, options),
    deleteUser: (input, options) => call(Routes.deleteUser, { body: input }, options),
    updateUser: (input, options) => call(Routes.updateUser, { body: input }, options),
    listSessions: (options) => call(Routes.listSessions, {}, options),
    revokeSession: (input, options) => call(Routes.revokeSession, { body: input }, options),
    revokeSessions: (options) => call(Routes.revokeSessions, {}, options),
    health: (options) => call(ServiceRouteRefs.identityHealth, {}, { ...options, retry: 0 }),
    magicLink: {
      send: (input, options) => call(Routes.signInMagicLink, { body: input }, options),
      verify: (token, options) => call(Routes.verifyMagicLink, { query: { token } }, options)
    },
    password: {
      change: (input, options) => call(Routes.changePassword, { body: input }, options),
      requestReset: (input, options) => call(Routes.requestPasswordReset, { body: input }, options),
      reset: (input, options) => call(Routes.resetPassword, { body: input }, options)
    },
    emailVerification: {
      send: (input, options) => call(Routes.sendVerificationEmail, { body: input }, options),
      verify: (token, options) => call(Routes.verifyEmail, { query: { token } }, options)
    },
    profile: {
      get: (options) => call(Routes.getProfile, {}, options),
      update: (change, options) => keyed(Routes.updateProfile, { body: change }, options)
    },
    sessions: {
      list: (options) => call(Routes.listActiveSessions, {}, options),
      revoke: (id, options) => call(Routes.deleteSession, { params: { id } }, options),
      revokeOthers: (options) => call(Routes.revokeOtherSessions, {}, options),
      current: (options) => call(Routes.getCoreSession, {}, options),
      validate: (token, options) => call(Routes.validateSession, { body: token === undefined ? {} : { token } }, options)
    }
  }
}
