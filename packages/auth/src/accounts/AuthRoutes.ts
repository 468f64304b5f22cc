import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { Body, CoreConfig, Unauthorized } from "@core/kernel"
import { Effect, Option } from "effect"
import { AccountError } from "./AccountErrors.js"
import { Accounts, type SignedIn } from "./Accounts.js"
import { factsOf } from "../audit/Audit.js"
import { CurrentSession } from "./AuthenticationLive.js"
import { AuthUrls } from "./AuthUrls.js"
import { Credentials } from "./Credentials.js"
import { EmailVerification } from "./EmailVerification.js"
import { MagicLinks } from "./MagicLinks.js"
import { Profile } from "./Profile.js"
import { Sessions } from "./Sessions.js"
import { sessionView, userView } from "./AccountViews.js"
import { handleCause, json } from "./BetterAuth.js"
import { settingsFor, withoutSession, withSession } from "./SessionCookie.js"
import { invalidates } from "../internal/Invalidate.js"

/** The request's audit facts (client address, user agent, request id). */
export const requestFacts = Effect.zipWith(HttpServerRequest.HttpServerRequest, CoreConfig, (request, config) =>
  factsOf(request, config.trustProxy))

const cookies = Effect.map(CoreConfig, (config) => settingsFor(config.nodeEnv))

/** The request's live session (bearer or cookie), if any. */
export const signedIn = Effect.flatMap(CurrentSession, (current) => current.current)

/** The request's live session, else `Unauthorized`. */
export const requireSignedIn = Effect.flatMap(signedIn, Option.match({
  onNone: () => Effect.fail(new Unauthorized({ message: "Unauthorized" })),
  onSome: Effect.succeed
}))

const issue = (signed: SignedIn, body: unknown, remember = true) =>
  Effect.map(cookies, (settings) => withSession(json(body), signed.token, settings, remember))

const redirectTo = (target: string | URL) => HttpServerResponse.redirect(target, { status: 302 })

const withError = (target: URL, error: string) => {
  target.searchParams.set("error", error)
  return target
}

const signUpEmail = Effect.gen(function*() {
  const input = yield* Body.json(Iam.SignUpEmailRequest)
  const signed = yield* (yield* Accounts).signUp(input, yield* requestFacts)
  return yield* issue(signed, { token: signed.token, user: userView(signed.user) }, input.rememberMe !== false)
})

const signInEmail = Effect.gen(function*() {
  const input = yield* Body.json(Iam.SignInEmailRequest)
  const signed = yield* (yield* Accounts).signIn(input, yield* requestFacts)
  const body = { redirect: input.callbackURL !== undefined, token: signed.token, url: input.callbackURL, user: userView(signed.user) }
  return yield* issue(signed, body, input.rememberMe !== false)
})

const signInMagicLink = Effect.gen(function*() {
  const input = yield* Body.json(Iam.MagicLinkRequest)
  yield* (yield* MagicLinks).request(input)
  return json({ status: true })
})

const verifyMagicLink = Effect.gen(function*() {
  const query = yield* Body.query(Iam.MagicLinkVerifyQuery)
  const urls = yield* AuthUrls
  const magicLinks = yield* MagicLinks
  const facts = yield* requestFacts
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
  const settings = yield* cookies
  return withSession(redirectTo(signed.isNewUser ? onNewUser : callback), signed.token, settings)
})

const signOut = Effect.gen(function*() {
  const found = yield* signedIn
  if (Option.isSome(found)) {
    const { resolved } = found.value
    yield* (yield* Sessions).signOut(resolved.user.id, resolved.session.id, yield* requestFacts)
    return invalidates(withoutSession(json({ success: true }), yield* cookies), { sessionId: resolved.session.id })
  }
  return withoutSession(json({ success: true }), yield* cookies)
})

const getSession = Effect.gen(function*() {
  const found = yield* signedIn
  if (Option.isNone(found)) return json(null)
  const { resolved, via } = found.value
  const body = { session: sessionView(resolved.session), user: userView(resolved.user) }
  if (!resolved.refreshed || via !== "cookie") return json(body)
  const request = yield* HttpServerRequest.HttpServerRequest
  const token = request.cookies[Iam.SESSION_COOKIE]
  return withSession(json(body), token, yield* cookies)
})

const listSessions = Effect.gen(function*() {
  const { resolved } = yield* requireSignedIn
  const list = yield* (yield* Sessions).list(resolved.user.id)
  return json(list.map(sessionView))
})

const revokeSession = Effect.gen(function*() {
  const { resolved } = yield* requireSignedIn
  const input = yield* Body.json(Iam.RevokeSessionRequest)
  const sessions = yield* Sessions
  const facts = yield* requestFacts
  const revoked = input.id !== undefined
    ? yield* sessions.revoke(resolved.user.id, input.id, facts)
    : yield* sessions.revokeByToken(resolved.user.id, input.token ?? "", facts)
  const current = Option.isSome(revoked) && revoked.value === resolved.session.id
  const response = current ? withoutSession(json({ status: true }), yield* cookies) : json({ status: true })
  return Option.isSome(revoked) ? invalidates(response, { sessionId: revoked.value }) : response
})

