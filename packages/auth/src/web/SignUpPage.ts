import { Iam } from "@core/contracts"
import { alert, csrfField, type FieldErrors, field, focusOf, hidden } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, isDeviceLogin, PAGE } from "./Links.js"
import { deviceLoginReason } from "./SignInPage.js"

/** What the sign-up page shows. */
export interface SignUpView {
  readonly base: string
  readonly csrf: string
  readonly next?: string | undefined
  readonly name?: string | undefined
  readonly email?: string | undefined
  readonly error?: string | SafeHtml | undefined
  readonly fieldErrors?: FieldErrors
}

/** The refusal of a taken email, with "Sign in instead" as a link to sign-in (keeping `next`). */
export const signInInstead = (base: string, next: string | undefined): SafeHtml =>
  html`An account with this email already exists. <a href="${href(base, PAGE.signIn, { next })}">Sign in instead</a>.`

/** `GET /sign-up`: name, email and password. */
export const signUpPage = (view: SignUpView): SafeHtml => {
  const focus = focusOf(["name", "email", "password"], view.fieldErrors)
  return layout({
    title: "Create your account",
    body: html`<h1>Create your account</h1>
${isDeviceLogin(view.base, view.next) ? html`<p class="hint">${deviceLoginReason("Create an account")}</p>` : ""}${alert(view.error)}
<form method="post" action="${href(view.base, PAGE.signUp)}" novalidate>
${csrfField(view.csrf)}${hidden("next", view.next)}
${field({ name: "name", label: "Name", value: view.name, error: view.fieldErrors?.name, autocomplete: "name", autofocus: focus === "name", maxlength: 100 })}
${field({ name: "email", label: "Email", type: "email", value: view.email, error: view.fieldErrors?.email, autocomplete: "email", autofocus: focus === "email", spellcheck: false })}
${field({ name: "password", label: "Password", type: "password", error: view.fieldErrors?.password, autocomplete: "new-password", autofocus: focus === "password", minlength: Iam.PASSWORD_MIN_LENGTH, maxlength: Iam.PASSWORD_MAX_LENGTH, hint: `At least ${Iam.PASSWORD_MIN_LENGTH} characters.` })}
<div class="actions"><button type="submit">Create account</button></div>
</form>
<p class="links">Already have an account? <a href="${href(view.base, PAGE.signIn, { next: view.next })}">Sign in</a></p>`
  })
}
