import { BillingHandlers, BILLING_BASE, Plans } from "@core/billing"
import { ForwardedCallers, Ids } from "@core/kernel"
import { Layer } from "effect"
import type { ServiceDefinition } from "./Services.js"

/**
 * Billing: plans, subscriptions, invoices, the upgrade and the operator tools, behind the gateway
 * like the registry (`ForwardedCallers`), in process or alone with `serve --service billing`. Its
 * routes are documented under `/api/billing` and served at the stripped paths too.
 */
export const billing: ServiceDefinition = {
  name: "billing",
  upstream: "BILLING",
  handlers: BillingHandlers,
  base: BILLING_BASE,
  layer: Layer.mergeAll(Plans.layerConfig, ForwardedCallers.layer).pipe(Layer.provideMerge(Ids.layer))
}
