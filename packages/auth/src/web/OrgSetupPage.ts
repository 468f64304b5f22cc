import { alert, csrfField, type FieldErrors, field, focusOf } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, PAGE } from "./Links.js"

/** What the organization setup form shows. */
export interface OrgSetupView {
  readonly base: string
  readonly csrf: string
  /** The signed-in user's email. */
  readonly email: string
  readonly name?: string | undefined
  readonly slug?: string | undefined
  readonly error?: string | undefined
  readonly fieldErrors?: FieldErrors
}

/** `GET /org-setup`: create your organization (name and slug). */
export const orgSetupPage = (view: OrgSetupView): SafeHtml => {
  const focus = focusOf(["name", "slug"], view.fieldErrors)
  return layout({
    title: "Create your organization",
    body: html`<h1>Create your organization</h1>
<p>Signed in as <strong>${view.email}</strong>.</p>
${alert(view.error)}
<form method="post" action="${href(view.base, PAGE.orgSetup)}" novalidate>
${csrfField(view.csrf)}
${field({ name: "name", label: "Organization name", value: view.name, error: view.fieldErrors?.name, autocomplete: "organization", autofocus: focus === "name", maxlength: 100 })}
${field({ name: "slug", label: "Slug", value: view.slug, error: view.fieldErrors?.slug, autofocus: focus === "slug", maxlength: 63, pattern: "[a-z0-9\\-]+", spellcheck: false, hint: "Lowercase letters, digits and dashes; it names your platform." })}
<div class="actions"><button type="submit">Create organization</button></div>
</form>`
  })
}

/** The organization `org-setup` created. */
export interface OrgCreatedView {
  readonly base: string
  readonly orgId: string
  readonly platformId: string | null
  readonly name: string
  readonly slug: string
}

/** `GET /org-setup?created=<id>`, where a successful setup redirects (a refresh posts nothing again). */
export const orgCreatedPage = (view: OrgCreatedView): SafeHtml =>
  layout({
    title: "Organization created",
    body: html`<h1>Organization created</h1>
<p class="notice" role="status"><strong>${view.name}</strong> is ready, and you are its owner.</p>
<dl>
<dt>Slug</dt><dd>${view.slug}</dd>
<dt>Organization</dt><dd><code>${view.orgId}</code></dd>
<dt>Platform</dt><dd><code>${view.platformId ?? "—"}</code></dd>
</dl>
<p class="links">Log in from your terminal with <code>core login</code>, or <a href="${href(view.base, PAGE.account)}">go to your account</a>.</p>`
  })
