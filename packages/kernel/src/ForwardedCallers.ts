import { Effect, Layer } from "effect"
import { type Caller, Callers, type ResolveOptions } from "./Caller.js"
import type { Unauthorized } from "./Errors.js"
import { callerOf } from "./ForwardedIdentity.js"

/**
 * `Callers` for a service behind the gateway (docs/architecture.md, "One caller"): the caller is the one the
 * gateway signed into `X-Core-Identity` (read with `ForwardedIdentity.callerOf`, so the service's
 * app must run inside `ForwardedIdentity.guard`, as `Assemble.trusted` and the server do). A
 * request without one falls back to `fallback` (identity's `Callers`, when the service runs in
 * one process with identity and may be called without the gateway), or has no caller at all (401
 * on every guarded route).
 *
 * The policy facts (`isOperator`, `permissionsOf`) are the fallback's; without one, a service knows
 * only what the caller carries (a forwarded user's role and its permissions in its own
 * organization, which `Policy` reads first): nobody else is an operator, and a user holds nothing
 * in another organization than its own.
 */
export const make = (fallback?: Callers["Type"]): Callers["Type"] => {
  const resolve = (
    request: Parameters<Callers["Type"]["resolve"]>[0],
    options?: ResolveOptions
  ): Effect.Effect<Caller | undefined, Unauthorized> => {
    const caller = callerOf(request)
    if (caller !== undefined && (options?.cookieOnly !== true || (caller.kind === "user" && caller.via === "cookie"))) {
      return Effect.succeed(caller)
    }
    return fallback === undefined ? Effect.succeed(undefined) : fallback.resolve(request, options)
  }
  return Callers.of({
    resolve,
    isOperator: fallback?.isOperator ?? (() => Effect.succeed(false)),
    permissionsOf: fallback?.permissionsOf ?? (() => Effect.succeed(undefined))
  })
}

/**
 * The forwarded callers alone: a service that only ever runs behind the gateway (the registry in
 * `core-server start` or `serve --service registry`).
 *
 * @example
 * RegistryRouter.pipe(Effect.provide(Layer.mergeAll(Platforms.Default, ForwardedCallers.layer)))
 */
export const layer: Layer.Layer<Callers> = Layer.succeed(Callers, make())

/**
 * The forwarded callers in front of another `Callers` (identity's `CallersLive`, when the service
 * is embedded with identity): a request without a forwarded caller, and every policy fact, go to it.
 *
 * @example
 * ForwardedCallers.withFallback(CallersLive)
 */
export const withFallback = <E, R>(fallback: Layer.Layer<Callers, E, R>): Layer.Layer<Callers, E, R> =>
  Layer.effect(Callers, Effect.map(Callers, make)).pipe(Layer.provide(fallback))
