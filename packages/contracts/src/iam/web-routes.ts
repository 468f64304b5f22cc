import { z } from "zod"
import { FreeText } from "../Bounds.js"
import { defineRoutes, type ResponseSpec } from "../Routes.js"

/**
 * The identity web pages (server-rendered HTML that works without script): each form posts back to
 * its own path, `application/x-www-form-urlencoded`, with the CSRF token of the page in `csrf`.
 * Every field is optional here: the pages check their fields themselves and answer a problem as
 * the form again, with its message (never the JSON envelope).
 */

/** The most bytes a page's form may send; the forms are a few hundred. */
export const FORM_BODY_LIMIT = 16 * 1024

const field = FreeText.optional()
const form = ["application/x-www-form-urlencoded"]

/**
 * A query parameter of a page: a page never refuses its address, so a parameter that is repeated or
 * too long is ignored, as if absent.
 */
const param = FreeText.optional().catch(undefined)

/** `POST /sign-in`. `next` is where to go afterwards (a path on this site). */
export const SignInForm = z.object({ csrf: field, next: field, email: field, password: field })
/** `POST /sign-up`: the `sign-up/email` rules (name at most 100 characters on the page). */
export const SignUpForm = z.object({ csrf: field, next: field, name: field, email: field, password: field })
/** `POST /sign-out`. */
export const SignOutForm = z.object({ csrf: field })
/** `POST /org-setup`: the `org-setup` rules. */
export const OrgSetupForm = z.object({ csrf: field, name: field, slug: field })
/** `POST /device`: `action` is `approve` or `deny`. */
export const DeviceDecisionForm = z.object({ csrf: field, user_code: field, action: field })
/** `POST /forgot-password`: the email to mail a reset link to. */
export const ForgotPasswordForm = z.object({ csrf: field, email: field })
/** `POST /reset-password`: the mailed token and the new password. */
export const ResetPasswordForm = z.object({ csrf: field, token: field, password: field })

/** Query of `GET /sign-in`: `next`, `signed_out=1` after signing out, `reset=1` after a password reset. */
export const SignInPageQuery = z.object({ next: param, signed_out: param, reset: param })
/** Query of `GET /sign-up`. */
export const SignUpPageQuery = z.object({ next: param })
/** Query of `GET /device`: the code `verification_uri_complete` carries. */
export const DevicePageQuery = z.object({ user_code: param })
/** Query of `GET /org-setup`: `created`, the organization the form just created (post, redirect, get). */
export const OrgSetupPageQuery = z.object({ created: param })
/** Query of `GET /reset-password`: where the mailed link lands, with `token` or `error`. */
export const ResetPasswordPageQuery = z.object({ token: param, error: param })

const tags = ["identity: web pages"]
const html = (description: string): ResponseSpec => ({ description, contentType: "text/html" })
const seeOther = (description: string): ResponseSpec => ({ description, headers: { location: "A path on this site" } })
const refused = html("The form again: its token expired or came from another site")
const formErrors = { 403: refused, 413: html("The form is too large"), 415: html("Not a form") } as const

