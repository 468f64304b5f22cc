import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { type RateLimited, Validation } from "@core/kernel"
import { Effect, Either, Option } from "effect"
import { z } from "zod"
import type { AccountError } from "../accounts/AccountErrors.js"
import { Accounts } from "../accounts/Accounts.js"
import type { UserCaller } from "@core/kernel"
import { Csrf } from "./Csrf.js"
import { OrganizationError } from "../organizations/OrganizationErrors.js"
import { Organizations } from "../organizations/Organizations.js"
import { Sessions } from "../accounts/Sessions.js"
import { accountPage } from "./AccountPage.js"
import { handlePageCause } from "./ErrorPages.js"
import * as FormBody from "./FormBody.js"
import { href, safeNext } from "./Links.js"
import { orgCreatedPage, orgSetupPage } from "./OrgSetupPage.js"
import {
  browserSession,
  cookies,
  CSRF_MESSAGE,
  pageContext,
  queryParam,
  readForm,
  renderForm,
  signInFirst,
  signInRequired
} from "./PageContext.js"
import { page, seeOther } from "./Respond.js"
import { signInPage } from "./SignInPage.js"
import { signUpPage } from "./SignUpPage.js"
import { requestFacts } from "../accounts/AuthRoutes.js"
import { DevicePages } from "./DevicePages.js"
import { withoutSession, withSession } from "../accounts/SessionCookie.js"

const query = Effect.zipWith(queryParam("next"), queryParam("signed_out"), (next, signedOut) => ({
  next: safeNext(next),
  signedOut: signedOut === "1"
}))

