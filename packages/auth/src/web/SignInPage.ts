import { alert, csrfField, type FieldErrors, field, hidden, notice } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, PAGE } from "./Links.js"

/** What the sign-in page shows. */
export interface SignInView {
  readonly base: string
  readonly csrf: string
  /** Where to go once signed in (a checked same-site path). */
  readonly next?: string | undefined
  readonly email?: string | undefined
  /** A form-level error; it never tells an unknown email from a wrong password. */
  readonly error?: string | undefined
  readonly notice?: string | undefined
  readonly fieldErrors?: FieldErrors
}

/** `GET /sign-in`: email and password. */
export const signInPage = (view: SignInView): SafeHtml =>
  layout({
    title: "Sign in",
    body: html`<h1>Sign in</h1>
${notice(view.notice)}${alert(view.error)}
<form method="post" action="${href(view.base, PAGE.signIn)}" novalidate>
${csrfField(view.csrf)}${hidden("next", view.next)}
${field({ name: "email", label: "Email", type: "email", value: view.email, error: view.fieldErrors?.email, autocomplete: "username", autofocus: true, spellcheck: false })}
${field({ name: "password", label: "Password", type: "password", error: view.fieldErrors?.password, autocomplete: "current-password" })}
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="links">No account yet? <a href="${href(view.base, PAGE.signUp, { next: view.next })}">Create one</a></p>`
  })
