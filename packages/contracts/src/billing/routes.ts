import { defineRoutes } from "../Routes.js"
import {
  EnsurePlatformSubscriptionRequest,
  ChangeTierRequest,
  InvoiceList,
  InvoiceListQuery,
  InvoiceQuery,
  InvoiceRecord,
  InvoiceParams,
  PaymentMethodList,
  PlanRecord,
  PlatformParams,
  PlatformQuery,
  PortalRequest,
  PortalSession,
  ProrationPreview,
  ProrationQuery,
  SetupIntentRecord,
  SubscriptionRecord,
  TierChange,
  UpgradeRequest,
  UpgradeResult
} from "./schemas.js"
import { z } from "zod"
import { OperatorRoutes } from "./operator.js"
import { PortalRoutes, ProviderRoutes, WebhookRoutes } from "./provider.js"
import { UsageRoutes } from "./usage.js"

const subscriptions = ["billing: subscriptions"]
const invoices = ["billing: invoices"]
const payments = ["billing: payments"]

/**
 * The billing routes (docs/billing.md) served at both `/api/billing<path>` and `<path>` (the service's
 * base is `/api/billing`), the upgrade (only at `/api/billing/upgrade`) and `GET /plans`. Through
 * the gateway: `/api/v1/billing/<path>`. Routes that take `platformId` check that the caller may
 * read that platform (another tenant's: 404); the others act on the caller's own platform.
 * Metering adds its routes from `usage.ts`; the provider's root-path objects are in `provider.ts`,
 * the operator tools in `operator.ts`.
 */