/** Why a form came back, and its status. */
interface FormProblem {
  readonly status: number
  readonly error?: string
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

const signInForm = Effect.gen(function*() {
  const { base } = yield* pageContext
  const { next, signedOut } = yield* query
  if (Option.isSome(yield* browserSession)) return seeOther(next ?? href(base, "/account"))
  const notice = signedOut ? "You have signed out." : undefined
  return yield* renderForm("sign-in", "", (csrf) => signInPage({ base, csrf, next, notice }))
})

const signIn = Effect.gen(function*() {
  const { base } = yield* pageContext
  const { fields, refused } = yield* readForm("sign-in")
  const next = safeNext(FormBody.text(fields, "next"))
  const email = (FormBody.text(fields, "email") ?? "").trim()
  const password = FormBody.text(fields, "password") ?? ""
  const again = (status: number, view: { error?: string; fieldErrors?: Record<string, string> }) =>
    renderForm("sign-in", "", (csrf) => signInPage({ base, csrf, next, email, ...view }), status)
  if (refused) return yield* again(403, { error: CSRF_MESSAGE })
  const missing = {
    ...(email === "" ? { email: "Enter your email." } : {}),
    ...(password === "" ? { password: "Enter your password." } : {})
  }
  if (Object.keys(missing).length > 0) return yield* again(400, { fieldErrors: missing })
  const outcome = yield* Effect.either((yield* Accounts).signIn({ email, password }, yield* requestFacts))
  if (Either.isLeft(outcome)) {
    const { status, ...view } = signInMessage(outcome.left)
    const response = yield* again(status, view)
    return outcome.left._tag === "RateLimited"
      ? HttpServerResponse.setHeader(response, "retry-after", String(outcome.left.retryAfterSeconds))
      : response
  }
  return withSession(seeOther(next ?? href(base, "/account")), outcome.right.token, yield* cookies)
})

const signUpMessage = (error: AccountError): FormProblem => {
  switch (error.code) {
    case "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL":
      return { status: 422, error: "An account with this email already exists. Sign in instead." }
    case "PASSWORD_TOO_SHORT":
      return { status: 400, fieldErrors: { password: `Use at least ${Iam.PASSWORD_MIN_LENGTH} characters.` } }
    case "PASSWORD_TOO_LONG":
      return { status: 400, fieldErrors: { password: `Use at most ${Iam.PASSWORD_MAX_LENGTH} characters.` } }
    default:
      return { status: error.status, error: error.message }
  }
}

const SignUpFields = Iam.SignUpEmailRequest.extend({
  name: z.string().trim().min(1, "Enter your name.").max(100, "Use at most 100 characters."),
  email: z.email("Enter a valid email address."),
  password: z.string().min(1, "Choose a password.")
})

const fieldErrorsOf = (issues: ReadonlyArray<{ readonly path: string; readonly message: string }>) =>
  Object.fromEntries(issues.filter((issue) => issue.path !== "").map((issue) => [issue.path, issue.message]).reverse())

const signUpForm = Effect.gen(function*() {
  const { base } = yield* pageContext
  const { next } = yield* query
  if (Option.isSome(yield* browserSession)) return seeOther(next ?? href(base, "/account"))
  return yield* renderForm("sign-up", "", (csrf) => signUpPage({ base, csrf, next }))
})

const signUp = Effect.gen(function*() {
  const { base } = yield* pageContext
  const { fields, refused } = yield* readForm("sign-up")
  const next = safeNext(FormBody.text(fields, "next"))
  const name = FormBody.text(fields, "name") ?? ""
  const email = (FormBody.text(fields, "email") ?? "").trim()
  const again = (status: number, view: { error?: string; fieldErrors?: Record<string, string> }) =>
    renderForm("sign-up", "", (csrf) => signUpPage({ base, csrf, next, name, email, ...view }), status)
  if (refused) return yield* again(403, { error: CSRF_MESSAGE })
  const decoded = yield* Effect.either(Validation.decode(SignUpFields, { name, email, password: FormBody.text(fields, "password") ?? "" }))
  if (Either.isLeft(decoded)) return yield* again(400, { fieldErrors: fieldErrorsOf(decoded.left.issues) })
  const outcome = yield* Effect.either((yield* Accounts).signUp(decoded.right, yield* requestFacts))
  if (Either.isLeft(outcome)) {
    const { status, ...view } = signUpMessage(outcome.left)
    return yield* again(status, view)
  }
  return withSession(seeOther(next ?? href(base, "/org-setup")), outcome.right.token, yield* cookies)
})

const signOut = Effect.gen(function*() {
  const { base } = yield* pageContext
  const session = yield* browserSession
  if (Option.isNone(session)) return seeOther(href(base, "/sign-in"))
  const who = session.value
  const { refused } = yield* readForm("sign-out", who.sessionId)
  if (refused) {
    return yield* renderForm("sign-out", who.sessionId, (csrf) =>
      accountPage({ base, csrf, name: who.name, email: who.email, error: CSRF_MESSAGE }), 403)
  }
  yield* (yield* Sessions).signOut(who.userId, who.sessionId, yield* requestFacts)
  return withoutSession(seeOther(href(base, "/sign-in", { signed_out: "1" })), yield* cookies)
})

const account = Effect.gen(function*() {
  const { base } = yield* pageContext
  const session = yield* browserSession
  if (Option.isNone(session)) return signInFirst(base, href(base, "/account"))
  const who = session.value
  return yield* renderForm("sign-out", who.sessionId, (csrf) => accountPage({ base, csrf, name: who.name, email: who.email }))
})

const orgSetupForm = Effect.gen(function*() {
  const { base } = yield* pageContext
  const session = yield* browserSession
  if (Option.isNone(session)) return signInFirst(base, href(base, "/org-setup"))
  const who = session.value
  return yield* renderForm("org-setup", who.sessionId, (csrf) => orgSetupPage({ base, csrf, email: who.email }))
})

const SLUG_MESSAGE = "Use 1 to 63 lowercase letters, digits and dashes."
const NAME_MESSAGE = "Enter a name of 1 to 100 characters."

/** `POST /org-setup`: the same session rule, contract and use case as `POST /api/core/org-setup`. */
const orgSetup = Effect.gen(function*() {
  const { base } = yield* pageContext
  const session = yield* browserSession
  if (Option.isNone(session)) return signInRequired(base, "/org-setup", "Sign in to create an organization.")
  const who: UserCaller = session.value
  const { fields, refused } = yield* readForm("org-setup", who.sessionId)
  const name = FormBody.text(fields, "name")
  const slug = FormBody.text(fields, "slug")
  const again = (status: number, view: { error?: string; fieldErrors?: Record<string, string> }) =>
    renderForm("org-setup", who.sessionId, (csrf) => orgSetupPage({ base, csrf, email: who.email, name, slug, ...view }), status)
  if (refused) return yield* again(403, { error: CSRF_MESSAGE })
  const decoded = yield* Effect.either(Validation.decode(Iam.OrgSetupRequest, { name, slug }))
  if (Either.isLeft(decoded)) {
    const wrong = new Set(decoded.left.issues.map((issue) => issue.path))
    return yield* again(400, {
      fieldErrors: { ...(wrong.has("name") ? { name: NAME_MESSAGE } : {}), ...(wrong.has("slug") ? { slug: SLUG_MESSAGE } : {}) }
    })
  }
  const outcome = yield* Effect.either((yield* Organizations).create(who, decoded.right))
  if (Either.isLeft(outcome)) {
    const error = outcome.left
    if (error instanceof OrganizationError && error.toCore()._tag === "Conflict") {
      return yield* again(409, { fieldErrors: { slug: "This slug is already taken. Choose another one." } })
    }
    return yield* Effect.fail(error instanceof OrganizationError ? error.toCore() : error)
  }
  const { organization } = outcome.right
  return page(orgCreatedPage({
    base,
    orgId: organization.id,
    platformId: organization.platformId,
    name: organization.name,
    slug: organization.slug
  }), 201)
})

/**
 * The identity web pages (server-rendered HTML, no script): `/sign-in`, `/sign-up`, `/sign-out`,
 * `/account`, `/org-setup` and `/device`. Forms post back to the same path, CSRF-checked; failures
 * answer as pages, never the JSON envelope. Links follow `X-Forwarded-Prefix`.
 */
export const PagesRouter = HttpRouter.concat(HttpRouter.empty.pipe(
  HttpRouter.get("/sign-in", signInForm),
  HttpRouter.post("/sign-in", signIn),
  HttpRouter.get("/sign-up", signUpForm),
  HttpRouter.post("/sign-up", signUp),
  HttpRouter.post("/sign-out", signOut),
  HttpRouter.get("/account", account),
  HttpRouter.get("/org-setup", orgSetupForm),
  HttpRouter.post("/org-setup", orgSetup)
), DevicePages).pipe(HttpRouter.catchAllCause(handlePageCause))

/** What the pages add to the identity services: the CSRF protection (keyed from `CORE_SECRET`). */
export const PagesLive = Csrf.Default

/** The paths the pages answer, for a host that mounts them beside other routes (the all-in-one server). */
export const PAGE_PATHS: ReadonlyArray<`/${string}`> = ["/sign-in", "/sign-up", "/sign-out", "/account", "/org-setup", "/device"]
