import { HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { Database, Route } from "@core/kernel"
import { Effect, Layer } from "effect"
import { AccountsHandlers, AccountsLive } from "./accounts/Http.js"
import { AuthorizationHandlers, AuthorizationLive } from "./authorization/Http.js"
import { DeviceAuthorizationLive, DeviceHandlers } from "./device/Http.js"
import { OrganizationsHandlers, OrganizationsLive } from "./organizations/Http.js"
import { PagesLive, WebHandlers } from "./web/Http.js"
import * as MailerLive from "./mail/MailerLive.js"

/** `GET /health` of the identity service: `{ status: healthy | degraded, checks }` (seed 000). */
const HealthHandlers = [
  Route.handle(Iam.ServiceRoutes.identityHealth, () =>
    Effect.gen(function*() {
      const database = yield* Database.ping.pipe(
        Effect.timeout("2 seconds"),
        Effect.as("ok" as const),
        Effect.catchAllCause(() => Effect.succeed("error" as const))
      )
      const status = database === "ok" ? "healthy" : "degraded"
      return HttpServerResponse.unsafeJson({ status, checks: { database } }, {
        status: status === "healthy" ? 200 : 503,
        headers: { "cache-control": "no-store" }
      })
    }))
] as const

/**
 * Every route of the identity service, one handler per route of `Iam.IdentityRoutes` (a test keeps
 * the two equal), each answering failures in its protocol's bodies: better-auth's, OAuth's, the
 * pages' or the kernel's envelope.
 */
export const IdentityHandlers = [
  ...HealthHandlers,
  ...AccountsHandlers,
  ...OrganizationsHandlers,
  ...AuthorizationHandlers,
  ...DeviceHandlers,
  ...WebHandlers
]

/** Every route of the identity service at its own paths (an unknown path answers the envelope's 404). */
export const IdentityRouter = Route.router(IdentityHandlers)

/** The identity service as one app (the router answers every failure itself). */
export const IdentityApp = IdentityRouter

/**
 * Everything the identity app needs but the database (`SqlClient`), `CoreConfig`, identity's own
 * `MailConfig`, `Ids` and the registry's `PlatformSetup`: accounts and sessions, organizations,
 * authorization, device authorization, the web pages' CSRF protection, and mail (SMTP when `SMTP_URL`
 * is set, else the outbox).
 */
export const IdentityLive = Layer.mergeAll(OrganizationsLive, DeviceAuthorizationLive, PagesLive).pipe(
  Layer.provideMerge(AccountsLive),
  Layer.provideMerge(AuthorizationLive),
  Layer.provideMerge(MailerLive.layer)
)
