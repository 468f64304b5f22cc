import { Iam } from "@core/contracts"
import { RequestContext, Route } from "@core/kernel"
import { Effect, Either } from "effect"
import { z } from "zod"
import { Credentials } from "../accounts/Credentials.js"
import { Mailer } from "../mail/Mailer.js"
import { href, PAGE } from "./Links.js"
import { CSRF_MESSAGE, pageContext, refusedForm, renderForm } from "./PageContext.js"
import { forgotPasswordPage, resetExpiredPage, resetPasswordPage, resetRequestedPage } from "./PasswordResetPage.js"
import { page, seeOther } from "./Respond.js"

const Routes = Iam.WebRoutes

const EmailField = z.email()
const MAX_TOKEN = 256

/** `GET /forgot-password`: the email form. */
const forgotForm = () =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    return yield* renderForm("forgot-password", "", (csrf) => forgotPasswordPage({ base, csrf }))
  })

/**
 * `POST /forgot-password`: `Credentials.requestReset` with the reset page as the link's destination
 * (under the pages' prefix); the same answer whether or not the email has an account.
 */
const requestReset = ({ body }: Route.Input<typeof Routes.submitForgotPassword>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const email = (body.email ?? "").trim()
    const again = (status: number, view: { error?: string; fieldErrors?: Record<string, string> }) =>
      renderForm("forgot-password", "", (csrf) => forgotPasswordPage({ base, csrf, email, ...view }), status)
    if (yield* refusedForm("forgot-password", body.csrf)) return yield* again(403, { error: CSRF_MESSAGE })
    if (!EmailField.safeParse(email).success) return yield* again(400, { fieldErrors: { email: "Enter a valid email address." } })
    const credentials = yield* Credentials
    const sent = yield* Effect.either(
      credentials.requestReset({ email, redirectTo: href(base, PAGE.resetPassword) }, yield* RequestContext.facts)
    )
    if (Either.isLeft(sent)) return yield* again(400, { error: sent.left.message })
    const mailer = yield* Mailer
    return page(resetRequestedPage(base, email, mailer.printsLinks === true))
  })

/** The token of a reset link, if it is one (bounded, no control characters). */
const tokenOf = (value: string | undefined): string | undefined =>
  value !== undefined && value.length > 0 && value.length <= MAX_TOKEN && /^[A-Za-z0-9_-]+$/.test(value) ? value : undefined

/**
 * Whether a reset token is live, without spending it: where `Credentials.resetLanding` would send
 * the mailed link (a live token travels on as `?token=`, any other as `?error=`).
 */
const isLive = (token: string) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    const landing = yield* Effect.either(credentials.resetLanding(token, PAGE.resetPassword))
    return Either.isRight(landing) && new URL(landing.right).searchParams.get("token") === token
  })

/** `GET /reset-password?token=…`: the new-password form for a live token; a clear page (400) otherwise. */
const resetForm = ({ query }: Route.Input<typeof Routes.resetPasswordPage>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const token = tokenOf(query.token)
    if (token === undefined || !(yield* isLive(token))) return page(resetExpiredPage(base), 400)
    return yield* renderForm("reset-password", "", (csrf) => resetPasswordPage({ base, csrf, token }))
  })

/** `POST /reset-password`: `Credentials.reset`; on to sign-in, or the form again, or the expired page. */
const reset = ({ body }: Route.Input<typeof Routes.submitResetPassword>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const token = tokenOf(body.token)
    if (token === undefined) return page(resetExpiredPage(base), 400)
    const again = (status: number, view: { error?: string; fieldErrors?: Record<string, string> }) =>
      renderForm("reset-password", "", (csrf) => resetPasswordPage({ base, csrf, token, ...view }), status)
    if (yield* refusedForm("reset-password", body.csrf)) return yield* again(403, { error: CSRF_MESSAGE })
    const password = body.password ?? ""
    if (password.length < Iam.PASSWORD_MIN_LENGTH) {
      return yield* again(400, { fieldErrors: { password: `Use at least ${Iam.PASSWORD_MIN_LENGTH} characters.` } })
    }
    if (password.length > Iam.PASSWORD_MAX_LENGTH) {
      return yield* again(400, { fieldErrors: { password: `Use at most ${Iam.PASSWORD_MAX_LENGTH} characters.` } })
    }
    const credentials = yield* Credentials
    const outcome = yield* Effect.either(credentials.reset({ token, newPassword: password }, yield* RequestContext.facts))
    if (Either.isLeft(outcome)) {
      if (outcome.left.code === "INVALID_TOKEN") return page(resetExpiredPage(base), 400)
      return yield* again(400, { error: outcome.left.message })
    }
    return seeOther(href(base, PAGE.signIn, { reset: "1" }))
  })

/** The forgotten-password pages: ask for a link, and the page the mailed link lands on. */
export const PasswordResetPageHandlers = [
  Route.handle(Routes.forgotPasswordPage, forgotForm),
  Route.handle(Routes.submitForgotPassword, requestReset),
  Route.handle(Routes.resetPasswordPage, resetForm),
  Route.handle(Routes.submitResetPassword, reset)
] as const
