import type { HttpServerRequest } from "@effect/platform"
import { Iam } from "@core/contracts"

/** The pages' paths, as the catalogue (`Iam.WebRoutes`) declares them: links and form actions start here. */
export const PAGE = {
  home: Iam.WebRoutes.homePage.path,
  signIn: Iam.WebRoutes.signInPage.path,
  signUp: Iam.WebRoutes.signUpPage.path,
  signOut: Iam.WebRoutes.submitSignOut.path,
  account: Iam.WebRoutes.accountPage.path,
  orgSetup: Iam.WebRoutes.orgSetupPage.path,
  device: Iam.WebRoutes.devicePage.path,
  forgotPassword: Iam.WebRoutes.forgotPasswordPage.path,
  resetPassword: Iam.WebRoutes.resetPasswordPage.path
} as const

const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/
const MAX_PREFIX = 200
const MAX_NEXT = 2048

/**
 * The path the pages are reached under: the gateway's `X-Forwarded-Prefix` (e.g. `/api/v1/iam`)
 * when it is a plain path, else `""` (the pages at the root). Every link and form action starts with it.
 */
export const basePathOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const prefix = request.headers["x-forwarded-prefix"]?.trim().replace(/\/+$/, "")
  return prefix !== undefined && prefix.length <= MAX_PREFIX && PREFIX.test(prefix) ? prefix : ""
}

/**
 * A link to one of the pages (`/sign-in`, …) under `base`, with query parameters. The home page under
 * a prefix is the prefix itself with a slash (`/identity/`).
 */
export const href = (base: string, path: string, query: Record<string, string | undefined> = {}): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, value)
  const search = params.toString()
  return `${base}${path}${search === "" ? "" : `?${search}`}`
}

/** Whether `next` (a checked site path) is the device page under `base`: the sign-in is for a device login. */
export const isDeviceLogin = (base: string, next: string | undefined): boolean =>
  next !== undefined && next.split(/[?#]/)[0] === href(base, PAGE.device)

/**
 * A `next` parameter if it is a path on this site (`/device?user_code=…`), else `undefined`:
 * no scheme, no host, no `//` or backslash that a browser would read as another host, no control
 * characters — never an open redirect.
 */
export const safeNext = (value: string | undefined): string | undefined => {
  if (value === undefined || value.length === 0 || value.length > MAX_NEXT) return undefined
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return undefined
  if (/[\u0000-\u0020\u007f]/.test(value)) return undefined
  try {
    const base = "http://site.invalid"
    const resolved = new URL(value, base)
    const path = `${resolved.pathname}${resolved.search}${resolved.hash}`
    return resolved.origin === base && !path.startsWith("//") ? path : undefined
  } catch {
    return undefined
  }
}
