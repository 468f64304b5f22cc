import type { HttpServerRequest } from "@effect/platform"
import { type Caller, Callers, CoreConfig, Crypto, type ResolveOptions, type Unauthorized } from "@core/kernel"
import { Effect, Layer, Option, Redacted } from "effect"
import { bearerOf, cookieOf, CurrentSession, sessionCaller } from "../accounts/CurrentSession.js"
import { ApiKeys } from "./ApiKeys.js"
import { Permissions } from "./Permissions.js"
import { invalidSession } from "../Errors.js"

/**
 * Identity's implementation of the kernel's `Callers` port, so that every route of every service
 * accepts every kind of caller its declaration allows. Credentials in the gateway's order:
 * `x-api-key` (validated like the gateway's own check), then `Authorization: Bearer` (the static
 * service key, compared in constant time, or a session token), then the `core.session_token`
 * cookie. Sessions are looked up once per request; permissions and operator membership come from
 * the in-process cache of `Permissions`.
 */
export const make = Effect.gen(function*() {
  const config = yield* CoreConfig
  const current = yield* CurrentSession
  const keys = yield* ApiKeys
  const permissions = yield* Permissions
  const staticKey = config.staticApiKey === undefined ? undefined : Redacted.value(config.staticApiKey)

  const session = (request: HttpServerRequest.HttpServerRequest, token: string, via: "bearer" | "cookie") =>
    Effect.flatMap(current.resolve(request, token), (found) =>
      Option.isNone(found) ? Effect.fail(invalidSession) : Effect.succeed<Caller>(sessionCaller(found.value, via)))

  const apiKey = (key: string) =>
    Effect.map(keys.validate(key), (valid): Caller => ({
      kind: "apikey",
      keyId: valid.keyId,
      organizationId: valid.organizationId,
      platformId: valid.platformId,
      permissions: valid.permissions
    }))

  const resolve = (
    request: HttpServerRequest.HttpServerRequest,
    options?: ResolveOptions
  ): Effect.Effect<Caller | undefined, Unauthorized> => {
    if (options?.cookieOnly !== true) {
      const key = request.headers["x-api-key"]?.trim()
      if (key !== undefined && key !== "") return apiKey(key)
      const bearer = bearerOf(request)
      if (bearer !== undefined) {
        return staticKey !== undefined && Crypto.safeEqual(bearer, staticKey)
          ? Effect.succeed({ kind: "service" })
          : session(request, bearer, "bearer")
      }
    }
    const cookie = cookieOf(request)
    return cookie === undefined ? Effect.succeed(undefined) : session(request, cookie, "cookie")
  }

  return Callers.of({
    resolve,
    isOperator: permissions.isOperator,
    permissionsOf: (userId, organizationId) => Effect.map(permissions.membership(userId, organizationId), (m) => m?.permissions)
  })
})

/** `Callers` for identity's routes (and, in one process, every other service's). */
export const CallersLive: Layer.Layer<Callers, never, CoreConfig | CurrentSession | ApiKeys | Permissions> = Layer.effect(
  Callers,
  make
)
