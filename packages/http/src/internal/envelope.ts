import type { HttpApp } from "@effect/platform"
import { ErrorResponse, NotFound } from "@core/kernel"
import { Cause, Effect } from "effect"

const isRouteNotFound = (u: unknown): boolean =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "RouteNotFound"

/**
 * Every failure of an app ends as the kernel's envelope; an unmatched route is a 404 `NOT_FOUND`,
 * not the 500 an unknown failure would be.
 */
export const withEnvelope = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  Effect.catchAllCause(app, (cause) =>
    ErrorResponse.handleCause(
      Cause.map(cause, (error) => isRouteNotFound(error) ? new NotFound({ message: "Route not found" }) : error)
    ))