/** The identity service's web pages: sign-in, sign-up, account and sign-out, organization setup, device activation. */
export const WebRoutes = defineRoutes({
  homePage: {
    method: "GET", path: "/", summary: "What Core is, with sign-in and sign-up; signed in, your organizations, API keys and sessions",
    description: "Server-rendered HTML: what Core is, with links to sign in and sign up; for a signed-in person, its organizations, API keys and sessions. Served at the root of the all-in-one server too.",
    auth: "public",
    responses: { 200: html("The home page") },
    tags
  },
  signInPage: {
    method: "GET", path: "/sign-in", summary: "The sign-in page", auth: "public", request: { query: SignInPageQuery },
    description: "The sign-in form (email and password), without JavaScript; a link to reset a forgotten password. `next` names the path to go to afterwards (on this site only); a signed-in person is sent on at once (303).",
    responses: { 200: html("The sign-in form"), 303: seeOther("Already signed in: on to next, or /account") },
    tags
  },
  submitSignIn: {
    method: "POST", path: "/sign-in", summary: "Sign in with the form: the session cookie, then on to next",
    description: "The sign-in form's post (form-encoded, with its CSRF token): sets the session cookie and redirects (303) to `next`, else /account. Wrong credentials show the form again with 401; a stale or cross-site form 403. Rate-limited as credentials.",
    auth: "public", rateLimit: "credentials", bodyLimit: FORM_BODY_LIMIT,
    request: { body: SignInForm, contentTypes: form },
    responses: {
      303: seeOther("Signed in (the session cookie is set): on to next, or /account"),
      400: html("The form again: a field is missing or not valid"),
      401: html("The form again: wrong email or password"),
      ...formErrors,
      429: { ...html("The form again: too many attempts"), headers: { "retry-after": "Seconds to wait" } }
    },
    tags
  },
  signUpPage: {
    method: "GET", path: "/sign-up", summary: "The sign-up page", auth: "public", request: { query: SignUpPageQuery },
    description: "The sign-up form (name, email, password), without JavaScript; a signed-in person is sent on at once (303).",
    responses: { 200: html("The sign-up form"), 303: seeOther("Already signed in: on to next, or /account") },
    tags
  },
  submitSignUp: {
    method: "POST", path: "/sign-up", summary: "Sign up with the form: the session cookie, then on to organization setup",
    description: "The sign-up form's post: creates the user, sets the session cookie and redirects (303) to organization setup. An email already registered shows the form again with 422; a stale or cross-site form 403. Rate-limited as credentials.",
    auth: "public", rateLimit: "credentials", bodyLimit: FORM_BODY_LIMIT,
    request: { body: SignUpForm, contentTypes: form },
    responses: {
      303: seeOther("Signed up and in: on to next, or /org-setup"),
      400: html("The form again: a field is missing or not valid"),
      422: html("The form again: the email has an account"),
      ...formErrors
    },
    tags
  },
  submitSignOut: {
    method: "POST", path: "/sign-out", summary: "Sign out (the account page's button)",
    description: "Public: the page reads the session cookie itself; a visitor without a session is sent to /sign-in.",
    auth: "public", bodyLimit: FORM_BODY_LIMIT,
    request: { body: SignOutForm, contentTypes: form },
    responses: { 303: seeOther("To /sign-in?signed_out=1, the cookie cleared; to /sign-in without a session"), ...formErrors },
    tags
  },
  accountPage: {
    method: "GET", path: "/account", summary: "The signed-in user's page, with the sign-out button", auth: "public",
    description: "The signed-in person's page: name, email, organizations and the sign-out button; without a session it redirects to sign-in.",
    responses: { 200: html("The account page"), 303: seeOther("Not signed in: to /sign-in?next=/account") },
    tags
  },
  orgSetupPage: {
    method: "GET", path: "/org-setup", summary: "The organization setup page; with ?created=, the organization it created",
    description: "The organization setup form (name and slug) a new user sees after sign-up; with `?created=`, the organization it just created and what to do next (the CLI's `core login`). Needs the session cookie, else redirects to sign-in.",
    auth: "public", request: { query: OrgSetupPageQuery },
    responses: { 200: html("The organization form, or the organization created"), 303: seeOther("Not signed in: to /sign-in?next=/org-setup") },
    tags
  },
  submitOrgSetup: {
    method: "POST", path: "/org-setup", summary: "Create an organization and its platform with the form (as POST /api/core/org-setup)",
    description: "Public: the page reads the session cookie itself and answers 401 with a sign-in link without one.",
    auth: "public", bodyLimit: FORM_BODY_LIMIT,
    request: { body: OrgSetupForm, contentTypes: form },
    responses: {
      303: seeOther("Created: to /org-setup?created=<organization id>, so that a refresh does not post again"),
      400: html("The form again: name or slug not valid"),
      401: html("Please sign in (a link to sign-in, coming back here)"),
      409: html("The form again: the slug is taken"),
      ...formErrors,
      451: html("The form again: the caller owns a suspended platform, whose owners create no organization"),
      502: html("The registry could not create the platform")
    },
    tags
  },
  forgotPasswordPage: {
    method: "GET", path: "/forgot-password", summary: "Ask for a password reset link", auth: "public",
    description: "The form that asks for a password-reset link by email.",
    responses: { 200: html("The email form") },
    tags
  },
  submitForgotPassword: {
    method: "POST", path: "/forgot-password", summary: "Mail a reset link (as POST /api/auth/request-password-reset)",
    description: "Answers the same whether or not the email has an account.",
    auth: "public", rateLimit: "credentials", bodyLimit: FORM_BODY_LIMIT,
    request: { body: ForgotPasswordForm, contentTypes: form },
    responses: { 200: html("Check your email"), 400: html("The form again: the email is not valid"), ...formErrors },
    tags
  },
  resetPasswordPage: {
    method: "GET", path: "/reset-password", summary: "Where the mailed reset link lands: choose a new password",
    description: "Where a password-reset mail's link lands: the form for the new password, carrying the link's token. A missing or malformed token shows 400.",
    auth: "public", request: { query: ResetPasswordPageQuery },
    responses: { 200: html("The new password form"), 400: html("The link is not valid or has expired, with a link to ask again") },
    tags
  },
  submitResetPassword: {
    method: "POST", path: "/reset-password", summary: "Set the new password (as POST /api/auth/reset-password)",
    description: "The reset form's post: sets the new password (as POST /api/auth/reset-password), ends every session of the user and redirects (303) to sign-in. An unknown, used or expired token shows the form again with 400.",
    auth: "public", bodyLimit: FORM_BODY_LIMIT,
    request: { body: ResetPasswordForm, contentTypes: form },
    responses: {
      303: seeOther("Changed: to /sign-in?reset=1 (every session of the user ended)"),
      400: html("The form again (password not valid), or the link has expired"),
      ...formErrors
    },
    tags
  },
  devicePage: {
    method: "GET", path: "/device", summary: "The device activation page: enter a code, then approve or deny the client it names",
    description: "The device activation page of the device login: enter the code the CLI shows (or arrive with it from `verification_uri_complete`), see which client asks, then approve or deny. Needs a signed-in person; else redirects to sign-in and back.",
    auth: "public", request: { query: DevicePageQuery },
    responses: {
      200: html("The code form, or the question naming the client"),
      303: seeOther("Not signed in: to /sign-in, coming back here"),
      400: html("The code form again: the code is not valid or expired"),
      429: { ...html("The code form again: too many wrong codes"), headers: { "retry-after": "Seconds to wait" } }
    },
    tags
  },
  submitDeviceDecision: {
    method: "POST", path: "/device", summary: "Approve or deny a device's code",
    description: "Public: the page reads the session cookie itself and answers 401 with a sign-in link without one.",
    auth: "public", bodyLimit: FORM_BODY_LIMIT,
    request: { body: DeviceDecisionForm, contentTypes: form },
    responses: {
      200: html("Approved or denied"),
      400: html("The code form again: the code is missing, not valid or expired"),
      401: html("Please sign in (a link to sign-in, coming back here)"),
      ...formErrors,
      429: { ...html("The code form again: too many wrong codes"), headers: { "retry-after": "Seconds to wait" } }
    },
    tags
  }
})
