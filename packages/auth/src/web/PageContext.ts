import { HttpServerRequest } from "@effect/platform"
import { Body, CoreConfig } from "@core/kernel"
import { Effect, Either, Option } from "effect"
import { cookieOf, CurrentSession, sessionCaller } from "../accounts/AuthenticationLive.js"
import { Csrf, CSRF_FIELD } from "./Csrf.js"
import { settingsFor } from "../accounts/SessionCookie.js"
import * as FormBody from "./FormBody.js"
import type { SafeHtml } from "./Html.js"
import { basePathOf, href } from "./Links.js"
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

/** Read a posted form and check its CSRF token for `form` (and `binding`). */
export const readForm = (form: string, binding = "") =>
  Effect.gen(function*() {
    const { csrf, request } = yield* pageContext
    const fields = yield* FormBody.read
    const checked = csrf.verify(request, form, FormBody.text(fields, CSRF_FIELD), binding)
    if (Either.isLeft(checked)) {
      yield* Effect.logWarning("form refused by the CSRF check").pipe(Effect.annotateLogs({ form, reason: checked.left.reason }))
    }
    return { fields, refused: Either.isLeft(checked) } as const
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
export const signInFirst = (base: string, next: string) => seeOther(href(base, "/sign-in", { next }))

/** A query parameter of the page's address (`undefined` when absent or repeated). */
export const queryParam = (name: string) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const value = Body.searchParamsRecord(request.url)[name]
    return typeof value === "string" ? value : undefined
  })

/** The 401 answer to a post that needs a session and came without one, linking to sign-in and back to `path`. */
export const signInRequired = (base: string, path: string, message: string) =>
  page(messagePage({
    title: "Please sign in",
    message,
    link: { href: href(base, "/sign-in", { next: href(base, path) }), label: "Sign in" }
  }), 401)
