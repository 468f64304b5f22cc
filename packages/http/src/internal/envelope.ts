import type { HttpApp } from "@effect/platform"
import { ErrorResponse } from "@core/kernel"
import { Effect } from "effect"

/**
 * Every failure of an app ends as the kernel's envelope; an unmatched route is a 404 `NOT_FOUND`,
 * not the 500 an unknown failure would be (the kernel's one handler knows both).
 */
export const withEnvelope = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  Effect.catchAllCause(app, ErrorResponse.handleCause)
