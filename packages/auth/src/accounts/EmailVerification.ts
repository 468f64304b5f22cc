import { Iam } from "@core/contracts"
import { Clock, Effect, Option } from "effect"
import { AccountError } from "./AccountErrors.js"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import { AuthUrls } from "./AuthUrls.js"
import * as Templates from "../mail/Templates.js"
import { deliver, Mailer } from "../mail/Mailer.js"
import { SessionCache } from "./SessionCache.js"
import { type UserRecord, UsersRepo } from "./UsersRepo.js"
import { Verifications } from "./Verifications.js"

/**
 * Email verification: a mailed link (one hour, once) that marks the address verified. Asked for
 * without a session, the answer is the same whether the email exists or is already verified.
 */
export class EmailVerification extends Effect.Service<EmailVerification>()("@core/auth/EmailVerification", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const verifications = yield* Verifications
    const urls = yield* AuthUrls
    const mailer = yield* Mailer
    const audit = yield* AuditLog
    const cache = yield* SessionCache

    const mail = (user: UserRecord, callbackURL: string | undefined) =>
      Effect.gen(function*() {
        yield* verifications.retire("email_verification", user.email)
        const token = yield* verifications.issue({ purpose: "email_verification", email: user.email, userId: user.id })
        const link = yield* urls.link(Iam.AccountRoutes.verifyEmail.path, { token, callbackURL: callbackURL ?? "/" })
        yield* deliver(mailer, Templates.emailVerification(user.email, link))
      })

    /**
     * Mail a verification link. With a session (`signedIn`), the email must be the caller's
     * (`EMAIL_MISMATCH`) and not yet verified (`EMAIL_ALREADY_VERIFIED`).
     */
    const send: (
      input: { readonly email: string; readonly callbackURL?: string | undefined },
      signedIn: Option.Option<UserRecord>
    ) => Effect.Effect<void, AccountError> = Effect.fn("EmailVerification.send")(
      function*(
        input: { readonly email: string; readonly callbackURL?: string | undefined },
        signedIn: Option.Option<UserRecord>
      ) {
        yield* urls.checkRedirect(input.callbackURL, "callbackURL")
        if (Option.isSome(signedIn)) {
          const user = signedIn.value
          if (user.email.toLowerCase() !== input.email.toLowerCase()) return yield* AccountError.of("EMAIL_MISMATCH")
          if (user.emailVerified) return yield* AccountError.of("EMAIL_ALREADY_VERIFIED")
          return yield* mail(user, input.callbackURL)
        }
        const found = yield* users.credentialsByEmail(input.email)
        if (Option.isSome(found) && !found.value.user.emailVerified) yield* mail(found.value.user, input.callbackURL)
      }
    )

    /** Spend a verification token and mark its address verified (`INVALID_TOKEN`, 401, otherwise). */
    const verify: (token: string, facts: AuditRequestFacts) => Effect.Effect<UserRecord, AccountError> = Effect.fn(
      "EmailVerification.verify"
    )(
      function*(token: string, facts: AuditRequestFacts) {
        const invalid = AccountError.of("INVALID_TOKEN", "unauthenticated")
        const spent = yield* verifications.consume("email_verification", token)
        if (Option.isNone(spent) || spent.value.userId === null) return yield* invalid
        const found = yield* users.findById(spent.value.userId)
        if (Option.isNone(found) || found.value.email !== spent.value.email) return yield* invalid
        if (found.value.emailVerified) return found.value
        const now = new Date(yield* Clock.currentTimeMillis)
        const updated = yield* users.markEmailVerified(found.value.id, now, false)
        yield* cache.clear
        yield* audit.record({
          action: "user.email_verify",
          actorId: found.value.id,
          actorType: "user",
          targetType: "user",
          targetId: found.value.id
        }, facts)
        return Option.getOrElse(updated, () => found.value)
      }
    )

    return { send, verify } as const
  }),
  dependencies: [UsersRepo.Default, Verifications.Default, SessionCache.Default]
}) {}
