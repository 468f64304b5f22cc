import type { Iam } from "@core/contracts"
import { CoreApiError } from "../errors.js"
import type { Transport } from "../transport.js"

/** Per-call options of the identity account methods. */
export interface IamAccountCallOptions {
  readonly signal?: AbortSignal
}

/**
 * Accounts and sessions of the identity service (`/api/v1/iam/...` through the gateway): the
 * better-auth-compatible `/api/auth/*` routes (their errors carry better-auth's codes, e.g.
 * `INVALID_EMAIL_OR_PASSWORD`), the profile, the caller's sessions and session validation.
 * A token answered by `signUp`, `signIn` or `magicLink.verify` authenticates a new client (`token`).
 * These POSTs carry no idempotency key, so a 429 is never retried: credentials are not re-sent.
 */
export interface IamAccounts {
  /** `POST /api/auth/sign-up/email`: create the user and a session. */
  readonly signUp: (input: Iam.SignUpEmailRequest, options?: IamAccountCallOptions) => Promise<Iam.SignUpEmailResponse>
  /** `POST /api/auth/sign-in/email`: a new session (401 `INVALID_EMAIL_OR_PASSWORD`, 429 when limited). */
  readonly signIn: (input: Iam.SignInEmailRequest, options?: IamAccountCallOptions) => Promise<Iam.SignInEmailResponse>
  /** `POST /api/auth/sign-out`: end the client's session. */
  readonly signOut: (options?: IamAccountCallOptions) => Promise<Iam.SignOutResponse>
  /** `GET /api/auth/get-session`: the client's session and user, or `null`. */
  readonly getSession: (options?: IamAccountCallOptions) => Promise<Iam.GetSessionResponse>
  /** `POST /api/auth/delete-user`: delete the client's account (its password confirms it). */
  readonly deleteUser: (input: Iam.DeleteUserRequest, options?: IamAccountCallOptions) => Promise<Iam.DeleteUserResponse>
  readonly magicLink: {
    /** `POST /api/auth/sign-in/magic-link`: mail a sign-in link (the answer is the same for every address). */
    readonly send: (input: Iam.MagicLinkRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `GET /api/auth/magic-link/verify?token=`: spend the mailed token for a session. */
    readonly verify: (token: string, options?: IamAccountCallOptions) => Promise<Iam.MagicLinkVerifyResponse>
  }
  readonly password: {
    /** `POST /api/auth/change-password`. */
    readonly change: (input: Iam.ChangePasswordRequest, options?: IamAccountCallOptions) => Promise<Iam.ChangePasswordResponse>
    /** `POST /api/auth/request-password-reset`: mail a reset link when the address has an account. */
    readonly requestReset: (input: Iam.RequestPasswordResetRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `POST /api/auth/reset-password`: set a new password with the mailed token; every session ends. */
    readonly reset: (input: Iam.ResetPasswordRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
  }
  readonly emailVerification: {
    /** `POST /api/auth/send-verification-email`. */
    readonly send: (input: Iam.SendVerificationEmailRequest, options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `GET /api/auth/verify-email?token=`: mark the address verified. */
    readonly verify: (token: string, options?: IamAccountCallOptions) => Promise<Iam.VerifyEmailResponse>
  }
  readonly profile: {
    /** `GET /api/auth/profile`. */
    readonly get: (options?: IamAccountCallOptions) => Promise<Iam.User>
    /** `PATCH /api/auth/profile`: `name` (at least one character) and `image` (a URI, or `null` to remove it). */
    readonly update: (change: Iam.UpdateProfileRequest, options?: IamAccountCallOptions) => Promise<Iam.User>
  }
  readonly sessions: {
    /** `GET /api/sessions`: the client's user's active sessions (never their tokens). */
    readonly list: (options?: IamAccountCallOptions) => Promise<Iam.SessionList>
    /** `DELETE /api/sessions/:id`: end one of them (another user's id answers 404). */
    readonly revoke: (id: string, options?: IamAccountCallOptions) => Promise<Iam.RevokedSession>
    /** `POST /api/auth/revoke-other-sessions`: end every session but the client's. */
    readonly revokeOthers: (options?: IamAccountCallOptions) => Promise<Iam.StatusResponse>
    /** `GET /api/core/session`: the session with its tenant, effective role and permissions. */
    readonly current: (options?: IamAccountCallOptions) => Promise<Iam.CoreSessionResponse>
    /** `POST /api/validate-session`: whether a session token (else the client's own) is live. */
    readonly validate: (token?: string, options?: IamAccountCallOptions) => Promise<Iam.ValidateSessionResponse>
  }
}

const signalOf = (options: IamAccountCallOptions | undefined) => (options?.signal === undefined ? {} : { signal: options.signal })

const isLibraryBody = (body: unknown): body is { code: string; message: string; issues?: unknown } =>
  typeof body === "object" && body !== null &&
  typeof (body as { code?: unknown }).code === "string" && typeof (body as { message?: unknown }).message === "string"

/**
 * The same error, with the code and message of a better-auth `{ code, message }` body (and its
 * validation `issues` as `details`), so `/api/auth/*` failures read like every other `CoreApiError`.
 */
export const withLibraryCode = (error: unknown): unknown => {
  if (!(error instanceof CoreApiError) || !isLibraryBody(error.body)) return error
  const ErrorClass = error.constructor as typeof CoreApiError
  return new ErrorClass({
    status: error.status,
    code: error.body.code,
    message: error.body.message,
    requestId: error.requestId,
    details: Array.isArray(error.body.issues) ? { issues: error.body.issues } : error.details,
    headers: error.headers,
    body: error.body
  })
}

const relabel = <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((error: unknown) => {
    throw withLibraryCode(error)
  })

/**
 * The accounts part of `client.iam`, on `transport`, under `basePath` (the gateway's identity
 * prefix by default; `""` for an identity service reached directly).
 */
export const iamAccounts = (transport: Transport, basePath = "/api/v1/iam"): IamAccounts => {
  const path = (suffix: string) => `${basePath}${suffix}`
  const post = <T>(suffix: string, body: unknown, options: IamAccountCallOptions | undefined) =>
    relabel(transport.request<T>("POST", path(suffix), { body, idempotencyKey: false, ...signalOf(options) }))
  const get = <T>(suffix: string, options: IamAccountCallOptions | undefined, query?: Record<string, string>) =>
    relabel(transport.request<T>("GET", path(suffix), { ...(query === undefined ? {} : { query }), ...signalOf(options) }))
  return {
    signUp: (input, options) => post("/api/auth/sign-up/email", input, options),
    signIn: (input, options) => post("/api/auth/sign-in/email", input, options),
    signOut: (options) => post("/api/auth/sign-out", {}, options),
    getSession: (options) => get("/api/auth/get-session", options),
    deleteUser: (input, options) => post("/api/auth/delete-user", input, options),
    magicLink: {
      send: (input, options) => post("/api/auth/sign-in/magic-link", input, options),
      verify: (token, options) => get("/api/auth/magic-link/verify", options, { token })
    },
    password: {
      change: (input, options) => post("/api/auth/change-password", input, options),
      requestReset: (input, options) => post("/api/auth/request-password-reset", input, options),
      reset: (input, options) => post("/api/auth/reset-password", input, options)
    },
    emailVerification: {
      send: (input, options) => post("/api/auth/send-verification-email", input, options),
      verify: (token, options) => get("/api/auth/verify-email", options, { token })
    },
    profile: {
      get: (options) => get("/api/auth/profile", options),
      update: (change, options) =>
        relabel(transport.request("PATCH", path("/api/auth/profile"), { body: change, ...signalOf(options) }))
    },
    sessions: {
      list: (options) => get("/api/sessions", options),
      revoke: (id, options) =>
        relabel(transport.request("DELETE", path(`/api/sessions/${encodeURIComponent(id)}`), signalOf(options))),
      revokeOthers: (options) => post("/api/auth/revoke-other-sessions", {}, options),
      current: (options) => get("/api/core/session", options),
      validate: (token, options) => post("/api/validate-session", token === undefined ? {} : { token }, options)
    }
  }
}
