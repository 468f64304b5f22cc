import { Context, type Effect } from "effect"

/** Billing could not be told a platform's billing email (the `onboard` job's step fails and is retried). */
export class BillingContactFailed extends Error {
  readonly _tag = "BillingContactFailed"
}

/**
 * Who is told a platform's billing email (decision 0578): an onboarding names one, and billing makes
 * it the email of the platform's customer at the payment provider, so that its invoices and
 * receipts reach that address. The `onboard` job tells it, in a memoized step. Without one (tests,
 * a registry alone) the email stays on the onboarding flow only. The all-in-one server provides it
 * (`@core/server`'s `PlatformBillingContactLive`: billing in process, or over HTTP).
 */
export class PlatformBillingContact extends Context.Tag("@core/registry/PlatformBillingContact")<PlatformBillingContact, {
  readonly set: (platformId: string, email: string) => Effect.Effect<void, BillingContactFailed>
}>() {}
