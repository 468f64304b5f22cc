import { alert, csrfField, field, hidden } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, PAGE } from "./Links.js"

const CLIENT_NAMES: Readonly<Record<string, string>> = { "core-cli": "Core CLI" }

/** The name a person sees for an OAuth client id (`core-cli` → "Core CLI"). */
export const clientName = (clientId: string): string => CLIENT_NAMES[clientId] ?? clientId

/** The code entry form. */
export interface DeviceEntryView {
  readonly base: string
  readonly email: string
  readonly userCode?: string | undefined
  readonly error?: string | undefined
}

/** `GET /device`: enter the code your device shows (a GET form: entering a code changes nothing). */
export const deviceEntryPage = (view: DeviceEntryView): SafeHtml =>
  layout({
    title: "Activate a device",
    body: html`<h1>Activate a device</h1>
<p>Enter the code shown by the device you are signing in on. You are signed in as <strong>${view.email}</strong>.</p>
${alert(view.error)}
<form method="get" action="${href(view.base, PAGE.device)}" novalidate>
${field({ name: "user_code", label: "Code", value: view.userCode, error: view.error === undefined ? undefined : "Check the code and try again.", autocomplete: "one-time-code", autofocus: true, maxlength: 32, spellcheck: false, hint: "Eight letters, like BCDF-GHJK." })}
<div class="actions"><button type="submit">Continue</button></div>
</form>`
  })

/** The approval question. */
export interface DeviceConfirmView {
  readonly base: string
  readonly csrf: string
  readonly email: string
  /** The code, as the device shows it (`XXXX-XXXX`). */
  readonly userCode: string
  readonly clientId: string
  readonly error?: string | undefined
}

/** `GET /device?user_code=…` with a live code: name the client and ask to approve or deny. */
export const deviceConfirmPage = (view: DeviceConfirmView): SafeHtml =>
  layout({
    title: `Connect ${clientName(view.clientId)}?`,
    body: html`<h1>Connect ${clientName(view.clientId)}?</h1>
${alert(view.error)}
<p><strong>${clientName(view.clientId)}</strong> is asking to act as <strong>${view.email}</strong>.</p>
<p>Check that your device shows this code:</p>
<p class="code" aria-label="Code">${view.userCode}</p>
<p class="hint">Approve only if you started this login yourself, just now.</p>
<form method="post" action="${href(view.base, PAGE.device)}">
${csrfField(view.csrf)}${hidden("user_code", view.userCode)}
<div class="actions"><button type="submit" name="action" value="deny" class="secondary">Deny</button><button type="submit" name="action" value="approve">Approve</button></div>
</form>
<p class="links">Not the right account? <a href="${href(view.base, PAGE.account)}">Switch account</a></p>`
  })

/** The approval went through. */
export const deviceApprovedPage = (clientId: string): SafeHtml =>
  layout({
    title: "Device connected",
    body: html`<h1>Device connected</h1>
<p class="notice" role="status">${clientName(clientId)} is now signed in.</p>
<p>You can close this tab and return to your terminal.</p>`
  })

/** The user declined. */
export const deviceDeniedPage = (clientId: string): SafeHtml =>
  layout({
    title: "Access denied",
    body: html`<h1>Access denied</h1>
<p>${clientName(clientId)} was not connected to your account.</p>
<p>You can close this tab.</p>`
  })
