import { Iam } from "@core/contracts"
import { Ids } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import { AccountError } from "./AccountErrors.js"
import type { SignedIn } from "./Accounts.js"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import { AuthUrls } from "./AuthUrls.js"
import * as Templates from "../mail/Templates.js"
import { deliver, Mailer } from "../mail/Mailer.js"
import { Sessions } from "./Sessions.js"
import { type UserRecord, UsersRepo } from "./UsersRepo.js"
import { Verifications } from "./Verifications.js"

/** `POST /api/auth/sign-in/magic-link`, after the contract. */
export interface MagicLinkInput {
  readonly email: string
  readonly name?: string | undefined
  readonly callbackURL?: string | undefined
  readonly newUserCallbackURL?: string | undefined
  readonly errorCallbackURL?: string | undefined
}

/** A magic-link sign-in; `isNewUser` when the link created the account. */
export interface MagicSignedIn extends SignedIn {
  readonly isNewUser: boolean
}

/**
 * Magic links (better-auth's plugin): a mailed link that works once within 10 minutes and signs the
 * address in, creating the user on first use. Asking answers the same for every address. Proving the
 * address of an unverified account drops what was set before the proof (its password and sessions).
 */
export class MagicLinks extends Effect.Service<MagicLinks>()("@core/auth/MagicLinks", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const sessions = yield* Sessions
    const verifications = yield* Verifications
    const urls = yield* AuthUrls
    const mailer = yield* Mailer
    const audit = yield* AuditLog
    const ids = yield* Ids.Ids
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** Mail a sign-in link to the address (whether or not it has an account). */
    const request: (input: MagicLinkInput) => Effect.Effect<void, AccountError> = Effect.fn("MagicLinks.request")(
      function*(input: MagicLinkInput) {
        yield* urls.checkRedirect(input.callbackURL, "callbackURL")
        yield* urls.checkRedirect(input.newUserCallbackURL, "newUserCallbackURL")
        yield* urls.checkRedirect(input.errorCallbackURL, "errorCallbackURL")
        const email = input.email.toLowerCase()
        const token = yield* verifications.issue({
          purpose: "magic_link",
          email,
          userId: null,
          payload: input.name === undefined ? null : { name: input.name }
        })
        const link = yield* urls.link(Iam.AccountRoutes.verifyMagicLink.path, {
          token,
          callbackURL: input.callbackURL ?? "/",
          newUserCallbackURL: input.newUserCallbackURL,
          errorCallbackURL: input.errorCallbackURL
        })
        yield* deliver(mailer, Templates.magicLink(email, link))
      }
    )

    const createUser = (email: string, name: string, facts: AuditRequestFacts) =>
      Effect.gen(function*() {
        const inserted = yield* users.insert({
          id: yield* ids.make("usr"),
          name,
          email,
          image: null,
          passwordHash: null,
          emailVerified: true,
          now: yield* now
        })
        if (Option.isNone(inserted)) return Option.none<UserRecord>()
        yield* audit.record({
          action: "user.sign_up",
          actorId: inserted.value.id,
          actorType: "user",
          targetType: "user",
          targetId: inserted.value.id,
          metadata: { method: "magic_link" }
        }, facts)
        return inserted
      })

    const proveAddress = (user: UserRecord, facts: AuditRequestFacts) =>
      Effect.gen(function*() {
        if (user.emailVerified) return user
        yield* sessions.revokeAll(user.id, null, facts, "email_proven")
        const updated = yield* users.markEmailVerified(user.id, yield* now, true)
        return Option.getOrElse(updated, () => user)
      })

    /** The user of an address: the existing one (its address now proven), or a new one. */
    const userFor = (email: string, name: string, facts: AuditRequestFacts) =>
      Effect.gen(function*() {
        const existing = yield* users.credentialsByEmail(email)
        if (Option.isSome(existing)) return { user: yield* proveAddress(existing.value.user, facts), isNewUser: false }
        const created = yield* createUser(email, name, facts)
        if (Option.isSome(created)) return { user: created.value, isNewUser: true }
        const raced = yield* users.credentialsByEmail(email)
        if (Option.isNone(raced)) return yield* AccountError.of("INVALID_TOKEN", "unauthenticated")
        return { user: yield* proveAddress(raced.value.user, facts), isNewUser: false }
      })

    /** Spend a link's token and open a session (`INVALID_TOKEN`, 401, for unknown, used or expired links). */
    const verify: (token: string, facts: AuditRequestFacts) => Effect.Effect<MagicSignedIn, AccountError> = Effect.fn(
      "MagicLinks.verify"
    )(
      function*(token: string, facts: AuditRequestFacts) {
        const spent = yield* verifications.consume("magic_link", token)
        if (Option.isNone(spent)) return yield* AccountError.of("INVALID_TOKEN", "unauthenticated")
        const email = spent.value.email
        const name = typeof spent.value.payload?.name === "string" ? spent.value.payload.name : ""
        const { isNewUser, user } = yield* userFor(email, name, facts)
        const issued = yield* sessions.create(user.id, { facts })
        yield* audit.record({
          action: "session.sign_in",
          actorId: user.id,
          actorType: "user",
          targetType: "session",
          targetId: issued.session.id,
          metadata: { method: "magic_link" }
        }, facts)
        return { ...issued, user, isNewUser }
      }
    )

    return { request, verify } as const
  }),
  dependencies: [UsersRepo.Default, Sessions.Default, Verifications.Default]
}) {}
