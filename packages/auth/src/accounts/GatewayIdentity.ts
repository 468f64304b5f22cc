/**
 * The identity service as the gateway asks it in the same process: the answers of
 * `GET /api/core/session` and `POST /api/core/apikey/validate` as values, from the same services
 * those routes use (the session cache, the key lookup), with no request built or read.
 */
import type { Iam } from "@core/contracts"
import { Effect, Option } from "effect"
import { ApiKeys } from "../authorization/ApiKeys.js"
import { SessionContext } from "./SessionContext.js"
import { coreSessionOf } from "./SessionContextRoutes.js"

/** What the gateway asks (the shape of `@core/gateway`'s `IdentityResolver.InProcessIdentity`). */
export interface GatewayIdentity {
  /** The session a token opens, as `GET /api/core/session` answers it; `undefined` where it answers 401. */
  readonly session: (token: string) => Effect.Effect<Iam.CoreSessionResponse | undefined>
  /** A key's validation, as `POST /api/core/apikey/validate` answers it; `undefined` where it answers 401. */
  readonly apiKey: (key: string) => Effect.Effect<Iam.ApiKeyValidation | undefined>
}

/**
 * The gateway's in-process identity over this context's services. The gateway is the validator
 * itself here, so no static key is presented.
 *
 * @example
 * const identity = yield* GatewayIdentity.make // in the identity service's context
 * Upstream.fromHandlers("IAM", IdentityHandlers, { trust, identity })
 */
export const make: Effect.Effect<GatewayIdentity, never, SessionContext | ApiKeys> = Effect.gen(function*() {
  const context = yield* SessionContext
  const keys = yield* ApiKeys
  return {
    session: (token) => Effect.map(context.describe(token), (found) => Option.isNone(found) ? undefined : coreSessionOf(found.value)),
    apiKey: (key) => Effect.catchTag(keys.validate(key), "Unauthorized", () => Effect.succeed(undefined))
  }
})
