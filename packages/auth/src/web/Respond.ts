import { HttpServerResponse } from "@effect/platform"
import type { SafeHtml } from "./Html.js"
import { STYLESHEET_SOURCE } from "./Style.js"

/**
 * The policy of every page: nothing loads but the inline stylesheet (by hash), forms post only to
 * this origin, no page may frame them.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${STYLESHEET_SOURCE}`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'"
].join("; ")

/** Headers of every page answer. Pages carry CSRF tokens and personal data: nothing caches them. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}

/** An HTML page answer. */
export const page = (markup: SafeHtml, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(markup.value, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: PAGE_HEADERS
  })

/**
 * `303 See Other` to a path on this site (a relative `Location`, so the browser stays on the
 * origin it is on, whatever `CORE_PUBLIC_URL` says).
 */
export const seeOther = (location: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({ status: 303, headers: { ...PAGE_HEADERS, location } })
