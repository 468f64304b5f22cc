import type { PaymentFailed } from "@core/kernel"
import { Effect, Option } from "effect"
import Stripe from "stripe"
import { paymentDeclined, paymentProviderUnavailable } from "../Errors.js"

/** How the Stripe adapter calls Stripe (decision 0444): missing objects, declined cards and defects. */

export const isStripeError = (error: unknown): error is Stripe.errors.StripeError => error instanceof Stripe.errors.StripeError

/** Stripe answered that the object does not exist (404, `resource_missing`). */
export const isMissing = (error: unknown) => isStripeError(error) && (error.statusCode === 404 || error.code === "resource_missing")

/**
 * A failure Stripe's answer does not make a domain error (unreachable, 5xx, a refused request):
 * logged with Stripe's type, code and request id — never the key, which the SDK keeps out of its
 * errors — and a defect carrying `UpstreamUnavailable`, which the kernel answers 502
 * `UPSTREAM_UNAVAILABLE` (never a 500: decision 0444).
 */
export const defect = (operation: string) => (error: unknown) =>
  Effect.logWarning(
    isStripeError(error)
      ? `Stripe ${operation} failed: ${error.type}${error.code === undefined ? "" : ` ${error.code}`} (${error.statusCode ?? "network"}, ${error.requestId ?? "no request id"}): ${error.message.slice(0, 200)}`
      : `Stripe ${operation} failed: ${error instanceof Error ? error.message.slice(0, 200) : "unknown error"}`
  ).pipe(Effect.zipRight(Effect.die(paymentProviderUnavailable)))

export const call = <A>(operation: string, request: () => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: request, catch: (error) => error }).pipe(Effect.withSpan(`Stripe.${operation}`))

/** A call whose failure is a defect. */
export const must = <A>(operation: string, request: () => Promise<A>): Effect.Effect<A> => Effect.catchAll(call(operation, request), defect(operation))

/** A read of one object: missing at Stripe is `None`. */
export const lookup = <A, B>(operation: string, request: () => Promise<A>, map: (value: A) => B | undefined): Effect.Effect<Option.Option<B>> =>
  call(operation, request).pipe(
    Effect.map((value) => Option.fromNullable(map(value))),
    Effect.catchAll((error) => (isMissing(error) ? Effect.succeed(Option.none<B>()) : defect(operation)(error)))
  )

/** A declined card (402 `card_error`) is `PaymentFailed`; anything else a defect. */
export const cardError = (operation: string) => (error: unknown): Effect.Effect<never, PaymentFailed> =>
  isStripeError(error) && error.type === "StripeCardError"
    ? Effect.fail(paymentDeclined(error.message.slice(0, 200), error.decline_code ?? error.code ?? "card_declined"))
    : defect(operation)(error)

