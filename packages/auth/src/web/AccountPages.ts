import { HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { type RateLimited, RequestContext, Route, Validation } from "@core/kernel"
import { Effect, Either, Option } from "effect"
import { z } from "zod"
import type { AccountError } from "../accounts/AccountErrors.js"
import { Accounts } from "../accounts/Accounts.js"
import { withoutSession, withSession } from "../accounts/SessionCookie.js"
import { Sessions } from "../accounts/Sessions.js"
import { statusOf } from "../accounts/BetterAuth.js"
import { accountPage } from "./AccountPage.js"
import { href, PAGE, safeNext } from "./Links.js"
import { browserSession, cookies, CSRF_MESSAGE, pageContext, refusedForm, renderForm, signInFirst } from "./PageContext.js"
import { seeOther } from "./Respond.js"
import { signInPage } from "./SignInPage.js"
import { signInInstead, signUpPage } from "./SignUpPage.js"
import type { SafeHtml } from "./Html.js"

const Routes = Iam.WebRoutes

/** Why a form came back, and its status. */
interface FormProblem {
  readonly status: number
  readonly error?: string | SafeHtml
  readonly fieldErrors?: Record<string, string>
}

const signInMessage = (error: AccountError | RateLimited): FormProblem => {
  if (error._tag === "RateLimited") {
    const minutes = Math.max(1, Math.ceil(error.retryAfterSeconds / 60))
    return { status: 429, error: `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.` }
  }
  switch (error.code) {
    case "INVALID_EMAIL":
      return { status: 400, fieldErrors: { email: "Enter a valid email address." } }
    case "PASSWORD_TOO_LONG":
      return { status: 400, fieldErrors: { password: `Passwords have at most ${Iam.PASSWORD_MAX_LENGTH} characters.` } }
    default:
      return { status: 401, error: "Invalid email or password." }
  }
}

const signUpMessage = (error: AccountError, base: string, next: string | undefined): FormProblem => {
  switch (error.code) {
    case "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL":
      return { status: 422, error: signInInstead(base, next) }
    case "PASSWORD_TOO_SHORT":
      return { status: 400, fieldErrors: { password: `Use at least ${Iam.PASSWORD_MIN_LENGTH} characters.` } }
    case "PASSWORD_TOO_LONG":
      return { status: 400, fieldErrors: { password: `Use at most ${Iam.PASSWORD_MAX_LENGTH} characters.` } }
    default:
      return { status: statusOf(error), error: error.message }
  }
}

/** The sign-up form's rules, every field checked at once (the password's length included). */
const SignUpFields = Iam.SignUpEmailRequest.extend({
  name: z.string().trim().min(1, "Enter your name.").max(100, "Use at most 100 characters."),
  email: z.email("Enter a valid email address."),
  password: z.string()
    .min(1, "Choose a password.")
    .min(Iam.PASSWORD_MIN_LENGTH, `Use at least ${Iam.PASSWORD_MIN_LENGTH} characters.`)
    .max(Iam.PASSWORD_MAX_LENGTH, `Use at most ${Iam.PASSWORD_MAX_LENGTH} characters.`)
})

const fieldErrorsOf = (issues: ReadonlyArray<{ readonly path: string; readonly message: string }>) =>
  Object.fromEntries(issues.filter((issue) => issue.path !== "").map((issue) => [issue.path, issue.message]).reverse())

/** `GET /sign-in`: the form, or on to `next` for a visitor already signed in. */
const signInForm = ({ query }: Route.Input<typeof Routes.signInPage>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const next = safeNext(query.next)
    if (Option.isSome(yield* browserSession)) return seeOther(next ?? href(base, PAGE.account))
    const notice = query.signed_out === "1"
      ? "You have signed out."
      : query.reset === "1"
      ? "Your password has been changed. Sign in with the new one."
      : undefined
    return yield* renderForm("sign-in", "", (csrf) => signInPage({ base, csrf, next, notice }))
  })

