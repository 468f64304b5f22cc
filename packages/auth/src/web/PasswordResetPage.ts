import { Iam } from "@core/contracts"
import { alert, csrfField, type FieldErrors, field, hidden } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, PAGE } from "./Links.js"

/** The form asking for a reset link. */
export interface ForgotPasswordView {
  readonly base: string
  readonly csrf: string
  readonly email?: string | undefined
  readonly error?: string | undefined
  readonly fieldErrors?: FieldErrors
}

/** `GET /forgot-password`: the email to send a reset link to. */
export const forgotPasswordPage = (view: ForgotPasswordView): SafeHtml =>
  layout({
    title: "Reset your password",
    body: html`<h1>Reset your password</h1>
<p>Enter the email of your account, and we will mail you a link to choose a new password.</p>
${alert(view.error)}
<form method="post" action="${href(view.base, PAGE.forgotPassword)}" novalidate>
${csrfField(view.csrf)}
${field({ name: "email", label: "Email", type: "email", value: view.email, error: view.fieldErrors?.email, autocomplete: "email", autofocus: true, spellcheck: false })}
<div class="actions"><button type="submit">Send the link</button></div>
</form>
<p class="links">Remembered it? <a href="${href(view.base, PAGE.signIn)}">Sign in</a></p>`
  })

/** The answer to a reset request: the same whether or not the email has an account. */
export const resetRequestedPage = (base: string, email: string, printedLinks = false): SafeHtml =>
  layout({
    title: "Check your email",
    body: html`<h1>Check your email</h1>
<p class="notice" role="status">If <strong>${email}</strong> has an account, a link to choose a new password is on its way.</p>
${printedLinks ? html`<p class="hint">In development, no mail leaves this server: the link is printed in the terminal where the server runs (its standard error).</p>` : html``}
<p>The link works once, for a limited time. No mail? Check the spam folder, or <a href="${href(base, PAGE.forgotPassword)}">ask again</a>.</p>
<p class="links"><a href="${href(base, PAGE.signIn)}">Back to sign-in</a></p>`
  })

/** The new-password form of a live reset link. */
export interface ResetPasswordView {
  readonly base: string
  readonly csrf: string
  readonly token: string
  readonly error?: string | undefined
  readonly fieldErrors?: FieldErrors
}

/** `GET /reset-password?token=…`: choose the new password (the token travels in a hidden field). */
export const resetPasswordPage = (view: ResetPasswordView): SafeHtml =>
  layout({
    title: "Choose a new password",
    body: html`<h1>Choose a new password</h1>
${alert(view.error)}
<form method="post" action="${href(view.base, PAGE.resetPassword)}" novalidate>
${csrfField(view.csrf)}${hidden("token", view.token)}
${field({ name: "password", label: "New password", type: "password", error: view.fieldErrors?.password, autocomplete: "new-password", autofocus: true, minlength: Iam.PASSWORD_MIN_LENGTH, maxlength: Iam.PASSWORD_MAX_LENGTH, hint: `At least ${Iam.PASSWORD_MIN_LENGTH} characters. Every device signed in to your account will be signed out.` })}
<div class="actions"><button type="submit">Change password</button></div>
</form>`
  })

/** A reset link that is unknown, used or expired (one message: the page tells none from another). */
export const resetExpiredPage = (base: string): SafeHtml =>
  layout({
    title: "This reset link has expired",
    body: html`<h1>This reset link has expired</h1>
<p>The link is not valid any more: it was already used, a newer one was sent, or it is too old.</p>
<p class="links"><a href="${href(base, PAGE.forgotPassword)}">Ask for a new link</a> · <a href="${href(base, PAGE.signIn)}">Sign in</a></p>`
  })
