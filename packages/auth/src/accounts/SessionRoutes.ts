import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { Body, CoreConfig, NotFound, Unauthorized } from "@core/kernel"
import { Effect, Option } from "effect"
import { presentedToken } from "./AuthenticationLive.js"
import { Authentication } from "./Authentication.js"
import { Profile } from "./Profile.js"
import { type DescribedSession, SessionContext } from "./SessionContext.js"
import { Sessions } from "./Sessions.js"
import { sessionView, userView } from "./AccountViews.js"
import { invalidates } from "../internal/Invalidate.js"
import { requestFacts } from "./AuthRoutes.js"
import { settingsFor, withoutSession } from "./SessionCookie.js"

const ok = (body: unknown) => HttpServerResponse.unsafeJson(body, { headers: { "cache-control": "no-store" } })

const getProfile = Effect.gen(function*() {
  const caller = yield* (yield* Authentication).session
  return ok(userView(yield* (yield* Profile).get(caller.userId)))
})

const patchProfile = Effect.gen(function*() {
  const caller = yield* (yield* Authentication).session
  const change = yield* Body.json(Iam.UpdateProfileRequest)
  return ok(userView(yield* (yield* Profile).update(caller.userId, change, yield* requestFacts)))
})

const listSessions = Effect.gen(function*() {
  const caller = yield* (yield* Authentication).session
  const sessions = yield* (yield* Sessions).list(caller.userId)
  return ok({ data: sessions.map((session) => ({ ...sessionView(session), current: session.id === caller.sessionId })) })
})

const deleteSession = Effect.gen(function*() {
  const caller = yield* (yield* Authentication).session
  const { id } = yield* Body.params(Iam.SessionIdParams)
  const revoked = yield* (yield* Sessions).revoke(caller.userId, id, yield* requestFacts)
  if (Option.isNone(revoked)) return yield* new NotFound({ message: "Session not found" })
  if (id !== caller.sessionId) return invalidates(ok({ id }), { sessionId: id })
  return invalidates(withoutSession(ok({ id }), settingsFor((yield* CoreConfig).nodeEnv)), { sessionId: id })
})

const tenantView = (described: DescribedSession) => ({
  organizationId: described.tenant.organizationId,
  organizationSlug: described.tenant.organizationSlug,
  platformId: described.tenant.platformId,
  platformStatus: described.tenant.platformStatus
})

const describeToken = (token: string | undefined) =>
  token === undefined
    ? Effect.succeed(Option.none<DescribedSession>())
    : Effect.flatMap(SessionContext, (context) => context.describe(token))

const coreSession = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  Effect.flatMap(describeToken(presentedToken(request)?.token), (found) => {
    if (Option.isNone(found)) return Effect.fail(new Unauthorized({ message: "Invalid or expired session" }))
    const described = found.value
    return Effect.succeed(ok({
      session: sessionView(described.session),
      user: userView(described.user),
      permissions: described.permissions,
      tenant: tenantView(described),
      role: described.role
    }))
  }))

const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["content-type"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0

const validateSession = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const input = hasBody(request) ? yield* Body.json(Iam.ValidateSessionRequest) : {}
  const found = yield* describeToken(input.token ?? presentedToken(request)?.token)
  if (Option.isNone(found)) return ok({ valid: false })
  const described = found.value
  return ok({
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
 * The documented account routes answering the kernel's error envelope: the profile, the caller's
 * sessions, the enriched session the gateway reads, and session validation.
 */
export const SessionRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/auth/profile", getProfile),
  HttpRouter.patch("/api/auth/profile", patchProfile),
  HttpRouter.get("/api/sessions", listSessions),
  HttpRouter.del("/api/sessions/:id", deleteSession),
  HttpRouter.get("/api/core/session", coreSession),
  HttpRouter.post("/api/validate-session", validateSession)
)
