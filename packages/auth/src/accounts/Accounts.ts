import { Ids, type RateLimited } from "@core/kernel"
import { Clock, Duration, Effect, Option } from "effect"
import { z } from "zod"
import { AccountError } from "./AccountErrors.js"
import { AuditLog, type AuditRequestFacts } from "../audit/AuditLog.js"
import { Access } from "../authorization/Access.js"
import { Passwords } from "./Passwords.js"
import { SessionCache } from "./SessionCache.js"
import { type IssuedSession, Sessions } from "./Sessions.js"
import type { SessionRecord } from "./SessionsRepo.js"
import { SignInLimiter } from "./SignInLimiter.js"
import { type UserRecord, UsersRepo } from "./UsersRepo.js"

/** A user who just signed up or in, with the session opened for them. */
export interface SignedIn extends IssuedSession {
  readonly user: UserRecord
}

/** `POST /api/auth/sign-up/email`, after the contract. */
export interface SignUpInput {
  readonly name: string
  readonly email: string
  readonly password: string
  readonly image?: string | undefined
  readonly rememberMe?: boolean | undefined
}

/** `POST /api/auth/sign-in/email`, after the contract. */
export interface SignInInput {
  readonly email: string
  readonly password: string
  readonly rememberMe?: boolean | undefined
}

/** A session younger than this may delete a password-less account without re-authenticating. */
export const FRESH_SESSION_AGE = Duration.days(1)

const isEmail = (value: string): boolean => z.email().safeParse(value).success

/**
 * Accounts: email/password sign-up and sign-in, and account deletion. Sign-in never tells an
 * unknown email from a wrong password — same error, one scrypt run either way — and is slowed
 * down, then limited, per account and client address and per address (`SignInLimiter`, decision
 * 0190). Both outcomes are audited.
 */
