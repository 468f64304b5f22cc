import { alert, csrfField, type FieldErrors, field, focusOf, hidden, notice } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, isDeviceLogin, PAGE } from "./Links.js"

/** What the sign-in page shows. */
export interface SignInView {
  readonly base: string
  readonly csrf: string
  /** Where to go once signed in (a checked same-site path). */
  readonly next?: string | undefined
  readonly email?: string | undefined
  /** A form-level error; it never tells an unknown email from a wrong password. */
  readonly error?: string | SafeHtml | undefined
  readonly notice?: string | undefined
  readonly fieldErrors?: FieldErrors
}

/**
 * Said above the form when signing in (or up) is on the way to approving a device (`next` is the
 * device page): why the visitor is asked to, and what comes next.
 */
export const deviceLoginReason = (action: "Sign in" | "Create an account"): string =>
  `${action} to connect a device: a command-line login (such as core login) is waiting for you to approve it. You will come back to its code next.`

/** `GET /sign-in`: email and password, a link to sign up and one to reset a forgotten password. */
export const signInPage = (view: SignInView): SafeHtml => {
  const focus = focusOf(["email", "password"], view.fieldErrors)
  return layout({
    title: "Sign in",
    body: html`<h1>Sign in</h1>
${notice(view.notice)}${isDeviceLogin(view.base, view.next) ? html`<p class="hint">${deviceLoginReason("Sign in")}</p>` : ""}${alert(view.error)}
<form method="post" action="${href(view.base, PAGE.signIn)}" novalidate>
${csrfField(view.csrf)}${hidden("next", view.next)}
${field({ name: "email", label: "Email", type: "email", value: view.email, error: view.fieldErrors?.email, autocomplete: "username", autofocus: focus === "email", spellcheck: false })}
${field({ name: "password", label: "Password", type: "password", error: view.fieldErrors?.password, autocomplete: "current-password", autofocus: focus === "password" })}
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="links"><a href="${href(view.base, PAGE.forgotPassword)}">Forgot password?</a></p>
<p class="links">No account yet? <a href="${href(view.base, PAGE.signUp, { next: view.next })}">Create one</a></p>`
  })
}
