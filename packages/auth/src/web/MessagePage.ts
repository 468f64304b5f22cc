import { html, type SafeHtml } from "./Html.js"
import { layout } from "./Layout.js"

/** A page that only says something: an outcome, or why a request could not be served. */
export interface MessageView {
  readonly title: string
  readonly message: string
  /** A link onwards. */
  readonly link?: { readonly href: string; readonly label: string }
  /** Shown small, so that a person can quote it to an operator. */
  readonly requestId?: string
}

/** A title, a sentence and maybe a link. */
export const messagePage = (view: MessageView): SafeHtml =>
  layout({
    title: view.title,
    body: html`<h1>${view.title}</h1>
<p>${view.message}</p>
${view.link === undefined ? "" : html`<p class="links"><a href="${view.link.href}">${view.link.label}</a></p>`}${
      view.requestId === undefined ? "" : html`<p class="hint">Request id: <code>${view.requestId}</code></p>`
    }`
  })
