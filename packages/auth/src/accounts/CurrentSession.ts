import { HttpServerRequest } from "@effect/platform"
import { Iam } from "@core/contracts"
import { Effect, Option } from "effect"
import type { UserCaller } from "@core/kernel"
import { type ResolvedSession, Sessions } from "./Sessions.js"

/** A session token as the request carries it. */
export interface PresentedToken {
  readonly token: string
  readonly via: "bearer" | "cookie"
}

/** The token of `Authorization: Bearer <token>`, if any. */
export const bearerOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const header = request.headers["authorization"]
  if (header === undefined || header.slice(0, 7).toLowerCase() !== "bearer ") return undefined
  const token = header.slice(7).trim()
  return token === "" ? undefined : token
}

/** The value of the `core.session_token` cookie, if any. */
export const cookieOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.cookies[Iam.SESSION_COOKIE]
  return value === undefined || value === "" ? undefined : value
}

/** The session token of a request: the bearer first, else the cookie. */
export const presentedToken = (request: HttpServerRequest.HttpServerRequest): PresentedToken | undefined => {
  const bearer = bearerOf(request)
  if (bearer !== undefined) return { token: bearer, via: "bearer" }
  const cookie = cookieOf(request)
  return cookie === undefined ? undefined : { token: cookie, via: "cookie" }
}


/** The caller of a resolved session. */
export const sessionCaller = (resolved: ResolvedSession, via: "bearer" | "cookie"): UserCaller => ({
  kind: "user",
  userId: resolved.user.id,
  sessionId: resolved.session.id,
  email: resolved.user.email,
  organizationId: resolved.session.activeOrganizationId,
  via
})

/**
 * Sessions with their users, resolved once per request (several guards of one request share the lookup).
 */
export class CurrentSession extends Effect.Service<CurrentSession>()("@core/auth/CurrentSession", {
  effect: Effect.gen(function*() {
    const sessions = yield* Sessions
    const memo = new WeakMap<object, Map<string, Option.Option<ResolvedSession>>>()

    /** The live session behind a presented token, resolved at most once per request and token. */
    const resolve = (request: HttpServerRequest.HttpServerRequest, token: string) =>
      Effect.suspend(() => {
        const known = memo.get(request)?.get(token)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.tap(sessions.resolve(token), (found) =>
          Effect.sync(() => {
            const forRequest = memo.get(request) ?? new Map<string, Option.Option<ResolvedSession>>()
            forRequest.set(token, found)
            memo.set(request, forRequest)
          }))
      })

    /** The request's session (bearer first, else cookie), or `None`. */
    const current = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const presented = presentedToken(request)
      if (presented === undefined) return Option.none<{ resolved: ResolvedSession; via: "bearer" | "cookie" }>()
      const found = yield* resolve(request, presented.token)
      return Option.map(found, (resolved) => ({ resolved, via: presented.via }))
    })

    return { resolve, current } as const
  }),
  dependencies: [Sessions.Default]
}) {}

/** The request's live session (bearer, else cookie), if any: for the public routes that look at it. */
export const signedIn = Effect.flatMap(CurrentSession, (current) => current.current)
