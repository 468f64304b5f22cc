import { alert, csrfField } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, PAGE } from "./Links.js"

/** What the account page shows. */
export interface AccountView {
  readonly base: string
  readonly csrf: string
  readonly name: string
  readonly email: string
  readonly error?: string | undefined
}

/** `GET /account`: who is signed in, where to go next, and the sign-out button. */
export const accountPage = (view: AccountView): SafeHtml =>
  layout({
    title: "Your account",
    body: html`<h1>Your account</h1>
${alert(view.error)}
<dl>
<dt>Name</dt><dd>${view.name}</dd>
<dt>Email</dt><dd>${view.email}</dd>
</dl>
<p class="links"><a href="${href(view.base, PAGE.orgSetup)}">Create an organization</a> · <a href="${href(view.base, PAGE.device)}">Activate a device</a></p>
<form method="post" action="${href(view.base, PAGE.signOut)}">
${csrfField(view.csrf)}
<div class="actions"><button type="submit" class="secondary">Sign out</button></div>
</form>`
  })
