import { BillingHandlers, BillingServices, PaymentProviderLive, Plans, scheduledBillingCycle, UsageAccountsLive, UsageIngest, UsageReads, UsageTotalsLive } from "@core/billing"
import { BillingService } from "@core/contracts"
import { ForwardedCallers, Ids } from "@core/kernel"
import { Layer } from "effect"
import { BillingPlatformsLive } from "./BillingPlatformsLive.js"
import { EventOutboxLive } from "./EventOutboxLive.js"
import { implement } from "./ServiceDefinition.js"

/**
 * Billing: plans, subscriptions, invoices, the upgrade and the operator tools, behind the gateway
 * like the registry (`ForwardedCallers`), in process or alone with `serve --service billing`. Its
 * routes are documented under `/api/billing` and served at the stripped paths too. The registry is
 * reached in process (`BillingPlatformsLive`); the billing cycle runs every minute in the service's
 * scope; invoices read metering's daily rollups (`UsageTotalsLive`); metering ingests and reads usage
 * (`UsageIngest`, `UsageReads`). Its changes record their events in the events service's outbox.
 */
export const billing = implement(BillingService, {
  handlers: BillingHandlers,
  layer: scheduledBillingCycle().pipe(
    Layer.provideMerge(Layer.mergeAll(BillingServices, UsageIngest.Default, UsageReads.Default)),
    Layer.provideMerge(UsageAccountsLive),
    Layer.provideMerge(Layer.mergeAll(Plans.layerConfig, PaymentProviderLive, BillingPlatformsLive, UsageTotalsLive)),
    Layer.provideMerge(ForwardedCallers.layer),
    // Subscriptions, invoices and usage alerts record their events in their transactions.
    Layer.provideMerge(EventOutboxLive),
    Layer.provideMerge(Ids.layer)
  )
})
