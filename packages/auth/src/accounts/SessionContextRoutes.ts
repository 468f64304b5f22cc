import { HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { Route, type Unauthorized } from "@core/kernel"
import { Effect, Option } from "effect"
import { sessionView, userView } from "./AccountViews.js"
import { json } from "./BetterAuth.js"
import { presentedToken } from "./CurrentSession.js"
import { type DescribedSession, SessionContext } from "./SessionContext.js"
import { invalidSession } from "../Errors.js"

const Routes = Iam.AccountRoutes

const tenantView = (described: DescribedSession) => ({
  organizationId: described.tenant.organizationId,
  organizationSlug: described.tenant.organizationSlug,
  platformId: described.tenant.platformId,
  platformStatus: described.tenant.platformStatus
})

const NO_STORE_JSON = { contentType: "application/json", headers: { "cache-control": "no-store" } } as const

/**
 * The answer of `GET /api/core/session` for a described session, serialized once per description:
 * `SessionCache` hands the same description to every request for its second of life, so a warm
 * request costs a hash, a map lookup and a write.
 */
const bodies = new WeakMap<DescribedSession, string>()
const coreSessionBody = (described: DescribedSession): string => {
  let body = bodies.get(described)
  if (body === undefined) {
    body = JSON.stringify(coreSessionOf(described))
    bodies.set(described, body)
  }
  return body
}

/** The answer of `GET /api/core/session` for a described session, as a value (the gateway in process reads it so). */
export const coreSessionOf = (described: DescribedSession): Iam.CoreSessionResponse => ({
  session: sessionView(described.session),
  user: userView(described.user),
  permissions: [...described.permissions],
  tenant: tenantView(described),
  role: described.role
})

/** The session a token opens, described from `SessionCache`; `None` without a token. */
const describe = (token: string | undefined) =>
  token === undefined
    ? Effect.succeed(Option.none<DescribedSession>())
    : Effect.flatMap(SessionContext, (context) => context.describe(token))

/**
 * The gateway's hot path. Its caller is the session described from `SessionCache` (a hash and a map
 * lookup; one statement a second on a miss), where the general `Callers` would read the session row
 * on every request: the handler runs as a public route and resolves the bearer (else the cookie)
 * itself, while the catalogue goes on declaring the route user-only for the gateway and the OpenAPI
 * document. Every missing or dead session answers 401 "Invalid or expired session", as always.
 */
const getCoreSession: Route.Handler<Unauthorized | Route.RouteError, SessionContext> = {
  ...Route.handle({ ...Routes.getCoreSession, auth: "public" }, ({ request }) =>
    Effect.flatMap(describe(presentedToken(request)?.token), (found) =>
      Option.isNone(found)
        ? Effect.fail(invalidSession)
        : Effect.succeed(HttpServerResponse.text(coreSessionBody(found.value), NO_STORE_JSON)))),
  route: Routes.getCoreSession
}

const validation = (token: string | undefined) =>
  Effect.map(describe(token), (found) => {
    if (Option.isNone(found)) return json({ valid: false })
    const described = found.value
    return json({
      valid: true,
      userId: described.user.id,
      sessionId: described.session.id,
      email: described.user.email,
      expiresAt: described.session.expiresAt.toISOString(),
      activeOrganizationId: described.tenant.organizationId,
      platformId: described.tenant.platformId,
      platformStatus: described.tenant.platformStatus,
      role: described.role
    })
  })

/**
 * Always 200. The body is optional (a bare `POST` checks the caller's own bearer or cookie): the
 * kernel reads a request without a body as none.
 */
const validateSession = Route.handle(Routes.validateSession, ({ body, request }) =>
  validation(body?.token ?? presentedToken(request)?.token))

/**
 * The session as the gateway and the registry ask about it, answering the kernel's envelope: the
 * enriched session of a bearer (`getCoreSession`) and whether a token is live (`validateSession`).
 */
export const SessionContextHandlers = [getCoreSession, validateSession]
