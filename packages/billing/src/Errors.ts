import { Conflict, InvalidRedirect, InvalidState, NotFound, NotImplemented, PaymentFailed, UpstreamUnavailable, ValidationError } from "@core/kernel"

/** A platform, subscription, invoice or customer the caller may not see answers as if it did not exist. */
export const platformNotFound = new NotFound({ message: "Platform not found" })
export const subscriptionNotFound = new NotFound({ message: "Subscription not found" })
export const invoiceNotFound = new NotFound({ message: "Invoice not found" })
export const customerNotFound = new NotFound({ message: "Customer not found" })
export const paymentMethodNotFound = new NotFound({ message: "Payment method not found" })

/** The reserved `POST /subscription` (seed 001): 501. */
export const subscriptionCreationReserved = new NotImplemented({
  message: "Creating a subscription this way is reserved for future use; every platform already has one"
})

/** A payment method the payment provider does not know (`reference` cut to 64 characters). */
export const noSuchPaymentMethod = (reference: string) => new NotFound({ message: `No such payment method: ${reference.slice(0, 64)}` })

/** A price that names no plan (`priceId` cut to 64 characters). */
export const noSuchPrice = (priceId: string) => new PaymentFailed({ message: `No such price: ${priceId.slice(0, 64)}` })

/** A decline from the payment provider, with its `declineCode`. */
export const paymentDeclined = (message: string, declineCode: string) => new PaymentFailed({ message, details: { declineCode } })

/** Charging without a payment method on file. */
export const noPaymentMethod = new PaymentFailed({ message: "No payment method on file" })

/** The upgrade's payment method is not known to the payment provider. */
export const upgradePaymentMethodUnknown = new PaymentFailed({ message: "The payment method is not known to the payment provider" })

/** The payment provider could not complete a request (a defect, logged with its cause). */
export const paymentProviderUnavailable = new UpstreamUnavailable({ message: "The payment provider could not complete the request", upstream: "stripe" })

/** The provider's subscription behind a platform's is gone. */
export const subscriptionGoneAtProvider = new NotFound({ message: "The subscription at the payment provider was not found" })

/** `InvalidState`: a cancelled subscription cannot move to `to`. */
export const subscriptionCancelled = (from: string, to: string) => new InvalidState({ message: "The subscription is cancelled", from, to })

/** A tier change to the tier the subscription is already on. */
export const alreadyOnTier = (tier: string) => new Conflict({ message: `The subscription is already on ${tier}`, details: { tier } })

/** An upgrade of a platform already on a paid plan. */
export const alreadyOnPaidPlan = (planId: string) => new Conflict({ message: `The platform is already on the ${planId} plan; change tiers instead` })

/** An upgrade's idempotency key used with other parameters. */
export const upgradeKeyReused = new Conflict({ message: "This idempotency key was used with other parameters" })

/** An upgrade's idempotency key whose first request has not answered yet. */
export const upgradeKeyInProgress = new Conflict({ message: "A request with this idempotency key is still in progress" })

/** The answer an upgrade kept under its idempotency key, as the error it stood for (402 or 409). */
export const replayedUpgradeError = (status: number, message: string) =>
  status === 402 ? new PaymentFailed({ message }) : new Conflict({ message })

/** Stripe webhooks without `STRIPE_WEBHOOK_SECRET`. */
export const webhooksNotConfigured = new NotFound({ message: "Stripe webhooks are not configured (STRIPE_WEBHOOK_SECRET)" })

/** A webhook whose `Stripe-Signature` does not verify (the reason cut to 200 characters). */
export const badWebhookSignature = (message: string) =>
  new ValidationError({ message: "The webhook signature does not verify", issues: [{ path: "stripe-signature", message: message.slice(0, 200) }] })

/** A usage query the contract cannot express a rule for. */
export const invalidUsageQuery = (path: string, message: string) => new ValidationError({ message: "Invalid request query", issues: [{ path, message }] })

/** A portal `returnUrl` off this site and its trusted origins. */
export const untrustedReturnUrl = new InvalidRedirect({
  message: "returnUrl must be an address on this site or on a trusted origin (CORE_CORS_ORIGINS)",
  field: "returnUrl"
})
