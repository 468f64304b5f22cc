import { HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { RequestContext, Route } from "@core/kernel"
import { Effect, Option } from "effect"
import { AccountError } from "./AccountErrors.js"
import { Accounts, type SignedIn } from "./Accounts.js"
import { signedIn } from "./CurrentSession.js"
import { AuthUrls } from "./AuthUrls.js"
import { Credentials } from "./Credentials.js"
import { EmailVerification } from "./EmailVerification.js"
import { MagicLinks } from "./MagicLinks.js"
import { Profile } from "./Profile.js"
import { sessionView, userView } from "./AccountViews.js"
import { json } from "./BetterAuth.js"
import { cookieSettings, withoutSession, withSession } from "./SessionCookie.js"
import { invalidates } from "../internal/Invalidate.js"

const Routes = Iam.AccountRoutes

const issue = (signed: SignedIn, body: unknown, remember = true) =>
  Effect.map(cookieSettings, (settings) => withSession(json(body), signed.token, settings, remember))

const redirectTo = (target: string | URL) => HttpServerResponse.redirect(target, { status: 302 })

const withError = (target: URL, error: string) => {
  target.searchParams.set("error", error)
  return target
}

const signUpEmail = Route.handle(Routes.signUpEmail, ({ body }) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* Effect.flatMap(AuthUrls, (urls) => urls.checkRedirect(body.callbackURL, "callbackURL"))
    const signed = yield* accounts.signUp(body, yield* RequestContext.facts)
    return yield* issue(signed, { token: signed.token, user: userView(signed.user) }, body.rememberMe !== false)
  }))

const signInEmail = Route.handle(Routes.signInEmail, ({ body }) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* Effect.flatMap(AuthUrls, (urls) => urls.checkRedirect(body.callbackURL, "callbackURL"))
    const signed = yield* accounts.signIn(body, yield* RequestContext.facts)
    const answer = { redirect: body.callbackURL !== undefined, token: signed.token, url: body.callbackURL, user: userView(signed.user) }
    return yield* issue(signed, answer, body.rememberMe !== false)
  }))

const signInMagicLink = Route.handle(Routes.signInMagicLink, ({ body }) =>
  Effect.gen(function*() {
    const magicLinks = yield* MagicLinks
    yield* magicLinks.request(body)
    return json({ status: true })
  }))

/** Without a callbackURL the session is answered; with one the browser goes on (or to the error callback). */
const verifyMagicLink = Route.handle(Routes.verifyMagicLink, ({ query }) =>
  Effect.gen(function*() {
    const urls = yield* AuthUrls
    const magicLinks = yield* MagicLinks
    const facts = yield* RequestContext.facts
    if (query.callbackURL === undefined) {
      const signed = yield* magicLinks.verify(query.token, facts)
      return yield* issue(signed, { token: signed.token, user: userView(signed.user), session: sessionView(signed.session) })
    }
    const callback = yield* urls.redirectTarget(query.callbackURL, "callbackURL")
    const onError = query.errorCallbackURL === undefined
      ? new URL(callback)
      : yield* urls.redirectTarget(query.errorCallbackURL, "errorCallbackURL")
    const onNewUser = query.newUserCallbackURL === undefined
      ? callback
      : yield* urls.redirectTarget(query.newUserCallbackURL, "newUserCallbackURL")
    const outcome = yield* Effect.either(magicLinks.verify(query.token, facts))
    if (outcome._tag === "Left") return redirectTo(withError(onError, outcome.left.code))
    const signed = outcome.right
    return withSession(redirectTo(signed.isNewUser ? onNewUser : callback), signed.token, yield* cookieSettings)
  }))

const updateUser = Route.handle(Routes.updateUser, ({ caller, body }) =>
  Effect.gen(function*() {
    if (body.email !== undefined) return yield* AccountError.of("EMAIL_CAN_NOT_BE_UPDATED")
    if (body.name === undefined && body.image === undefined) return yield* AccountError.of("NO_FIELDS_TO_UPDATE")
    const profile = yield* Profile
    yield* profile.update(caller.userId, body, yield* RequestContext.facts)
    return json({ status: true })
  }))

const requestPasswordReset = Route.handle(Routes.requestPasswordReset, ({ body }) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    yield* credentials.requestReset(body, yield* RequestContext.facts)
    return json({ status: true, message: "If this email exists in our system, check your email for the reset link" })
  }))

const resetPasswordLanding = Route.handle(Routes.resetPasswordLanding, ({ params, query }) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    return redirectTo(yield* credentials.resetLanding(params.token, query.callbackURL))
  }))

const resetPassword = Route.handle(Routes.resetPassword, ({ body }) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    yield* credentials.reset(body, yield* RequestContext.facts)
    return json({ status: true })
  }))

/** With `revokeOtherSessions` the caller gets a new session (cookie and `set-auth-token`). */
const changePassword = Route.handle(Routes.changePassword, ({ caller, body }) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    const changed = yield* credentials.change(caller, body, yield* RequestContext.facts)
    const answer = { token: changed.token, user: userView(changed.user) }
    const response = changed.token === null ? json(answer) : withSession(json(answer), changed.token, yield* cookieSettings)
    return invalidates(response, { userId: caller.userId })
  }))

/** Public: with a live session the address must be the caller's own, not yet verified. */
const sendVerificationEmail = Route.handle(Routes.sendVerificationEmail, ({ body }) =>
  Effect.gen(function*() {
    const verification = yield* EmailVerification
    const found = yield* signedIn
    yield* verification.send(body, Option.map(found, ({ resolved }) => resolved.user))
    return json({ status: true })
  }))

const verifyEmail = Route.handle(Routes.verifyEmail, ({ query }) =>
  Effect.gen(function*() {
    const verification = yield* EmailVerification
    const facts = yield* RequestContext.facts
    if (query.callbackURL === undefined) {
      const user = yield* verification.verify(query.token, facts)
      return json({ status: true, user: userView(user) })
    }
    const urls = yield* AuthUrls
    const callback = yield* urls.redirectTarget(query.callbackURL, "callbackURL")
    const outcome = yield* Effect.either(verification.verify(query.token, facts))
    return redirectTo(outcome._tag === "Left" ? withError(callback, outcome.left.code) : callback)
  }))

/** The password confirms it; a password-less account needs a session younger than a day. */
const deleteUser = Route.handle(Routes.deleteUser, ({ caller, body }) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* accounts.deleteUser(caller, body.password, yield* RequestContext.facts)
    const response = withoutSession(json({ success: true, message: "User deleted" }), yield* cookieSettings)
    return invalidates(response, { userId: caller.userId })
  }))

/**
 * better-auth's account routes (`/api/auth/*`): sign-up and sign-in, magic links, the user's name and
 * image, password reset and change, email verification, account deletion; that library's bodies
 * and errors.
 */
export const AuthHandlers = [
  signUpEmail,
  signInEmail,
  signInMagicLink,
  verifyMagicLink,
  updateUser,
  requestPasswordReset,
  resetPasswordLanding,
  resetPassword,
  changePassword,
  sendVerificationEmail,
  verifyEmail,
  deleteUser
]
