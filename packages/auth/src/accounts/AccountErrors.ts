import { Data } from "effect"

/**
 * The account and session error codes, as better-auth names them, with their messages and the
 * status better-auth answers them with. The better-auth-compatible routes answer `{ code, message }`.
 */
export const AccountErrorCodes = {
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: { status: 422, message: "User already exists. Use another email." },
  INVALID_EMAIL_OR_PASSWORD: { status: 401, message: "Invalid email or password" },
  INVALID_EMAIL: { status: 400, message: "Invalid email" },
  INVALID_PASSWORD: { status: 400, message: "Invalid password" },
  PASSWORD_TOO_SHORT: { status: 400, message: "Password too short" },
  PASSWORD_TOO_LONG: { status: 400, message: "Password too long" },
  INVALID_TOKEN: { status: 400, message: "Invalid token" },
  CREDENTIAL_ACCOUNT_NOT_FOUND: { status: 400, message: "Credential account not found" },
  EMAIL_MISMATCH: { status: 400, message: "Email mismatch" },
  EMAIL_ALREADY_VERIFIED: { status: 400, message: "Email is already verified" },
  EMAIL_CAN_NOT_BE_UPDATED: { status: 400, message: "Email can not be updated" },
  NO_FIELDS_TO_UPDATE: { status: 400, message: "No fields to update" },
  SESSION_EXPIRED: { status: 400, message: "Session expired. Re-authenticate to perform this action." },
  USER_IS_THE_ONLY_OWNER_OF_AN_ORGANIZATION: {
    status: 400,
    message: "The user is the only owner of an organization; transfer or delete it first"
  },
  SESSION_NOT_FOUND: { status: 404, message: "Session not found" },
  INVALID_CALLBACK_URL: { status: 403, message: "Invalid callbackURL" },
  INVALID_ERROR_CALLBACK_URL: { status: 403, message: "Invalid errorCallbackURL" },
  INVALID_NEW_USER_CALLBACK_URL: { status: 403, message: "Invalid newUserCallbackURL" },
  INVALID_REDIRECT_URL: { status: 403, message: "Invalid redirectURL" }
} as const

/** One of {@link AccountErrorCodes}. */
export type AccountErrorCode = keyof typeof AccountErrorCodes

/**
 * An account rule refused the request. `status` is the one better-auth answers the code with;
 * the magic-link and email verification routes answer `INVALID_TOKEN` with 401, as better-auth does.
 */
export class AccountError extends Data.TaggedError("AccountError")<{
  readonly code: AccountErrorCode
  readonly message: string
  readonly status: number
}> {
  /** The error for `code`, with its catalogue message and status (or `status` when given). */
  static of(code: AccountErrorCode, status?: number): AccountError {
    const entry = AccountErrorCodes[code]
    return new AccountError({ code, message: entry.message, status: status ?? entry.status })
  }
}
