import { Iam } from "@core/contracts"
import { RequestContext, Route } from "@core/kernel"
import { Effect, Option } from "effect"
import { AccountError } from "./AccountErrors.js"
import { sessionView, userView } from "./AccountViews.js"
import { signedIn } from "./CurrentSession.js"
import { json } from "./BetterAuth.js"
import { cookieSettings, withoutSession, withSession } from "./SessionCookie.js"
import { Sessions } from "./Sessions.js"
import { invalidates } from "../internal/Invalidate.js"

const Routes = Iam.AccountRoutes

/** Public, as better-auth's is not: without a live session it still clears the cookie. */
const signOut = Route.handle(Routes.signOut, () =>
  Effect.gen(function*() {
    const found = yield* signedIn
    const cleared = withoutSession(json({ success: true }), yield* cookieSettings)
    if (Option.isNone(found)) return cleared
    const { session, user } = found.value.resolved
    const sessions = yield* Sessions
    yield* sessions.signOut(user.id, session.id, yield* RequestContext.facts)
    return invalidates(cleared, { sessionId: session.id })
  }))

/** `null` without a live session; a cookie session that just slid gets its cookie again. */
const getSession = Route.handle(Routes.getSession, ({ request }) =>
  Effect.gen(function*() {
    const found = yield* signedIn
    if (Option.isNone(found)) return json(null)
    const { resolved, via } = found.value
    const body = { session: sessionView(resolved.session), user: userView(resolved.user) }
    if (!resolved.refreshed || via !== "cookie") return json(body)
    return withSession(json(body), request.cookies[Iam.SESSION_COOKIE], yield* cookieSettings)
  }))

const listSessions = Route.handle(Routes.listSessions, ({ caller }) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    return json((yield* sessions.list(caller.userId)).map(sessionView))
  }))

/**
 * Revoking the caller's own session clears its cookie. A session that is not a live one of the
 * caller's (another user's, an unknown or an ended one) is 404 `SESSION_NOT_FOUND` and nothing changes
 * (docs/decisions/0198-revoke-session-not-found.md).
 */
const revokeSession = Route.handle(Routes.revokeSession, ({ caller, body }) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const facts = yield* RequestContext.facts
    const revoked = body.id !== undefined
      ? yield* sessions.revoke(caller.userId, body.id, facts)
      : yield* sessions.revokeByToken(caller.userId, body.token ?? "", facts)
    if (Option.isNone(revoked)) return yield* AccountError.of("SESSION_NOT_FOUND")
    const response = revoked.value === caller.sessionId
      ? withoutSession(json({ status: true }), yield* cookieSettings)
      : json({ status: true })
    return invalidates(response, { sessionId: revoked.value })
  }))

const revokeSessions = Route.handle(Routes.revokeSessions, ({ caller }) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    yield* sessions.revokeAll(caller.userId, null, yield* RequestContext.facts, "all")
    return invalidates(withoutSession(json({ status: true }), yield* cookieSettings), { userId: caller.userId })
  }))

const revokeOtherSessions = Route.handle(Routes.revokeOtherSessions, ({ caller }) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    yield* sessions.revokeAll(caller.userId, caller.sessionId, yield* RequestContext.facts, "others")
    return invalidates(json({ status: true }), { userId: caller.userId })
  }))

/**
 * better-auth's session routes (`/api/auth/*`): sign-out, the current session, and the caller's
 * sessions listed and revoked; that library's bodies and errors.
 */
export const AuthSessionHandlers = [
  signOut,
  getSession,
  listSessions,
  revokeSession,
  revokeSessions,
  revokeOtherSessions
]
