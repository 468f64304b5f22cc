import { Iam } from "@core/contracts"
import { RequestContext, Route } from "@core/kernel"
import { Effect, Option } from "effect"
import { sessionView, userView } from "./AccountViews.js"
import { json } from "./BetterAuth.js"
import { Profile } from "./Profile.js"
import { cookieSettings, withoutSession } from "./SessionCookie.js"
import { Sessions } from "./Sessions.js"
import { invalidates } from "../internal/Invalidate.js"
import { sessionNotFound } from "../Errors.js"

const Routes = Iam.AccountRoutes

const getProfile = Route.handle(Routes.getProfile, ({ caller }) =>
  Effect.gen(function*() {
    const profile = yield* Profile
    return json(userView(yield* profile.get(caller.userId)))
  }))

const updateProfile = Route.handle(Routes.updateProfile, ({ caller, body }) =>
  Effect.gen(function*() {
    const profile = yield* Profile
    return json(userView(yield* profile.update(caller.userId, body, yield* RequestContext.facts)))
  }))

const listActiveSessions = Route.handle(Routes.listActiveSessions, ({ caller }) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const list = yield* sessions.list(caller.userId)
    return json({ data: list.map((session) => ({ ...sessionView(session), current: session.id === caller.sessionId })) })
  }))

/** Ending the caller's own session clears its cookie. */
const deleteSession = Route.handle(Routes.deleteSession, ({ caller, params }) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const revoked = yield* sessions.revoke(caller.userId, params.id, yield* RequestContext.facts)
    if (Option.isNone(revoked)) return yield* sessionNotFound
    const response = params.id === caller.sessionId ? withoutSession(json({ id: params.id }), yield* cookieSettings) : json({ id: params.id })
    return invalidates(response, { sessionId: params.id })
  }))

/**
 * The documented routes of the caller's own account, answering the kernel's envelope: the profile,
 * and the caller's sessions listed and ended one by one.
 */
export const SessionHandlers = [getProfile, updateProfile, listActiveSessions, deleteSession]
