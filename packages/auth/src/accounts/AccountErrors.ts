import { Data } from "effect"

/**
 * The account and session error codes, as better-auth names them, with their messages. The
 * better-auth-compatible routes answer `{ code, message }`, with the status better-auth gives each
 * code (`BetterAuth.statusOf`: the protocol's table, not the domain's).
 */
export const AccountErrorCodes = {
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: { message: "User already exists. Use another email." },
  INVALID_EMAIL_OR_PASSWORD: { message: "Invalid email or password" },
  INVALID_EMAIL: { message: "Invalid email" },
  INVALID_PASSWORD: { message: "Invalid password" },
  PASSWORD_TOO_SHORT: { message: "Password too short" },
  PASSWORD_TOO_LONG: { message: "Password too long" },
  INVALID_TOKEN: { message: "Invalid token" },
  CREDENTIAL_ACCOUNT_NOT_FOUND: { message: "Credential account not found" },
  EMAIL_MISMATCH: { message: "Email mismatch" },
  EMAIL_ALREADY_VERIFIED: { message: "Email is already verified" },
  EMAIL_CAN_NOT_BE_UPDATED: { message: "Email can not be updated" },
  NO_FIELDS_TO_UPDATE: { message: "No fields to update" },
  SESSION_EXPIRED: { message: "Session expired. Re-authenticate to perform this action." },
  USER_IS_THE_ONLY_OWNER_OF_AN_ORGANIZATION: { message: "The user is the only owner of an organization; transfer or delete it first" },
  SESSION_NOT_FOUND: { message: "Session not found" },
  INVALID_CALLBACK_URL: { message: "Invalid callbackURL" },
  INVALID_ERROR_CALLBACK_URL: { message: "Invalid errorCallbackURL" },
  INVALID_NEW_USER_CALLBACK_URL: { message: "Invalid newUserCallbackURL" },
  INVALID_REDIRECT_URL: { message: "Invalid redirectURL" }
} as const

/** One of {@link AccountErrorCodes}. */
export type AccountErrorCode = keyof typeof AccountErrorCodes

/**
 * An account rule refused the request. `unauthenticated` marks a refusal of the credential itself
 * (a magic-link or verification token that proves nothing), which better-auth answers with 401.
 */
export class AccountError extends Data.TaggedError("AccountError")<{
  readonly code: AccountErrorCode
  readonly message: string
  readonly reason?: "unauthenticated"
}> {
  /** The error for `code`, with its catalogue message. */
  static of(code: AccountErrorCode, reason?: "unauthenticated"): AccountError {
    return new AccountError({ code, message: AccountErrorCodes[code].message, ...(reason === undefined ? {} : { reason }) })
  }
}
