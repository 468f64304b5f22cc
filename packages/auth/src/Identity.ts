import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { ErrorResponse } from "@core/kernel"
import { Effect, Layer } from "effect"
import { AccountsLive, AccountsRouter } from "./accounts/Http.js"
import { AuthorizationLive, AuthorizationRouter } from "./authorization/Http.js"
import { DeviceAuthorizationLive, DeviceRouter } from "./device/Http.js"
import { OrganizationsLive, OrganizationsRouter } from "./organizations/Http.js"
import { PagesLive, PagesRouter } from "./web/Http.js"
import * as MailerLive from "./mail/MailerLive.js"

/** `GET /health` of the identity service: `{ status: healthy | degraded, checks }` (seed 000). */
const health = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/health",
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const database = yield* sql`SELECT 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.as("ok" as const),
        Effect.catchAllCause(() => Effect.succeed("error" as const))
      )
      const status = database === "ok" ? "healthy" : "degraded"
      return HttpServerResponse.unsafeJson({ status, checks: { database } }, {
        status: status === "healthy" ? 200 : 503,
        headers: { "cache-control": "no-store" }
      })
    })
  )
)

/** Every route of the identity service at its own paths. */
export const IdentityRouter = HttpRouter.concatAll(
  health,
  AccountsRouter,
  OrganizationsRouter,
  AuthorizationRouter,
  DeviceRouter,
  PagesRouter
)

/**
 * The identity service as one app: its routes, with the kernel's error envelope for every
 * failure (the better-auth-compatible routes answer their own `{ code, message }` bodies).
 */
export const IdentityApp = ErrorResponse.withErrorEnvelope(IdentityRouter)

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