/** `POST /sign-in`: the session cookie and on to `next`, or the form again with what went wrong. */
const signIn = ({ body }: Route.Input<typeof Routes.submitSignIn>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const next = safeNext(body.next)
    const email = (body.email ?? "").trim()
    const password = body.password ?? ""
    const again = (status: number, view: { error?: string | SafeHtml; fieldErrors?: Record<string, string> }) =>
      renderForm("sign-in", "", (csrf) => signInPage({ base, csrf, next, email, ...view }), status)
    if (yield* refusedForm("sign-in", body.csrf)) return yield* again(403, { error: CSRF_MESSAGE })
    const missing = {
      ...(email === "" ? { email: "Enter your email." } : {}),
      ...(password === "" ? { password: "Enter your password." } : {})
    }
    if (Object.keys(missing).length > 0) return yield* again(400, { fieldErrors: missing })
    const accounts = yield* Accounts
    const outcome = yield* Effect.either(accounts.signIn({ email, password }, yield* RequestContext.facts))
    if (Either.isLeft(outcome)) {
      const { status, ...view } = signInMessage(outcome.left)
      const response = yield* again(status, view)
      return outcome.left._tag === "RateLimited"
        ? HttpServerResponse.setHeader(response, "retry-after", String(outcome.left.retryAfterSeconds))
        : response
    }
    return withSession(seeOther(next ?? href(base, PAGE.account)), outcome.right.token, yield* cookies)
  })

/** `GET /sign-up`: the form, or on to `next` for a visitor already signed in. */
const signUpForm = ({ query }: Route.Input<typeof Routes.signUpPage>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const next = safeNext(query.next)
    if (Option.isSome(yield* browserSession)) return seeOther(next ?? href(base, PAGE.account))
    return yield* renderForm("sign-up", "", (csrf) => signUpPage({ base, csrf, next }))
  })

/** `POST /sign-up`: the account, the session cookie and on to organization setup, or the form again. */
const signUp = ({ body }: Route.Input<typeof Routes.submitSignUp>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const next = safeNext(body.next)
    const name = body.name ?? ""
    const email = (body.email ?? "").trim()
    const again = (status: number, view: { error?: string | SafeHtml; fieldErrors?: Record<string, string> }) =>
      renderForm("sign-up", "", (csrf) => signUpPage({ base, csrf, next, name, email, ...view }), status)
    if (yield* refusedForm("sign-up", body.csrf)) return yield* again(403, { error: CSRF_MESSAGE })
    const decoded = yield* Effect.either(Validation.decode(SignUpFields, { name, email, password: body.password ?? "" }))
    if (Either.isLeft(decoded)) return yield* again(400, { fieldErrors: fieldErrorsOf(decoded.left.issues) })
    const accounts = yield* Accounts
    const outcome = yield* Effect.either(accounts.signUp(decoded.right, yield* RequestContext.facts))
    if (Either.isLeft(outcome)) {
      const { status, ...view } = signUpMessage(outcome.left, base, next)
      return yield* again(status, view)
    }
    return withSession(seeOther(next ?? href(base, PAGE.orgSetup)), outcome.right.token, yield* cookies)
  })

/** `POST /sign-out`: the session revoked and the cookie cleared; without a session, on to sign-in. */
const signOut = ({ body }: Route.Input<typeof Routes.submitSignOut>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const session = yield* browserSession
    if (Option.isNone(session)) return seeOther(href(base, PAGE.signIn))
    const who = session.value
    if (yield* refusedForm("sign-out", body.csrf, who.sessionId)) {
      return yield* renderForm("sign-out", who.sessionId, (csrf) =>
        accountPage({ base, csrf, name: who.name, email: who.email, error: CSRF_MESSAGE }), 403)
    }
    const sessions = yield* Sessions
    yield* sessions.signOut(who.userId, who.sessionId, yield* RequestContext.facts)
    return withoutSession(seeOther(href(base, PAGE.signIn, { signed_out: "1" })), yield* cookies)
  })

/** `GET /account`: who is signed in, with the sign-out button; without a session, sign in first. */
const account = () =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const session = yield* browserSession
    if (Option.isNone(session)) return signInFirst(base, href(base, PAGE.account))
    const who = session.value
    return yield* renderForm("sign-out", who.sessionId, (csrf) => accountPage({ base, csrf, name: who.name, email: who.email }))
  })

/** The sign-in, sign-up, account and sign-out pages. */
export const AccountPageHandlers = [
  Route.handle(Routes.signInPage, signInForm),
  Route.handle(Routes.submitSignIn, signIn),
  Route.handle(Routes.signUpPage, signUpForm),
  Route.handle(Routes.submitSignUp, signUp),
  Route.handle(Routes.submitSignOut, signOut),
  Route.handle(Routes.accountPage, account)
] as const
