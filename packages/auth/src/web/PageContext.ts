import { HttpServerRequest } from "@effect/platform"
import { Effect, Either } from "effect"
import { Csrf, CSRF_FIELD } from "../Csrf.js"
import * as FormBody from "./FormBody.js"
import type { SafeHtml } from "./Html.js"
import { basePathOf } from "./Links.js"
import { page } from "./Respond.js"

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
    return { fields, refused: Either.isLeft(checked) } as const
  })
