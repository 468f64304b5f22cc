import { Option } from "effect"
import type { BillingSettings, PaidPlanId } from "../Config.js"
import { isPlanId, type PlanId } from "../Plans.js"

const PAID: ReadonlyArray<PaidPlanId> = ["starter", "growth", "scale"]

/**
 * The Stripe price a reference names (decision 0444): a plan id (`starter`) or `price_<plan>` is the
 * plan's configured price (`STRIPE_PRICE_STARTER`), else `price_<plan>`; any other `price_…` is
 * passed on as it is.
 */
export const stripePriceOf = (settings: BillingSettings, reference: string): string => {
  const plan = reference.replace(/^price_/, "")
  const paid = PAID.find((id) => id === plan)
  if (paid === undefined) return reference
  return Option.getOrElse(settings.stripePrices[paid], () => `price_${paid}`)
}

/** The plan a Stripe price stands for: a configured price, `price_<plan>` or a plan id; else `None`. */
export const planOfStripePrice = (settings: BillingSettings, priceId: string): Option.Option<PlanId> => {
  const configured = PAID.find((id) => Option.getOrUndefined(settings.stripePrices[id]) === priceId)
  if (configured !== undefined) return Option.some(configured)
  const plan = priceId.replace(/^price_/, "")
  return isPlanId(plan) ? Option.some(plan) : Option.none()
}
