import type { Migrations } from "@core/kernel"
import billing from "./0001_billing.js"
import localProvider from "./0002_local_provider.js"
import providerSubscription from "./0003_provider_subscription.js"
import providerInvoices from "./0004_provider_invoices.js"
import finalOverage from "./0005_final_overage.js"
import usage from "./0010_usage.js"
import finalInvoices from "./0011_final_invoices.js"
import invoiceAdjustments from "./0012_invoice_adjustments.js"

/**
 * Billing's migrations (schema `billing`). `0001`–`0009`: subscriptions, invoices, the payment
 * provider, operator tools; `0010`: usage metering (`src/usage/`). The migrator skips an id below the
 * newest applied, so every later migration, of any area, takes the next number: `0011` final
 * invoices and their collection, `0012` refunds and credit notes.
 */
export const BillingMigrations: Migrations.Domain = {
  schema: "billing",
  migrations: {
    "0001_billing": billing,
    "0002_local_provider": localProvider,
    "0003_provider_subscription": providerSubscription,
    "0004_provider_invoices": providerInvoices,
    "0005_final_overage": finalOverage,
    "0010_usage": usage,
    "0011_final_invoices": finalInvoices,
    "0012_invoice_adjustments": invoiceAdjustments
  }
}
