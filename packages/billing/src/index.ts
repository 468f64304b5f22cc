/**
 * @core/billing — plans, subscriptions (the source of a platform's tier), invoices, the upgrade,
 * operator tools, and the `PaymentProvider` port with its local and Stripe adapters. Usage
 * metering lives in `src/usage/` and reaches invoices through the `UsageTotals` port.
 */
export { BillingConfig, type BillingSettings } from "./Config.js"
export { allowanceOf, DEFAULT_PLANS, isPlanId, METERS, PLAN_IDS, Plans } from "./Plans.js"
export type { Allowances, Meter, OveragePrice, Plan, PlanId, PlanTable } from "./Plans.js"
export { UsageTotals } from "./ports/UsageTotals.js"
export { BILLING_BASE, BillingCoreHandlers, BillingHandlers, BillingRouter } from "./Http.js"
export { BillingMigrations } from "./migrations/index.js"
export { calendarMonth, UsageAccounts, type UsagePeriod } from "./usage/UsageAccounts.js"
export { UsageAccountsLive } from "./usage/UsageAccountsLive.js"
export { ALERT_THRESHOLDS, UsageIngest, type UsageEventInput } from "./usage/UsageIngest.js"
export { UsageReads } from "./usage/UsageReads.js"
export { UsageTotalsLive } from "./usage/UsageTotalsLive.js"
export { UsageHandlers } from "./usage/UsageHttp.js"