const revokeSessions = (keepCurrent: boolean) =>
  Effect.gen(function*() {
    const { resolved } = yield* requireSignedIn
    const keep = keepCurrent ? resolved.session.id : null
    yield* (yield* Sessions).revokeAll(resolved.user.id, keep, yield* requestFacts, keepCurrent ? "others" : "all")
    const response = keepCurrent ? json({ status: true }) : withoutSession(json({ status: true }), yield* cookies)
    return invalidates(response, { userId: resolved.user.id })
  })

const updateUser = Effect.gen(function*() {
  const { resolved } = yield* requireSignedIn
  const input = yield* Body.json(Iam.UpdateUserRequest)
  if (input.email !== undefined) return yield* AccountError.of("EMAIL_CAN_NOT_BE_UPDATED")
  if (input.name === undefined && input.image === undefined) return yield* AccountError.of("NO_FIELDS_TO_UPDATE")
  yield* (yield* Profile).update(resolved.user.id, input, yield* requestFacts)
  return json({ status: true })
})

const requestPasswordReset = Effect.gen(function*() {
  const input = yield* Body.json(Iam.RequestPasswordResetRequest)
  yield* (yield* Credentials).requestReset(input, yield* requestFacts)
  return json({ status: true, message: "If this email exists in our system, check your email for the reset link" })
})

const resetPasswordLanding = Effect.gen(function*() {
  const { token } = yield* Body.params(Iam.ResetLandingParams)
  const { callbackURL } = yield* Body.query(Iam.ResetLandingQuery)
  return redirectTo(yield* (yield* Credentials).resetLanding(token, callbackURL))
})

const resetPassword = Effect.gen(function*() {
  const input = yield* Body.json(Iam.ResetPasswordRequest)
  yield* (yield* Credentials).reset(input, yield* requestFacts)
  return json({ status: true })
})

const changePassword = Effect.gen(function*() {
  const { resolved } = yield* requireSignedIn
  const input = yield* Body.json(Iam.ChangePasswordRequest)
  const owner = { userId: resolved.user.id, sessionId: resolved.session.id }
  const changed = yield* (yield* Credentials).change(owner, input, yield* requestFacts)
  const body = { token: changed.token, user: userView(changed.user) }
  const response = changed.token === null ? json(body) : withSession(json(body), changed.token, yield* cookies)
  return invalidates(response, { userId: resolved.user.id })
})

const sendVerificationEmail = Effect.gen(function*() {
  const input = yield* Body.json(Iam.SendVerificationEmailRequest)
  const found = yield* signedIn
  yield* (yield* EmailVerification).send(input, Option.map(found, ({ resolved }) => resolved.user))
  return json({ status: true })
})

const verifyEmail = Effect.gen(function*() {
  const query = yield* Body.query(Iam.VerifyEmailQuery)
  const verification = yield* EmailVerification
  const facts = yield* requestFacts
  if (query.callbackURL === undefined) {
    const user = yield* verification.verify(query.token, facts)
    return json({ status: true, user: userView(user) })
  }
  const callback = yield* (yield* AuthUrls).redirectTarget(query.callbackURL, "callbackURL")
  const outcome = yield* Effect.either(verification.verify(query.token, facts))
  return redirectTo(outcome._tag === "Left" ? withError(callback, outcome.left.code) : callback)
})

const deleteUser = Effect.gen(function*() {
  const { resolved } = yield* requireSignedIn
  const input = yield* Body.json(Iam.DeleteUserRequest)
  const caller = { userId: resolved.user.id, sessionCreatedAt: resolved.session.createdAt }
  yield* (yield* Accounts).deleteUser(caller, input.password, yield* requestFacts)
  return invalidates(withoutSession(json({ success: true, message: "User deleted" }), yield* cookies), { userId: resolved.user.id })
})

/**
 * The better-auth-compatible routes of accounts and sessions (`/api/auth/*`), answering that
 * library's bodies, `{ code, message }` errors included.
 */
export const AuthRoutes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/auth/sign-up/email", signUpEmail),
  HttpRouter.post("/api/auth/sign-in/email", signInEmail),
  HttpRouter.post("/api/auth/sign-in/magic-link", signInMagicLink),
  HttpRouter.get("/api/auth/magic-link/verify", verifyMagicLink),
  HttpRouter.post("/api/auth/sign-out", signOut),
  HttpRouter.get("/api/auth/get-session", getSession),
  HttpRouter.get("/api/auth/list-sessions", listSessions),
  HttpRouter.post("/api/auth/revoke-session", revokeSession),
  HttpRouter.post("/api/auth/revoke-sessions", revokeSessions(false)),
  HttpRouter.post("/api/auth/revoke-other-sessions", revokeSessions(true)),
  HttpRouter.post("/api/auth/update-user", updateUser),
  HttpRouter.post("/api/auth/request-password-reset", requestPasswordReset),
  HttpRouter.get("/api/auth/reset-password/:token", resetPasswordLanding),
  HttpRouter.post("/api/auth/reset-password", resetPassword),
  HttpRouter.post("/api/auth/change-password", changePassword),
  HttpRouter.post("/api/auth/send-verification-email", sendVerificationEmail),
  HttpRouter.get("/api/auth/verify-email", verifyEmail),
  HttpRouter.post("/api/auth/delete-user", deleteUser),
  HttpRouter.catchAllCause(handleCause)
)
