import { Context, type Effect } from "effect"
import type { HttpServerRequest } from "@effect/platform"
import type { Caller, Unauthorized, UserCaller } from "@core/kernel"

/**
 * Resolves the caller of the current request. Implemented by `Sessions` (accounts);
 * used by every identity route that needs a caller.
 */
export class Authentication extends Context.Tag("@core/auth/Authentication")<Authentication, {
  /** A session (bearer or cookie) or the static service key; else `Unauthorized`. */
  readonly caller: Effect.Effect<Caller, Unauthorized, HttpServerRequest.HttpServerRequest>
  /** A session only (bearer or cookie); else `Unauthorized`. */
  readonly session: Effect.Effect<UserCaller, Unauthorized, HttpServerRequest.HttpServerRequest>
  /** A session carried by the `core.session_token` cookie only (org-setup); else `Unauthorized`. */
  readonly cookieSession: Effect.Effect<UserCaller, Unauthorized, HttpServerRequest.HttpServerRequest>
}>() {}
