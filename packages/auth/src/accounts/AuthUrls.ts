import { HttpServerRequest } from "@effect/platform"
import { CoreConfig, PublicUrl, RedirectTarget } from "@core/kernel"
import { Context, Effect, Layer, Option } from "effect"
import { AccountError, type AccountErrorCode } from "./AccountErrors.js"

/** Where identity's links point and which redirect targets are trusted. */
export interface AuthUrlsOptions {
  /** The address people reach (`CORE_PUBLIC_URL`), without a trailing slash. */
  readonly publicUrl: string
  /** The path under which identity's API is reached there. @default "/api/v1/iam" (the gateway's prefix) */
  readonly basePath?: string
  /** The path under which identity's pages are reached there. @default "" (the gateway serves them at the root) */
  readonly pagesPath?: string
  /** Other origins a redirect may go to (`CORE_CORS_ORIGINS`). */
  readonly trustedOrigins?: ReadonlyArray<string>
  /**
   * Whether `publicUrl` was configured (`CORE_PUBLIC_URL`); when not, links and redirects made during
   * a request use the request's origin. @default true
   */
  readonly publicUrlSet?: boolean
  /** Whether `X-Forwarded-Host`/`-Proto` name the request's origin (`CORE_TRUST_PROXY`). @default false */
  readonly trustProxy?: boolean
}

/**
 * Where identity is reached under the public address (`CORE_PUBLIC_URL`), for what it writes outside
 * a request — the links it mails, a reset's default landing page (decision 0212). Behind the gateway
 * (the default) the API is under `/api/v1/iam` and the pages at the root; a host that mounts identity
 * elsewhere says where: `IdentityApp` with `IdentityLive.pipe(Layer.provide(IdentityMount.at("/identity")))`.
 */
export class IdentityMount extends Context.Reference<IdentityMount>()("@core/auth/IdentityMount", {
  defaultValue: (): { readonly apiPath: string; readonly pagesPath: string } => ({ apiPath: "/api/v1/iam", pagesPath: "" })
}) {
  /** Identity's pages and API both under `path` (`/identity`, `/auth`), as a host mounts `IdentityApp`. */
  static readonly at = (path: string) => {
    const mounted = `/${path.replace(/^\/+|\/+$/g, "")}`.replace(/^\/$/, "")
    return Layer.succeed(IdentityMount, { apiPath: mounted, pagesPath: mounted })
  }
}

/** Which redirect parameter is being checked (it names the error code). */
export type RedirectParameter = "callbackURL" | "errorCallbackURL" | "newUserCallbackURL" | "redirectTo"

const INVALID: Record<RedirectParameter, AccountErrorCode> = {
  callbackURL: "INVALID_CALLBACK_URL",
  errorCallbackURL: "INVALID_ERROR_CALLBACK_URL",
  newUserCallbackURL: "INVALID_NEW_USER_CALLBACK_URL",
  redirectTo: "INVALID_REDIRECT_URL"
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

const originOf = (address: string): string | undefined => {
  try {
    return new URL(address).origin
  } catch {
    return undefined
  }
}

/** The links in identity's mail, and the redirect targets it accepts (no open redirects). */
export const make = (options: AuthUrlsOptions) => {
  const publicUrl = options.publicUrl.replace(/\/+$/, "")
  const basePath = (options.basePath ?? "/api/v1/iam").replace(/\/+$/, "")
  const base = `${publicUrl}${basePath}`
  const pagesPath = (options.pagesPath ?? "").replace(/\/+$/, "")
  const trustedOrigins = [publicUrl, ...(options.trustedOrigins ?? [])]
  const isLoopbackOrTrusted = (origin: string): boolean => {
    const host = new URL(origin).hostname
    return LOOPBACK.has(host) || host.endsWith(".localhost") || trustedOrigins.some((trusted) => originOf(trusted) === origin)
  }

  /**
   * The public address now (decision 0577): the configured one when `CORE_PUBLIC_URL` is set (or
   * outside a request), else the origin the current request was sent to — never the process's port.
   */
  const root: Effect.Effect<string> = options.publicUrlSet === false
    ? Effect.map(
      Effect.serviceOption(HttpServerRequest.HttpServerRequest),
      Option.match({
        onNone: () => publicUrl,
        onSome: (request) => PublicUrl.requestOrigin(request, options.trustProxy ?? false)
      })
    )
    : Effect.succeed(publicUrl)

  /**
   * The address a mailed link starts with. A link carries a token and leaves the request, so the
   * request's origin (from its `Host`, which the sender chooses) is taken only when it is a
   * loopback address or a trusted origin; otherwise a reset link could be poisoned to point at the
   * sender's host (host-header poisoning). Else the configured default.
   */
  const mailRoot: Effect.Effect<string> = Effect.map(root, (at) => isLoopbackOrTrusted(at) ? at : publicUrl)

  /** Where identity's API is reached now, for a link: the public address now and the mount. */
  const currentBase: Effect.Effect<string> = Effect.map(mailRoot, (at) => `${at}${basePath}`)

  /** An absolute link to one of identity's own routes (`/api/auth/...`) with query parameters, on the public address now. */
  const link = (path: string, query: Record<string, string | undefined>): Effect.Effect<string> =>
    Effect.map(currentBase, (at) => {
      const url = new URL(`${at}${path}`)
      for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value)
      return url.toString()
    })

  /** The path of one of identity's pages (`/reset-password`) on the public address, as a redirect target. */
  const page = (path: string): string => `${pagesPath}${path}`

  /**
   * A redirect target as an absolute URL: a path on the public address (`/dashboard`) or an absolute
   * URL on a trusted origin, read as a browser reads it (the kernel's `RedirectTarget.check`);
   * anything else fails with better-auth's `INVALID_*_URL` code (403).
   */
  const redirectTarget = (value: string, parameter: RedirectParameter): Effect.Effect<URL, AccountError> =>
    Effect.flatMap(root, (at) => {
      const url = RedirectTarget.check(value, { publicUrl: at, trustedOrigins })
      return url === undefined ? Effect.fail(AccountError.of(INVALID[parameter])) : Effect.succeed(url)
    })

  /** Check an optional redirect parameter of a request (before any mail goes out). */
  const checkRedirect = (value: string | undefined, parameter: RedirectParameter): Effect.Effect<void, AccountError> =>
    value === undefined ? Effect.void : Effect.asVoid(redirectTarget(value, parameter))

  return { base, currentBase, link, page, redirectTarget, checkRedirect } as const
}

/** The links and redirect rules of this process: `CORE_PUBLIC_URL`, `CORE_CORS_ORIGINS` and the `IdentityMount`. */
export class AuthUrls extends Effect.Service<AuthUrls>()("@core/auth/AuthUrls", {
  effect: Effect.map(Effect.zip(CoreConfig, IdentityMount), ([config, mount]) =>
    make({
      publicUrl: config.publicUrl,
      basePath: mount.apiPath,
      pagesPath: mount.pagesPath,
      trustedOrigins: config.corsOrigins,
      publicUrlSet: config.publicUrlSet,
      trustProxy: config.trustProxy
    }))
}) {
  /** Links and redirect rules from explicit options (a service mounted elsewhere, tests). */
  static readonly layerWith = (options: AuthUrlsOptions) => Layer.succeed(AuthUrls, AuthUrls.make(make(options)))
}
