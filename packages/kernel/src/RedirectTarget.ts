/**
 * Where Core may send a person: the one check behind every redirect and every URL a client is told
 * to navigate to (identity's callbacks and reset links, billing's portal `returnUrl`). No open
 * redirects: a target is parsed the way a browser parses it and accepted only on the public
 * address's origin or a trusted one (decision 0555).
 */

/** What a target is checked against. */
export interface RedirectPolicy {
  /** The public address (`CORE_PUBLIC_URL`); relative targets resolve against it. */
  readonly publicUrl: string
  /** Other origins a person may be sent to (`CORE_CORS_ORIGINS`). */
  readonly trustedOrigins?: ReadonlyArray<string>
}

/** The longest target accepted; longer ones are refused, never truncated. */
export const MAX_TARGET_LENGTH = 4096

// What a browser's URL parser drops before it reads a URL (WHATWG URL §4.4): leading and trailing
// C0 controls and spaces, and every tab, LF and CR inside. A backslash is a slash in http(s) URLs.
const EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g
const TAB_OR_NEWLINE = /[\t\n\r]/g
const CONTROL = /[\u0000-\u001f\u007f]/
const ABSOLUTE = /^https?:\/\//i

/**
 * The target as the browser will read it, with backslashes made slashes: what is checked is what
 * is followed. `undefined` when it still holds a control character (nothing legitimate does).
 */
export const normalize = (value: string): string | undefined => {
  const stripped = value.replace(EDGES, "").replace(TAB_OR_NEWLINE, "").replace(/\\/g, "/")
  return CONTROL.test(stripped) ? undefined : stripped
}

/** The origin of a configured address, or `undefined` when it is not an http(s) URL. */
const originOf = (address: string): string | undefined => {
  try {
    const url = new URL(address)
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined
  } catch {
    return undefined
  }
}

/**
 * Check a redirect target: a path on the public address (`/dashboard`) or an absolute http(s) URL
 * on the public origin or a trusted one. Answers the absolute URL to send the person to, or
 * `undefined` for anything else — another host (`//evil`, `/\t/evil`, `/\evil`), another scheme
 * (`javascript:`, `data:`), a form a browser resolves per page (`https:evil`, `evil/path`),
 * credentials in the URL, control characters, over {@link MAX_TARGET_LENGTH}.
 *
 * @example
 * check("/settings", { publicUrl: "https://core.example.com" })?.href // "https://core.example.com/settings"
 * check("/\t/evil.example.com", { publicUrl: "https://core.example.com" }) // undefined
 */
export const check = (value: string, policy: RedirectPolicy): URL | undefined => {
  if (value.length > MAX_TARGET_LENGTH) return undefined
  const normalized = normalize(value)
  if (normalized === undefined || normalized === "") return undefined
  // Only the two forms a browser reads the same whatever page it is on: a path (`/…`, not `//…`)
  // and an absolute http(s) URL. `https:host`, `host/path` and `../x` resolve differently per page.
  const isPath = normalized.startsWith("/") && !normalized.startsWith("//")
  if (!isPath && !ABSOLUTE.test(normalized)) return undefined
  const base = policy.publicUrl.replace(/\/+$/, "")
  let url: URL
  try {
    url = new URL(normalized, `${base}/`)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.username !== "" || url.password !== "") return undefined
  const trusted = [base, ...(policy.trustedOrigins ?? [])].map(originOf)
  return trusted.includes(url.origin) ? url : undefined
}
