import { Billing, BillingService } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { subscriptionCreationReserved } from "./Errors.js"
import { OperatorHandlers } from "./OperatorHttp.js"
import { Plans } from "./Plans.js"
import { UsageHandlers } from "./usage/UsageHttp.js"
import { PortalHandlers } from "./PortalHttp.js"
import { ProviderHandlers } from "./ProviderHttp.js"
import { SubscriptionHandlers } from "./SubscriptionsHttp.js"
import { WebhookHandlers } from "./WebhooksHttp.js"

/** The core billing routes (everything but metering), one `handle` per catalogued route. */
export const BillingCoreHandlers = [
  ...SubscriptionHandlers,
  ...ProviderHandlers,
  ...OperatorHandlers,
  ...PortalHandlers,
  ...WebhookHandlers,
  Route.handle(Billing.BillingRoutes.listPlans, () =>
    Effect.gen(function*() {
      const plans = yield* Plans
      return [...plans.all]
    })),
  Route.handle(Billing.BillingRoutes.createSubscription, () => Effect.fail(subscriptionCreationReserved))
]

/** Every billing route: the core and (spread in by metering) the usage routes. */
export const BillingHandlers = [...BillingCoreHandlers, ...UsageHandlers]

/** The base the billing routes are documented under and served without (DESIGN §3). */
export const BILLING_BASE = BillingService.base

/** Billing as an app: its routes under `/api/billing` and at the paths the gateway forwards. */
export const BillingRouter = Route.router(BillingHandlers, { base: BILLING_BASE })
