import { Layer } from "effect"
import { BillingCycle } from "./BillingCycle.js"
import { Collections } from "./Collections.js"
import { FinalInvoices } from "./FinalInvoices.js"
import { Customers } from "./Customers.js"
import { Invoices } from "./Invoices.js"
import { Operator } from "./Operator.js"
import { OperatorLog } from "./OperatorLog.js"
import { Payments } from "./Payments.js"
import { ProviderOverage } from "./ProviderOverage.js"
import { Subscriptions } from "./Subscriptions.js"
import { SubscriptionsRepo } from "./SubscriptionsRepo.js"
import { Upgrade } from "./Upgrade.js"
import { Webhooks } from "./Webhooks.js"

const records = Layer.mergeAll(SubscriptionsRepo.Default, Invoices.Default, OperatorLog.Default, ProviderOverage.Default)
const collections = Collections.Default.pipe(Layer.provideMerge(records))
const finals = FinalInvoices.Default.pipe(Layer.provideMerge(collections))
const subscriptions = Subscriptions.Default.pipe(Layer.provideMerge(finals))
const cycle = BillingCycle.Default.pipe(Layer.provideMerge(subscriptions))

/**
 * `Subscriptions` and what it is made of (its records, the final invoices and their collection),
 * for a process that only meets platforms (the registry's `PlatformCreated` in process); given the
 * plans, the payment provider, the registry (`BillingPlatforms`) and `UsageTotals`.
 */
export const SubscriptionsServices = subscriptions
const payments = Payments.Default.pipe(Layer.provideMerge(cycle))

/**
 * Billing's services over the process's database, given the plans, the payment provider, the
 * registry (`BillingPlatforms`) and metering's `UsageTotals`. The server adds the scheduled cycle
 * (`BillingCycle.scheduled`).
 */
export const BillingServices = Layer.mergeAll(Customers.Default, Upgrade.Default, Operator.Default, Webhooks.Default).pipe(Layer.provideMerge(payments))
