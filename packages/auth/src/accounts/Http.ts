import { HttpRouter } from "@effect/platform"
import type {
  CoreConfig,
  InvalidJson,
  NotFound,
  PayloadTooLarge,
  Unauthorized,
  UnsupportedMediaType,
  ValidationError
} from "@core/kernel"
import { Layer } from "effect"
import { Accounts } from "./Accounts.js"
import { CallersLive } from "../authorization/CallersLive.js"
import { AuthenticationLive, CurrentSession } from "./AuthenticationLive.js"
import type { Authentication } from "./Authentication.js"
import { AuthUrls } from "./AuthUrls.js"
import { Credentials } from "./Credentials.js"
import { EmailVerification } from "./EmailVerification.js"
import { MagicLinks } from "./MagicLinks.js"
import { Profile } from "./Profile.js"
import { SessionCache } from "./SessionCache.js"
import { SessionContext } from "./SessionContext.js"
import { Sessions } from "./Sessions.js"
import { AuthRoutes } from "./AuthRoutes.js"
import { SessionRoutes } from "./SessionRoutes.js"

/**
 * The accounts and sessions routes: better-auth's `/api/auth/*` (its `{ code, message }` errors) and
 * the documented `/api/auth/profile`, `/api/sessions`, `/api/core/session`, `/api/validate-session`
 * (the kernel envelope, applied by the identity app).
 */
export const AccountsRouter: HttpRouter.HttpRouter<
  Unauthorized | NotFound | ValidationError | InvalidJson | PayloadTooLarge | UnsupportedMediaType,
  | Accounts
  | Authentication
  | AuthUrls
  | CoreConfig
  | Credentials
  | CurrentSession
  | EmailVerification
  | MagicLinks
  | Profile
  | SessionContext
  | Sessions
> = HttpRouter.concat(AuthRoutes, SessionRoutes)

const Services = Layer.mergeAll(
  Accounts.Default,
  MagicLinks.Default,
  Credentials.Default,
  EmailVerification.Default,
  Profile.Default,
  SessionContext.Default,
  CurrentSession.Default,
  Sessions.Default,
  SessionCache.Default
)

/**
 * Everything the accounts routes need, the kernel's `Callers` port and the `Authentication` port
 * over it. Requires the database (`SqlClient`), `CoreConfig`, `Ids`, `ApiKeys` and `Permissions`
 * (authorization), the `AuditLog` and `Access` ports and a `Mailer` (`mail/MailerLive`).
 */
export const AccountsLive = AuthenticationLive.pipe(
  Layer.provideMerge(CallersLive),
  Layer.provideMerge(Services),
  Layer.provideMerge(AuthUrls.Default)
)
