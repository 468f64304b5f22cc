import { HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { CoreConfig } from "@core/kernel"
import { Duration, Effect } from "effect"
import { SESSION_TTL } from "./Sessions.js"

/** How the session cookie is written. */
export interface CookieSettings {
  /** `Secure` (every environment but development, DESIGN §5). */
  readonly secure: boolean
}

/** Cookie settings for a `NODE_ENV`. */
export const settingsFor = (nodeEnv: string): CookieSettings => ({ secure: nodeEnv !== "development" })

/** The cookie settings of this process's environment. */
export const cookieSettings = Effect.map(CoreConfig, (config) => settingsFor(config.nodeEnv))

const attributes = (settings: CookieSettings) => ({
  httpOnly: true,
  sameSite: "lax" as const,
  path: "/",
  secure: settings.secure
})

/**
 * Hand a new session token to the client: the `core.session_token` cookie (HttpOnly, SameSite=Lax,
 * Path=/, Max-Age 7 days — none for a `rememberMe: false` session) and the `set-auth-token` header
 * of better-auth's bearer plugin, exposed to CORS.
 */
export const withSession = (
  response: HttpServerResponse.HttpServerResponse,
  token: string,
  settings: CookieSettings,
  remember = true
): HttpServerResponse.HttpServerResponse =>
  response.pipe(
    HttpServerResponse.unsafeSetCookie(Iam.SESSION_COOKIE, token, {
      ...attributes(settings),
      ...(remember ? { maxAge: SESSION_TTL } : {})
    }),
    HttpServerResponse.setHeaders({
      [Iam.SET_AUTH_TOKEN_HEADER]: token,
      "access-control-expose-headers": Iam.SET_AUTH_TOKEN_HEADER
    })
  )

/** Clear the session cookie (sign-out, revocation of the current session, account deletion). */
export const withoutSession = (
  response: HttpServerResponse.HttpServerResponse,
  settings: CookieSettings
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeSetCookie(response, Iam.SESSION_COOKIE, "", { ...attributes(settings), maxAge: Duration.zero })
