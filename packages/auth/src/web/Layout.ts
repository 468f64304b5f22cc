import { html, raw, type SafeHtml } from "./Html.js"
import { STYLESHEET } from "./Style.js"

/** What every page shows around its content. */
export interface PageFrame {
  /** The document title (also the page heading's usual text). */
  readonly title: string
  readonly body: SafeHtml
}

/** A whole HTML document: no script, one inline stylesheet allowed by hash. */
export const layout = (frame: PageFrame): SafeHtml =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
<title>${frame.title} · Core</title>
<style>${raw(STYLESHEET)}</style>
</head>
<body>
<main>
<div class="card">
<p class="brand">Core</p>
${frame.body}
</div>
</main>
</body>
</html>
`
