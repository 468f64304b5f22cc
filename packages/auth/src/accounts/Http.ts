import { Route } from "@core/kernel"
import { Layer } from "effect"
import { Accounts } from "./Accounts.js"
import { CallersLive } from "../authorization/CallersLive.js"
import { CurrentSession } from "./CurrentSession.js"
import { AuthHandlers } from "./AuthRoutes.js"
import { AuthSessionHandlers } from "./AuthSessionRoutes.js"
import { AuthUrls } from "./AuthUrls.js"
import { accountsRenderer } from "./BetterAuth.js"
import { Credentials } from "./Credentials.js"
import { EmailVerification } from "./EmailVerification.js"
import { MagicLinks } from "./MagicLinks.js"
import { Profile } from "./Profile.js"
import { SessionCache } from "./SessionCache.js"
import { SessionContext } from "./SessionContext.js"
import { SessionContextHandlers } from "./SessionContextRoutes.js"
import { SessionHandlers } from "./SessionRoutes.js"
import { Sessions } from "./Sessions.js"

/** better-auth's `/api/auth/*` routes of accounts and sessions, answering its `{ code, message }` errors. */
const BetterAuthHandlers = [...AuthHandlers, ...AuthSessionHandlers]

/** Every route of `Iam.AccountRoutes`, one handler each (the catalogue-coverage test collects them). */
export const AccountsHandlers = [
  ...Route.rendered(accountsRenderer, BetterAuthHandlers),
  ...SessionHandlers,
  ...SessionContextHandlers
]

/**
 * The accounts and sessions routes: better-auth's `/api/auth/*` (its `{ code, message }` errors) and
 * the documented profile, session list, enriched session and session validation (the kernel's envelope).
 */
export const AccountsRouter = Route.router(AccountsHandlers)

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
 * over it (no route uses it any more; the package still exports it until it goes). Requires the database
 * (`SqlClient`), `CoreConfig`, `Ids`, `ApiKeys` and `Permissions` (authorization), the `AuditLog`
 * and `Access` ports and a `Mailer` (`mail/MailerLive`).
 */
export const AccountsLive = CallersLive.pipe(
  Layer.provideMerge(Services),
  Layer.provideMerge(AuthUrls.Default)
)