export class Accounts extends Effect.Service<Accounts>()("@core/auth/Accounts", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const sessions = yield* Sessions
    const passwords = yield* Passwords
    const limiter = yield* SignInLimiter
    const audit = yield* AuditLog
    const access = yield* Access
    const ids = yield* Ids.Ids
    const cache = yield* SessionCache
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const recordSignIn = (user: UserRecord, session: SessionRecord, method: string, facts: AuditRequestFacts) =>
      audit.record({
        action: "session.sign_in",
        actorId: user.id,
        actorType: "user",
        targetType: "session",
        targetId: session.id,
        metadata: { method }
      }, facts)

    const signUp: (
      input: SignUpInput,
      facts: AuditRequestFacts
    ) => Effect.Effect<SignedIn, AccountError> = Effect.fn("Accounts.signUp")(
      function*(input: SignUpInput, facts: AuditRequestFacts) {
        yield* passwords.checkNew(input.password)
        const existing = yield* users.credentialsByEmail(input.email)
        if (Option.isSome(existing)) return yield* AccountError.of("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL")
        const passwordHash = yield* passwords.hash(input.password)
        const inserted = yield* users.insert({
          id: yield* ids.make("usr"),
          name: input.name,
          email: input.email,
          image: input.image ?? null,
          passwordHash,
          emailVerified: false,
          now: yield* now
        })
        if (Option.isNone(inserted)) return yield* AccountError.of("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL")
        const user = inserted.value
        yield* audit.record({
          action: "user.sign_up",
          actorId: user.id,
          actorType: "user",
          targetType: "user",
          targetId: user.id,
          metadata: { method: "email" }
        }, facts)
        const issued = yield* sessions.create(user.id, { rememberMe: input.rememberMe, facts })
        yield* recordSignIn(user, issued.session, "email", facts)
        return { ...issued, user }
      }
    )

    const refuseSignIn = (email: string, userId: string | null, facts: AuditRequestFacts) =>
      Effect.zipRight(
        audit.record({
          action: "session.sign_in",
          outcome: "failure",
          actorId: null,
          actorType: "anonymous",
          targetType: userId === null ? null : "user",
          targetId: userId,
          metadata: { method: "email", email: email.toLowerCase(), reason: "invalid_credentials" }
        }, facts),
        Effect.fail(AccountError.of("INVALID_EMAIL_OR_PASSWORD"))
      )

    const signIn: (
      input: SignInInput,
      facts: AuditRequestFacts
    ) => Effect.Effect<SignedIn, AccountError | RateLimited> = Effect.fn("Accounts.signIn")(
      function*(input: SignInInput, facts: AuditRequestFacts) {
        if (!isEmail(input.email)) return yield* AccountError.of("INVALID_EMAIL")
        yield* passwords.checkLength(input.password)
        const attempt = yield* limiter.admit(input.email, facts.ip).pipe(
          Effect.tapError(() =>
            audit.record({
              action: "session.sign_in",
              outcome: "failure",
              actorType: "anonymous",
              metadata: { method: "email", email: input.email.toLowerCase(), reason: "rate_limited" }
            }, facts))
        )
        const found = yield* users.credentialsByEmail(input.email)
        const passwordHash = Option.match(found, { onNone: () => null, onSome: (credentials) => credentials.passwordHash })
        const matches = yield* passwords.verify(input.password, passwordHash)
        if (!matches || Option.isNone(found)) {
          return yield* refuseSignIn(input.email, Option.getOrNull(Option.map(found, (c) => c.user.id)), facts)
        }
        const user = found.value.user
        yield* attempt.succeeded
        const issued = yield* sessions.create(user.id, { rememberMe: input.rememberMe, facts })
        yield* recordSignIn(user, issued.session, "email", facts)
        return { ...issued, user }
      }
    )

    /**
     * Delete the caller's account. A user with a password confirms with it; a password-less user needs
     * a fresh session (the one making the request). Refused while the user is the only owner of an
     * organization.
     */
    const deleteUser = Effect.fn("Accounts.deleteUser")(function*(
      caller: { readonly userId: string; readonly sessionId: string },
      password: string | undefined,
      facts: AuditRequestFacts
    ): Effect.fn.Return<void, AccountError> {
      const credentials = yield* users.credentialsById(caller.userId)
      if (Option.isNone(credentials)) return yield* AccountError.of("SESSION_EXPIRED")
      const { passwordHash } = credentials.value
      if (passwordHash !== null) {
        if (password === undefined) return yield* AccountError.of("INVALID_PASSWORD")
        yield* passwords.checkLength(password)
        if (!(yield* passwords.verify(password, passwordHash))) return yield* AccountError.of("INVALID_PASSWORD")
      } else {
        const session = yield* sessions.find(caller.sessionId)
        if (Option.isNone(session)) return yield* AccountError.of("SESSION_EXPIRED")
        const age = (yield* now).getTime() - session.value.createdAt.getTime()
        if (age >= Duration.toMillis(FRESH_SESSION_AGE)) return yield* AccountError.of("SESSION_EXPIRED")
      }
      const soleOwned = yield* users.soleOwnedOrganization(caller.userId)
      if (Option.isSome(soleOwned)) return yield* AccountError.of("USER_IS_THE_ONLY_OWNER_OF_AN_ORGANIZATION")
      const organizations = yield* users.organizationIds(caller.userId)
      yield* users.remove(caller.userId)
      yield* cache.clear
      yield* Effect.forEach(organizations, (organizationId) => access.invalidate(organizationId, caller.userId), {
        discard: true
      })
      yield* audit.record({
        action: "user.delete",
        actorId: caller.userId,
        actorType: "user",
        targetType: "user",
        targetId: caller.userId
      }, facts)
    })

    return { signUp, signIn, deleteUser } as const
  }),
  dependencies: [UsersRepo.Default, Sessions.Default, Passwords.Default, SignInLimiter.Default, SessionCache.Default]
}) {}
