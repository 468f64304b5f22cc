import { buildPath, Iam } from "@core/contracts"
import { Clock, Effect, Option } from "effect"
import { AccountError } from "./AccountErrors.js"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import { AuthUrls } from "./AuthUrls.js"
import * as Templates from "../mail/Templates.js"
import { deliver, Mailer } from "../mail/Mailer.js"
import { Passwords } from "./Passwords.js"
import { Sessions } from "./Sessions.js"
import { type UserRecord, UsersRepo } from "./UsersRepo.js"
import { Verifications } from "./Verifications.js"

/** The caller changing their password. */
export interface PasswordOwner {
  readonly userId: string
  readonly sessionId: string
}

/** A password change: the current password, the new one, and whether the caller's other sessions end. */
export interface PasswordChange {
  readonly currentPassword: string
  readonly newPassword: string
  readonly revokeOtherSessions?: boolean | undefined
}

/**
 * Password changes: change (with the current password), reset by mailed link (one hour, once;
 * the answer is the same whether the email exists), and the reset link's landing redirect.
 */
export class Credentials extends Effect.Service<Credentials>()("@core/auth/Credentials", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const passwords = yield* Passwords
    const sessions = yield* Sessions
    const verifications = yield* Verifications
    const urls = yield* AuthUrls
    const audit = yield* AuditLog
    const mailer = yield* Mailer

    const recordChange = (userId: string, action: string, facts: AuditRequestFacts, metadata?: Record<string, unknown>) =>
      audit.record({ action, actorId: userId, actorType: "user", targetType: "user", targetId: userId, metadata }, facts)

    /**
     * Change the caller's password. With `revokeOtherSessions`, every session ends and a new one is
     * opened for the caller (its token is answered); else the token is `null`.
     */
    const change: (
      owner: PasswordOwner,
      input: PasswordChange,
      facts: AuditRequestFacts
    ) => Effect.Effect<{ readonly token: string | null; readonly user: UserRecord }, AccountError> = Effect.fn(
      "Credentials.change"
    )(
      function*(owner: PasswordOwner, input: PasswordChange, facts: AuditRequestFacts) {
        yield* passwords.checkNew(input.newPassword)
        yield* passwords.checkLength(input.currentPassword)
        const found = yield* users.credentialsById(owner.userId)
        if (Option.isNone(found) || found.value.passwordHash === null) {
          return yield* AccountError.of("CREDENTIAL_ACCOUNT_NOT_FOUND")
        }
        if (!(yield* passwords.verify(input.currentPassword, found.value.passwordHash))) {
          return yield* AccountError.of("INVALID_PASSWORD")
        }
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* users.setPassword(owner.userId, yield* passwords.hash(input.newPassword), now)
        yield* recordChange(owner.userId, "user.password_change", facts, {
          revokeOtherSessions: input.revokeOtherSessions === true
        })
        if (input.revokeOtherSessions !== true) return { token: null, user: found.value.user }
        yield* sessions.revokeAll(owner.userId, null, facts, "password_change")
        const issued = yield* sessions.create(owner.userId, { facts })
        return { token: issued.token, user: found.value.user }
      }
    )

    /** Mail a reset link when the email belongs to a user; the answer never says which. */
    const requestReset: (
      input: { readonly email: string; readonly redirectTo?: string | undefined },
      facts: AuditRequestFacts
    ) => Effect.Effect<void, AccountError> = Effect.fn("Credentials.requestReset")(
      function*(input: { readonly email: string; readonly redirectTo?: string | undefined }, facts: AuditRequestFacts) {
        yield* urls.checkRedirect(input.redirectTo, "redirectTo")
        const found = yield* users.credentialsByEmail(input.email)
        if (Option.isNone(found)) return
        const user = found.value.user
        yield* verifications.retire("password_reset", user.email)
        const token = yield* verifications.issue({ purpose: "password_reset", email: user.email, userId: user.id })
        const link = yield* urls.link(buildPath(Iam.AccountRoutes.resetPasswordLanding.path, { token }), {
          callbackURL: input.redirectTo ?? urls.page(Iam.WebRoutes.resetPasswordPage.path)
        })
        yield* deliver(mailer, Templates.passwordReset(user.email, link))
        yield* recordChange(user.id, "user.password_reset_request", facts)
      }
    )

    /**
     * Where the mailed reset link lands: the `callbackURL` with `?token=` while the token is live, else
     * with `?error=INVALID_TOKEN` (better-auth's `/reset-password/:token`).
     */
    const resetLanding = (token: string, callbackURL: string): Effect.Effect<string, AccountError> =>
      Effect.gen(function*() {
        const target = yield* urls.redirectTarget(callbackURL, "callbackURL")
        const live = yield* verifications.isLive("password_reset", token)
        target.searchParams.set(live ? "token" : "error", live ? token : "INVALID_TOKEN")
        return target.toString()
      })

    /** Set a new password with a reset token; every session of the user ends. */
    const reset: (
      input: { readonly newPassword: string; readonly token: string },
      facts: AuditRequestFacts
    ) => Effect.Effect<void, AccountError> = Effect.fn("Credentials.reset")(
      function*(input: { readonly newPassword: string; readonly token: string }, facts: AuditRequestFacts) {
        yield* passwords.checkNew(input.newPassword)
        const spent = yield* verifications.consume("password_reset", input.token)
        if (Option.isNone(spent) || spent.value.userId === null) return yield* AccountError.of("INVALID_TOKEN")
        const userId = spent.value.userId
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* users.setPassword(userId, yield* passwords.hash(input.newPassword), now)
        yield* sessions.revokeAll(userId, null, facts, "password_reset")
        yield* recordChange(userId, "user.password_reset", facts)
      }
    )

    return { change, requestReset, resetLanding, reset } as const
  }),
  dependencies: [UsersRepo.Default, Passwords.Default, Sessions.Default, Verifications.Default]
}) {}
