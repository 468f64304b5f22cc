import { CoreConfig } from "@core/kernel"
import { Effect, Layer } from "effect"
import { AccountError, type AccountErrorCode } from "./AccountErrors.js"

/** Where identity's links point and which redirect targets are trusted. */
export interface AuthUrlsOptions {
  /** The address people reach (`CORE_PUBLIC_URL`), without a trailing slash. */
  readonly publicUrl: string
  /** The path under which identity is reached there. @default "/api/v1/iam" (the gateway's prefix) */
  readonly basePath?: string
  /** Other origins a redirect may go to (`CORE_CORS_ORIGINS`). */
  readonly trustedOrigins?: ReadonlyArray<string>
}

/** Which redirect parameter is being checked (it names the error code). */
export type RedirectParameter = "callbackURL" | "errorCallbackURL" | "newUserCallbackURL" | "redirectTo"

const INVALID: Record<RedirectParameter, AccountErrorCode> = {
  callbackURL: "INVALID_CALLBACK_URL",
  errorCallbackURL: "INVALID_ERROR_CALLBACK_URL",
  newUserCallbackURL: "INVALID_NEW_USER_CALLBACK_URL",
  redirectTo: "INVALID_REDIRECT_URL"
}

/** The links in identity's mail, and the redirect targets it accepts (no open redirects). */
export const make = (options: AuthUrlsOptions) => {
  const publicUrl = options.publicUrl.replace(/\/+$/, "")
  const base = `${publicUrl}${(options.basePath ?? "/api/v1/iam").replace(/\/+$/, "")}`
  const trusted = new Set([new URL(publicUrl).origin, ...(options.trustedOrigins ?? [])])

  /** An absolute link to one of identity's own routes (`/api/auth/...`) with query parameters. */
  const link = (path: string, query: Record<string, string | undefined>): string => {
    const url = new URL(`${base}${path}`)
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value)
    return url.toString()
  }

  /**
   * A redirect target as an absolute URL: a path on the public address (`/dashboard`) or an absolute
   * URL on a trusted origin; anything else fails with better-auth's `INVALID_*_URL` code (403).
   */
  const redirectTarget = (value: string, parameter: RedirectParameter): Effect.Effect<URL, AccountError> => {
    const refuse = Effect.fail(AccountError.of(INVALID[parameter]))
    if (value.startsWith("/")) {
      if (value.startsWith("//") || value.startsWith("/\\")) return refuse
      return Effect.succeed(new URL(value, `${publicUrl}/`))
    }
    try {
      const url = new URL(value)
      return (url.protocol === "http:" || url.protocol === "https:") && trusted.has(url.origin) ? Effect.succeed(url) : refuse
    } catch {
      return refuse
    }
  }

  /** Check an optional redirect parameter of a request (before any mail goes out). */
  const checkRedirect = (value: string | undefined, parameter: RedirectParameter): Effect.Effect<void, AccountError> =>
    value === undefined ? Effect.void : Effect.asVoid(redirectTarget(value, parameter))

  return { base, link, redirectTarget, checkRedirect } as const
}

/** The links and redirect rules of this process. */
export class AuthUrls extends Effect.Service<AuthUrls>()("@core/auth/AuthUrls", {
  effect: Effect.map(CoreConfig, (config) => make({ publicUrl: config.publicUrl, trustedOrigins: config.corsOrigins }))
}) {
  /** Links and redirect rules from explicit options (a service mounted elsewhere, tests). */
  static readonly layerWith = (options: AuthUrlsOptions) => Layer.succeed(AuthUrls, AuthUrls.make(make(options)))
}
