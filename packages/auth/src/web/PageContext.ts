import { HttpServerRequest } from "@effect/platform"
import { CoreConfig } from "@core/kernel"
import { Effect, Either, Option } from "effect"
import { cookieOf, CurrentSession, sessionCaller } from "../accounts/CurrentSession.js"
import { Csrf } from "./Csrf.js"
import { settingsFor } from "../accounts/SessionCookie.js"
import type { SafeHtml } from "./Html.js"
import { basePathOf, href, PAGE } from "./Links.js"
import { messagePage } from "./MessagePage.js"
import { page, seeOther } from "./Respond.js"

/** What a page's handler starts from: the request, the pages' base path, the CSRF protection. */
export const pageContext = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const csrf = yield* Csrf
  return { request, base: basePathOf(request), csrf } as const
})

/** Shown when a form fails the CSRF checks; the form comes back with a fresh token. */
export const CSRF_MESSAGE = "This form has expired or was sent from another site. Please submit it again."

/**
 * Render a form page with the token of `form` (bound to `binding`, the session id of a signed-in
 * page), setting the nonce cookie when the browser has none.
 */
export const renderForm = (form: string, binding: string, render: (token: string) => SafeHtml, status = 200) =>
  Effect.map(pageContext, ({ csrf, request }) => {
    const issued = csrf.issue(request, form, binding)
    return csrf.withCookie(page(render(issued.token), status), issued)
  })

/**
 * Check a posted form's CSRF token (`submitted`, the form's `csrf` field) for `form` and `binding`:
 * `true` when the post is refused (logged with the reason, never the token).
 */
export const refusedForm = (form: string, submitted: string | undefined, binding = "") =>
  Effect.gen(function*() {
    const { csrf, request } = yield* pageContext
    const checked = csrf.verify(request, form, submitted, binding)
    if (Either.isRight(checked)) return false
    yield* Effect.logWarning("form refused by the CSRF check").pipe(Effect.annotateLogs({ form, reason: checked.left.reason }))
    return true
  })

/** How the session cookie is written in this environment. */
export const cookies = Effect.map(CoreConfig, (config) => settingsFor(config.nodeEnv))

/**
 * The browser's session (the `core.session_token` cookie only, as `org-setup` takes it) with its
 * user, if any: a `UserCaller` for the use cases, plus the user's `name` for the page.
 */
export const browserSession = Effect.gen(function*() {
  const { request } = yield* pageContext
  const token = cookieOf(request)
  if (token === undefined) return Option.none()
  const found = yield* (yield* CurrentSession).resolve(request, token)
  return Option.map(found, (resolved) => ({ ...sessionCaller(resolved, "cookie"), name: resolved.user.name }))
})

/** Where a page sends a visitor who must sign in first, to come back to `next`. */
export const signInFirst = (base: string, next: string) => seeOther(href(base, PAGE.signIn, { next }))

/** The 401 answer to a post that needs a session and came without one, linking to sign-in and back to `path`. */
export const signInRequired = (base: string, path: string, message: string) =>
  page(messagePage({
    title: "Please sign in",
    message,
    link: { href: href(base, PAGE.signIn, { next: href(base, path) }), label: "Sign in" }
  }), 401)
