import type { Iam } from "@core/contracts"
import { deviceName } from "./DeviceName.js"
import { csrfField } from "./Forms.js"
import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"
import { href, PAGE } from "./Links.js"

/** `GET /` for a visitor without a session: what Core is, and the two ways in. */
export const welcomePage = (base: string): SafeHtml =>
  layout({
    title: "Welcome",
    body: html`<h1>Welcome to Core</h1>
<p>Core is an open platform control plane: accounts and organizations, API keys and permissions,
and the services your platform runs on, behind one gateway.</p>
<div class="actions"><a class="button" href="${href(base, PAGE.signUp)}">Create an account</a><a class="button secondary" href="${href(base, PAGE.signIn)}">Sign in</a></div>
<p class="links">Then log the command-line client in with <code>npx core login</code>.</p>`
  })

/** One organization on the home page, with its API keys when the user may read them. */
export interface HomeOrganization {
  readonly id: string
  readonly name: string
  readonly slug: string
  /** `undefined` when the user's role does not include `apikeys:read`. */
  readonly apiKeys: ReadonlyArray<Iam.ApiKey> | undefined
}

/** One live session of the user. */
export interface HomeSession {
  readonly id: string
  readonly kind: "web" | "device"
  readonly createdAt: Date
  readonly userAgent: string | null
  readonly ipAddress: string | null
  readonly current: boolean
}

/** What the home page shows a signed-in user. */
export interface HomeView {
  readonly base: string
  readonly csrf: string
  readonly name: string
  readonly email: string
  readonly organizations: ReadonlyArray<HomeOrganization>
  readonly sessions: ReadonlyArray<HomeSession>
}

const day = (at: Date | string): string => new Date(at).toISOString().slice(0, 10)

const keyList = (keys: ReadonlyArray<Iam.ApiKey> | undefined): SafeHtml => {
  if (keys === undefined) return html`<p class="hint">Your role does not show this organization's API keys.</p>`
  const live = keys.filter((key) => key.revokedAt === null)
  if (live.length === 0) return html`<p class="hint">No API keys yet: <code>npx core keys create</code> makes one.</p>`
  return html`<ul class="items">${live.map((key) =>
    html`<li><strong>${key.name ?? "unnamed"}</strong> <code>${key.start}…</code> <span class="hint">created ${day(key.createdAt)}${
      key.lastUsedAt === null ? "" : `, last used ${day(key.lastUsedAt)}`
    }</span></li>`
  )}</ul>`
}

const organizationList = (base: string, organizations: ReadonlyArray<HomeOrganization>): SafeHtml =>
  organizations.length === 0
    ? html`<p>You are not in an organization yet. <a href="${href(base, PAGE.orgSetup)}">Create one</a>.</p>`
    : html`${organizations.map((organization) =>
      html`<h3>${organization.name} <span class="hint">${organization.slug}</span></h3>
<p class="hint">API keys</p>
${keyList(organization.apiKeys)}`
    )}<p class="links"><a href="${href(base, PAGE.orgSetup)}">Create another organization</a></p>`

const sessionList = (sessions: ReadonlyArray<HomeSession>): SafeHtml =>
  html`<ul class="items">${sessions.map((session) =>
    html`<li>${session.kind === "device" ? "Device login" : "Browser"}${session.current ? html` <strong>(this one)</strong>` : ""} <span class="hint">since ${
      day(session.createdAt)
    }${session.ipAddress === null ? "" : ` from ${session.ipAddress}`}${session.userAgent === null ? "" : ` · ${deviceName(session.userAgent)}`}</span></li>`
  )}</ul>`

/** `GET /` for a signed-in user: their organizations, each with its API keys, and their sessions. */
export const homePage = (view: HomeView): SafeHtml =>
  layout({
    title: "Home",
    body: html`<h1>Hello, ${view.name}</h1>
<p>Signed in as <strong>${view.email}</strong>.</p>
<h2>Organizations</h2>
${organizationList(view.base, view.organizations)}
<h2>Sessions</h2>
${sessionList(view.sessions)}
<p class="links"><a href="${href(view.base, PAGE.account)}">Your account</a> · <a href="${href(view.base, PAGE.device)}">Activate a device</a></p>
<form method="post" action="${href(view.base, PAGE.signOut)}">
${csrfField(view.csrf)}
<div class="actions"><button type="submit" class="secondary">Sign out</button></div>
</form>`
  })