export const BillingCoreRoutes = defineRoutes({
  listPlans: {
    method: "GET",
    path: "/plans",
    summary: "The plans with their prices (integer minor units) and usage allowances",
    description: "Every plan (`free`, `starter`, `growth`, `scale`) with its price in integer minor units, its currency and its usage allowances. Public: the pricing page's data.",
    auth: "public",
    suspension: "exempt",
    responses: { 200: z.array(PlanRecord) },
    tags: subscriptions
  },
  getSubscription: {
    method: "GET",
    path: "/api/billing/subscription",
    summary: "A platform's subscription (another tenant's: 404)",
    description: "The subscription of `platformId`: its tier, status (trialing, active, past_due, cancelled), current period and whether it cancels at the period's end. Needs `billing:read`; another tenant's platform answers 404.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: PlatformQuery },
    responses: { 200: SubscriptionRecord, 400: null, 401: null, 403: null, 404: null },
    tags: subscriptions
  },
  createSubscription: {
    method: "POST",
    path: "/api/billing/subscription",
    summary: "Reserved for future use: answers 501 NOT_IMPLEMENTED",
    description: "Reserved by the specification for creating a subscription directly; it answers 501 NOT_IMPLEMENTED. A platform gets its free subscription when it is created, and changes it with upgrade or change-tier.",
    auth: "caller",
    responses: { 401: null, 501: null },
    tags: subscriptions
  },
  cancelSubscription: {
    method: "POST",
    path: "/api/billing/subscription/cancel",
    summary: "Cancel the caller's platform's subscription at the end of its period",
    description: "Cancels the subscription of the caller's platform at the end of its current period (it stays usable until then). A subscription already cancelled is 409 INVALID_STATE. Needs `billing:manage`.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    responses: { 200: SubscriptionRecord, 401: null, 403: null, 404: null, 409: null },
    tags: subscriptions
  },
  changeTier: {
    method: "POST",
    path: "/api/billing/subscription/change-tier",
    summary: "Change the caller's platform's tier now; the proration is charged (or credited) at once",
    description: "Moves the caller's platform to another paid tier now: the difference for the rest of the period is charged (or credited) at once. A declined payment is 402 PAYMENT_FAILED; the tier it is already on is 409 CONFLICT, a cancelled subscription 409 INVALID_STATE. Needs `billing:manage`.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { body: ChangeTierRequest },
    responses: { 200: TierChange, 400: null, 401: null, 402: null, 403: null, 404: null, 409: null },
    tags: subscriptions
  },
  prorationPreview: {
    method: "GET",
    path: "/api/billing/subscription/proration-preview",
    summary: "What a change to `tier` would charge now, to the cent",
    description: "What `change-tier` to `tier` would charge (or credit) now for the rest of the period, in integer minor units, without changing anything. Needs `billing:read`.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: ProrationQuery },
    responses: { 200: ProrationPreview, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags: subscriptions
  },
  listInvoices: {
    method: "GET",
    path: "/api/billing/invoices",
    summary: "A platform's invoices, newest first, cursor-paged",
    description: "The invoices of `platformId`, newest first, cursor-paged (`limit` 1 to 100, default 25): number, status, totals in minor units and period. Needs `billing:read`.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: InvoiceListQuery },
    responses: { 200: InvoiceList, 400: null, 401: null, 403: null, 404: null },
    tags: invoices
  },
  getInvoice: {
    method: "GET",
    path: "/api/billing/invoices/{id}",
    summary: "One invoice with its lines; `platformId` optional (the seed's two single-invoice routes)",
    description: "One invoice with its lines (subscription, proration, usage overage, credits), by id; `platformId` is optional. Another tenant's invoice answers 404.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: InvoiceParams, query: InvoiceQuery },
    responses: { 200: InvoiceRecord, 400: null, 401: null, 403: null, 404: null },
    tags: invoices
  },
  listPaymentMethods: {
    method: "GET",
    path: "/api/billing/payment-methods",
    summary: "The payment methods of the caller's platform's customer",
    description: "The cards of the caller's platform's customer at the payment provider (brand, last four digits, expiry), the default one marked. Needs `billing:read`.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    responses: { 200: PaymentMethodList, 401: null, 403: null, 404: null },
    tags: payments
  },
  createSetupIntent: {
    method: "POST",
    path: "/api/billing/setup-intent",
    summary: "A setup intent at the payment provider for the caller's platform's customer",
    description: "A setup intent at the payment provider (Stripe, or the local adapter) for the caller's platform's customer: its client secret lets a browser collect a card without the card reaching Core. Needs `billing:manage`.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    responses: { 200: SetupIntentRecord, 401: null, 403: null, 404: null },
    tags: payments
  },
  createPortalSession: {
    method: "POST",
    path: "/api/billing/portal",
    summary: "A customer-portal session: a page where the customer changes the payment method or cancels",
    description: "A customer-portal session for the caller's platform: a URL (the provider's portal, or Core's local one) where the customer changes its payment method or cancels, returning to `returnUrl`. Needs `billing:manage`.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { body: PortalRequest },
    responses: { 200: PortalSession, 400: null, 401: null, 403: null, 404: null },
    tags: payments
  },
  upgrade: {
    method: "POST",
    path: "/api/billing/upgrade",
    summary: "Upgrade the caller's free platform to a paid plan, idempotent by `idempotencyKey` (errors without `details`)",
    description: "Moves the caller's free platform to a paid plan: creates the provider customer and subscription with the payment method, charges the first period, and answers the subscription. The same `idempotencyKey` answers the first result again (409 for other parameters); a declined card is 402. Its errors carry no `details`, as the seed shows.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { body: UpgradeRequest },
    responses: { 200: UpgradeResult, 400: null, 401: null, 402: null, 404: null, 409: null },
    tags: subscriptions
  },
  ensurePlatformSubscription: {
    method: "POST",
    path: "/internal/platforms/{platformId}/subscription",
    summary: "Make a just-created platform's free subscription and provider customer now, and set the customer's email when the body names one (the service key; the registry's hooks); idempotent",
    description: "The registry's hooks: makes a just-created platform's free subscription and its provider customer now, rather than at first use, and, when the body names a `billingEmail` (an onboarding's), makes it the customer's email at the payment provider (decision 0578). The static service key only; calling it again changes nothing more.",
    auth: "service",
    request: { params: PlatformParams, body: EnsurePlatformSubscriptionRequest.optional() },
    responses: { 200: SubscriptionRecord, 400: null, 401: null, 404: null },
    tags: ["billing: internal"]
  }
})

/**
 * Every route of the billing service, the catalogue the route table, the gateway and the SDK read:
 * the core above; metering spreads its `UsageRoutes` (`usage.ts`) in here.
 */
export const BillingRoutes = defineRoutes({
  ...BillingCoreRoutes,
  ...ProviderRoutes,
  ...OperatorRoutes,
  ...PortalRoutes,
  ...WebhookRoutes,
  ...UsageRoutes
})
