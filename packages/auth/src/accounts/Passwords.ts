import { Iam } from "@core/contracts"
import { Crypto } from "@core/kernel"
import { Effect } from "effect"
import { AccountError } from "./AccountErrors.js"

/**
 * Password hashing (scrypt, kernel `Crypto`) and the length rules of better-auth
 * (8 to 128 characters). Verifying without a hash still spends one scrypt run, against a dummy
 * hash, so an unknown email answers in the same time as a wrong password.
 */
export class Passwords extends Effect.Service<Passwords>()("@core/auth/Passwords", {
  effect: Effect.gen(function*() {
    const dummyHash = yield* Crypto.hashPassword(Crypto.randomToken())

    /** `PASSWORD_TOO_SHORT` / `PASSWORD_TOO_LONG` for a new password. */
    const checkNew = (password: string): Effect.Effect<void, AccountError> => {
      if (password.length < Iam.PASSWORD_MIN_LENGTH) return Effect.fail(AccountError.of("PASSWORD_TOO_SHORT"))
      return checkLength(password)
    }

    /** `PASSWORD_TOO_LONG` before any hashing (a long input must not buy a long scrypt run). */
    const checkLength = (password: string): Effect.Effect<void, AccountError> =>
      password.length > Iam.PASSWORD_MAX_LENGTH ? Effect.fail(AccountError.of("PASSWORD_TOO_LONG")) : Effect.void

    const hash: (password: string) => Effect.Effect<string> = Effect.fn("Passwords.hash")(function*(password: string) {
      return yield* Crypto.hashPassword(password)
    })

    /** Whether `password` matches `passwordHash`; with no hash, spends the same time and answers false. */
    const verify: (password: string, passwordHash: string | null) => Effect.Effect<boolean> = Effect.fn(
      "Passwords.verify"
    )(function*(password: string, passwordHash: string | null) {
      if (passwordHash === null) {
        yield* Crypto.verifyPassword(password, dummyHash)
        return false
      }
      return yield* Crypto.verifyPassword(password, passwordHash)
    })

    return { checkNew, checkLength, hash, verify } as const
  })
}) {}
